#!/usr/bin/env python3
"""Choosing among the recognizer's hearings with a language model, offline: for each clip of
a scored hearings file (`asr_questions` writes RESULTS/NAME.hearings.tsv; `cargo run --release
-p pocket-llm --example hearing_scores -- MODEL.gguf THAT > SCORED.tsv` adds the model's
columns), picks the hearing with the highest recognizer log-probability per token plus LAMBDA
times the model's per token, and counts the questions heard word for word (numerals as words,
bench/asr_questions_score.py's normalisation) before and after, for a range of LAMBDA.

Usage: bench/hearing_pick.py SCORED.tsv [--show LAMBDA]   (--show lists the changed hearings)
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asr_questions_score import normalise  # noqa: E402


def load(path):
    clips = {}
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            clips.setdefault((row["voice"], row["idx"]), []).append(row)
    return clips


def score(h, lam):
    asr = float(h["sum_logprob"]) / (int(h["tokens"]) + 1)
    return asr + lam * float(h["lm_logprob"]) / max(1, int(h["lm_tokens"]))


def run(clips, lam, show=False):
    base = hit = changed = 0
    for hs in clips.values():
        q = normalise(hs[0]["question"])
        best = hs[0]
        pick = best
        for h in hs[1:]:
            if score(h, lam) > score(pick, lam):
                pick = h
        base += normalise(best["text"]) == q
        hit += normalise(pick["text"]) == q
        if pick is not best:
            changed += 1
            if show:
                print(f"  {best['text']!r} -> {pick['text']!r}  [{hs[0]['question']}]")
    return base, hit, changed


def main():
    path = sys.argv[1]
    clips = load(path)
    if "--show" in sys.argv:
        lam = float(sys.argv[sys.argv.index("--show") + 1])
        print(run(clips, lam, show=True))
        return
    several = sum(1 for hs in clips.values() if len(hs) > 1)
    print(f"{len(clips)} clips, {several} with other hearings")
    for lam in [0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5]:
        base, hit, changed = run(clips, lam)
        print(f"lambda {lam:4.2f}: word for word {base} -> {hit} ({changed} changed)")


if __name__ == "__main__":
    main()
