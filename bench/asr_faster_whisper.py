"""faster-whisper side of bench/asr.sh: greedy (or --beam N) decoding of each clip, WER and latency.

For every clip it prints one tab-separated line
    fw-<compute_type>  <clip id>  <audio seconds>  <latency ms>  <text>
and finally a WER line per compute type. Latency is the wall time of `transcribe` on an
in-memory array (features, 30 s encoder window, greedy decoding), median of --repeat runs.
The same normalisation as asr/tests/common/mod.rs is used for WER.

Run: /work/peers/venv-fw/bin/python bench/asr_faster_whisper.py MODEL_DIR CLIP.wav[=REFERENCE] ...
     [--compute int8,float32] [--threads 2] [--repeat 3] [--beam 1]
"""
import argparse
import re
import statistics
import time
import wave

import numpy as np
from faster_whisper import WhisperModel


def read_wav(path):
    with wave.open(path) as w:
        assert w.getsampwidth() == 2, "16-bit PCM expected"
        a = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0
        ch = w.getnchannels()
        if ch > 1:
            a = a.reshape(-1, ch).mean(axis=1)
        assert w.getframerate() == 16000, "16 kHz expected"
    return a


def normalize(s):
    s = s.lower().replace("-", " ")
    s = "".join(c for c in s if c.isalnum() or c.isspace())
    return s.split()


def edits(r, h):
    prev = list(range(len(h) + 1))
    for i, rw in enumerate(r):
        cur = [i + 1] * (len(h) + 1)
        for j, hw in enumerate(h):
            cur[j + 1] = min(prev[j] + (rw != hw), prev[j + 1] + 1, cur[j] + 1)
        prev = cur
    return prev[len(h)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("clips", nargs="+")
    ap.add_argument("--compute", default="int8,float32")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--beam", type=int, default=1)
    args = ap.parse_args()
    clips = []
    for c in args.clips:
        path, _, ref = c.partition("=")
        clips.append((re.sub(r".*/|\.wav$", "", path), read_wav(path), ref))
    for ct in args.compute.split(","):
        m = WhisperModel(args.model, device="cpu", compute_type=ct, cpu_threads=args.threads)
        opts = dict(beam_size=args.beam, temperature=0.0, without_timestamps=True,
                    condition_on_previous_text=False, vad_filter=False, language="en")
        list(m.transcribe(clips[0][1], **opts)[0])  # warm-up
        errs = words = 0
        for cid, audio, ref in clips:
            times, text = [], ""
            for _ in range(args.repeat):
                t = time.perf_counter()
                segs, _ = m.transcribe(audio, **opts)
                text = "".join(s.text for s in segs).strip()
                times.append((time.perf_counter() - t) * 1000)
            if ref:
                r = normalize(ref)
                errs += edits(r, normalize(text))
                words += len(r)
            print(f"fw-{ct}\t{cid}\t{len(audio) / 16000:.2f}\t{statistics.median(times):.1f}\t{text}")
        if words:
            print(f"fw-{ct}\tWER\t{100 * errs / words:.2f}\t{errs}/{words}")


if __name__ == "__main__":
    main()
