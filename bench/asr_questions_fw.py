#!/usr/bin/env python3
"""Transcribes the spoken question clips (bench/speak-questions.sh CLIPS) with the reference
runtime faster-whisper under one setting (greedy or beam, with or without an initial prompt),
for the recognizer study in docs/PERFORMANCE-HISTORY.md ("Where the spoken answers are lost").

Writes RESULTS/<name>.tsv: voice <TAB> clip index <TAB> question <TAB> transcript; score them
with bench/asr_questions_score.py.

Usage (python3 with faster-whisper installed, e.g. in a venv):
  bench/asr_questions_fw.py NAME MODEL_DIR --clips CLIPS --results RESULTS [--beam N]
                            [--lang en] [--prompt TEXT] [--compute float32|int8]
MODEL_DIR: an installed Whisper asset folder, e.g. $POCKET_HOME/whisper-tiny.en.
"""
import argparse
import csv
import os
import sys

from faster_whisper import WhisperModel

VOICES = ["flite-slt", "flite-rms", "espeak-en-us+f3"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("model")
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--lang", default=None)
    ap.add_argument("--prompt", default=None)
    ap.add_argument("--compute", default="float32")
    ap.add_argument("--clips", required=True)
    ap.add_argument("--results", required=True)
    a = ap.parse_args()

    model = WhisperModel(a.model, device="cpu", compute_type=a.compute,
                         cpu_threads=1, num_workers=1)
    os.makedirs(a.results, exist_ok=True)
    out_path = os.path.join(a.results, a.name + ".tsv")
    with open(out_path, "w", newline="") as out:
        w = csv.writer(out, delimiter="\t", lineterminator="\n")
        w.writerow(["voice", "idx", "question", "transcript"])
        for voice in VOICES:
            with open(os.path.join(a.clips, voice, "list.tsv")) as f:
                rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
            for wav, question, _kw in rows:
                idx = os.path.splitext(os.path.basename(wav))[0]
                segments, _info = model.transcribe(
                    wav,
                    language=a.lang,
                    beam_size=a.beam,
                    best_of=1,
                    temperature=0.0,            # no temperature fallback: plain greedy/beam
                    initial_prompt=a.prompt,
                    without_timestamps=True,
                    vad_filter=False,
                    condition_on_previous_text=False,
                )
                text = " ".join(s.text.strip() for s in segments).strip()
                w.writerow([voice, idx, question, text])
                out.flush()
            print(f"{a.name}: {voice} done", file=sys.stderr)
    print(out_path)


if __name__ == "__main__":
    main()
