"""Peer half of bench/tts.sh: piper-tts (onnxruntime) speaks each line of a file as one reply
with the same voice and 2 intra-op threads, printing one JSON line per reply: time to its first
audio chunk (piper-tts yields one chunk per sentence), synthesis time and audio length.

Run: PY bench/tts_piper.py MODEL.onnx REPLIES.txt [THREADS] [RUNS]
"""
import json
import sys
import time

import onnxruntime
from piper import PiperVoice
from piper.config import PiperConfig

model, replies_path = sys.argv[1], sys.argv[2]
threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
replies = [l.strip() for l in open(replies_path, encoding="utf-8") if l.strip()]

opts = onnxruntime.SessionOptions()
opts.intra_op_num_threads = threads
opts.inter_op_num_threads = 1
t = time.perf_counter()
with open(model + ".json", encoding="utf-8") as f:
    config = PiperConfig.from_dict(json.load(f))
voice = PiperVoice(
    config=config,
    session=onnxruntime.InferenceSession(model, sess_options=opts, providers=["CPUExecutionProvider"]),
)
print(f"load {(time.perf_counter() - t) * 1e3:.0f} ms", file=sys.stderr)
for _ in voice.synthesize("Warming up, one two three."):
    pass
for run in range(runs):
    for i, reply in enumerate(replies):
        start = time.perf_counter()
        cpu0 = time.process_time()
        first = None
        samples = 0
        for chunk in voice.synthesize(reply):
            if first is None:
                first = time.perf_counter() - start
            samples += len(chunk.audio_float_array)
        total = time.perf_counter() - start
        cpu = time.process_time() - cpu0
        print(json.dumps({"engine": "piper-tts", "run": run, "reply": i, "first_ms": round(first * 1e3, 2),
                          "total_ms": round(total * 1e3, 2), "cpu_ms": round(cpu * 1e3, 1), "audio_s": round(samples / config.sample_rate, 4)}))
