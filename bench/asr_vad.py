"""Scores Silero VAD v6 (ONNX, onnxruntime) on the frames written by the `vad_eval` example,
next to earshot's scores, so both VADs are judged on the same signals and labels.

Silero takes 512-sample windows (32 ms) with 64 samples of context; each window's
probability is given to the two 16 ms frames it covers.

Run: cargo run --release -p pocket-asr --example vad_eval -- OUT CLIP.wav ...
     /work/peers/venv-fw/bin/python bench/asr_vad.py OUT SILERO_VAD.onnx
"""
import glob
import sys

import numpy as np
import onnxruntime as ort

out, model = sys.argv[1], sys.argv[2]
sess = ort.InferenceSession(model)
res = {}
for lab_path in sorted(glob.glob(f"{out}/*.lab")):
    name = lab_path[:-4]
    cond = name.rsplit("-", 1)[1]
    sig = np.fromfile(name + ".f32", dtype="<f4")
    lab = np.frombuffer(open(lab_path, "rb").read(), dtype=np.uint8) == ord("1")
    state = np.zeros((2, 1, 128), dtype=np.float32)
    ctx = np.zeros(64, dtype=np.float32)
    probs = []
    for i in range(0, len(sig) - 511, 512):
        chunk = sig[i : i + 512]
        x = np.concatenate([ctx, chunk])[None, :]
        p, state = sess.run(None, {"input": x, "state": state, "sr": np.array(16000, dtype=np.int64)})
        ctx = chunk[-64:]
        probs += [float(p[0, 0])] * 2
    ear = np.loadtxt(name + ".earshot")
    for vad, pr in (("silero-v6", np.array(probs)), ("earshot", ear)):
        n = min(len(pr), len(lab))
        d, l = pr[:n] >= 0.5, lab[:n]
        c = res.setdefault((vad, cond), np.zeros(4))
        c += [np.sum(d & l), np.sum(d & ~l), np.sum(~d & ~l), np.sum(~d & l)]
for (vad, cond), (tp, fp, tn, fn) in sorted(res.items(), key=lambda k: (k[0][1], k[0][0])):
    print(f"{vad}\t{cond}\taccuracy {100 * (tp + tn) / (tp + fp + tn + fn):.1f}%\t"
          f"speech recall {100 * tp / max(tp + fn, 1):.1f}%\tfalse alarms {100 * fp / max(fp + tn, 1):.1f}% of non-speech")
