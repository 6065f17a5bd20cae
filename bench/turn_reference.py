#!/usr/bin/env python3
"""Reference end-of-turn probabilities of Smart Turn v3.2 for turn/tests/parity.rs.

Runs the pipecat-ai 1.14.0 wheel's own feature code (`_whisper_features.py`) and the ONNX model
under Python onnxruntime on a few cuts of the test-audio assets, the way the wheel's
`local_smart_turn_v3.py` prepares them (last 8 s, zero-padded at the front), and prints Rust
constants. Nothing from the wheel is copied into the repository: unpack it somewhere and point
this script at it.

    pip download --no-deps pipecat-ai==1.14.0 -d /tmp/w && (cd /tmp/w && unzip -q pipecat_ai-*.whl)
    python3 -m venv /tmp/ortvenv && /tmp/ortvenv/bin/pip install onnxruntime==1.32.0 numpy
    /tmp/ortvenv/bin/python bench/turn_reference.py /tmp/w ~/.cache/pocket-voice

Each case: (name, asset/file, start s, end s, trailing silence s). The cut [start, end) of the
clip is followed by that much digital silence (the pause the classifier is asked in).
"""

import importlib.util
import sys
import wave
from pathlib import Path

import numpy as np
import onnxruntime as ort

CASES = [
    ("jfk_whole", "jfk/jfk.wav", 0.0, 11.0, 0.2),
    ("jfk_mid_sentence", "jfk/jfk.wav", 0.0, 5.6, 0.2),
    ("jfk_first_clause", "jfk/jfk.wav", 0.0, 3.0, 0.2),
    ("cards_001", "cards/001.wav", 0.0, 99.0, 0.2),
    ("librivox_0880", "librivox/sense_and_sensibility_01_austen_64kb-0880.wav", 0.0, 99.0, 0.2),
]


def read_wav(path):
    with wave.open(str(path)) as w:
        assert w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0


def last_8s_front_padded(audio):
    n = 8 * 16000
    if len(audio) >= n:
        return audio[-n:]
    return np.concatenate([np.zeros(n - len(audio), dtype=np.float32), audio])


def main():
    wheel, store = Path(sys.argv[1]), Path(sys.argv[2])
    base = wheel / "pipecat/audio/turn/smart_turn"
    spec = importlib.util.spec_from_file_location("wf", base / "_whisper_features.py")
    wf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wf)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    # As pocket-turn runs it: the QDQ pairs stay float arithmetic instead of ONNX Runtime's
    # fused int8 kernels, whose results depend on the CPU (jfk_whole: 0.26 on an AMD AVX2
    # machine without VNNI, 0.63 on the machine this reference was first made on, 0.73 float).
    so.add_session_config_entry("session.disable_quant_qdq", "1")
    sess = ort.InferenceSession(str(base / "data/smart-turn-v3.2-cpu.onnx"), sess_options=so)
    print("pub(crate) const CASES: [Case; %d] = [" % len(CASES))
    for name, file, start, end, pause in CASES:
        clip = read_wav(store / file)
        cut = clip[int(start * 16000) : int(min(end * 16000, len(clip)))]
        audio = np.concatenate([cut, np.zeros(int(pause * 16000), dtype=np.float32)])
        feats = wf.compute_whisper_log_mel_features(last_8s_front_padded(audio))
        p = float(sess.run(None, {"input_features": feats[None]})[0].reshape(-1)[0])
        # A digest of the features, so a mismatch says whether the front end or the model differs.
        print(
            f'    Case {{ name: "{name}", file: "{file}", start_s: {start}, end_s: {end}, '
            f"pause_s: {pause}, feature_mean: {feats.mean():.6f}, feature_std: {feats.std():.6f}, "
            f"p_complete: {p:.6f} }},"
        )
    print("];")


if __name__ == "__main__":
    main()
