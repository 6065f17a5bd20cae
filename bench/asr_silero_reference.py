"""numpy re-implementation of the Silero VAD 16 kHz network on `silero_vad_16k.safetensors`;
prints the probabilities of the first 40 windows of a clip, which asr/src/silero.rs's test
commits (`REF`). Same layout as the Rust code: 64 context + 512 samples, reflect pad 64,
STFT conv (256 taps, hop 128), magnitude, conv+ReLU x4 (strides 1,2,2,1), LSTM cell,
ReLU, 1x1 conv, sigmoid.

Run: /work/peers/venv-fw/bin/python bench/asr_silero_reference.py WEIGHTS.safetensors CLIP.wav
"""
import json
import struct
import sys
import wave

import numpy as np

raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
head = json.loads(raw[8 : 8 + n])
W = {k: np.frombuffer(raw[8 + n + v["data_offsets"][0] : 8 + n + v["data_offsets"][1]], dtype="<f4").reshape(v["shape"])
     for k, v in head.items() if k != "__metadata__"}


def conv1d(x, w, b, stride=1, pad=1):
    x = np.pad(x, ((0, 0), (pad, pad))) if pad else x
    k = w.shape[2]
    t_out = (x.shape[1] - k) // stride + 1
    y = np.stack([np.tensordot(w, x[:, t * stride : t * stride + k], axes=([1, 2], [0, 1])) for t in range(t_out)], 1)
    return y + (b[:, None] if b is not None else 0)


def sig(v):
    return 1 / (1 + np.exp(-v))


def step(x576, h, c):
    x = np.pad(x576, (0, 64), mode="reflect")
    ft = conv1d(x[None, :], W["stft_conv.weight"], None, stride=128, pad=0)
    y = np.sqrt(ft[:129] ** 2 + ft[129:] ** 2)
    for i, s in enumerate((1, 2, 2, 1)):
        y = np.maximum(conv1d(y, W[f"conv{i + 1}.weight"], W[f"conv{i + 1}.bias"], s), 0)
    g = W["lstm_cell.weight_ih"] @ y[:, -1] + W["lstm_cell.bias_ih"] + W["lstm_cell.weight_hh"] @ h + W["lstm_cell.bias_hh"]
    i, f, gg, o = np.split(g, 4)
    c = sig(f) * c + sig(i) * np.tanh(gg)
    h = sig(o) * np.tanh(c)
    return float(sig(W["final_conv.weight"][0, :, 0] @ np.maximum(h, 0) + W["final_conv.bias"][0])), h, c


with wave.open(sys.argv[2]) as w:
    a = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0
ctx, h, c, out = np.zeros(64, np.float32), np.zeros(128, np.float32), np.zeros(128, np.float32), []
for i in range(0, 512 * 40, 512):
    chunk = a[i : i + 512]
    p, h, c = step(np.concatenate([ctx, chunk]), h, c)
    ctx = chunk[-64:]
    out.append(p)
print("    const REF: [f32; %d] = [%s];" % (len(out), ", ".join("%.5f" % v for v in out)))
