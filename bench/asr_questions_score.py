#!/usr/bin/env python3
"""Scores the transcripts of bench/asr_questions_fw.py (RESULTS/<name>.tsv): corpus WER and
the questions heard exactly right, per voice and overall.

Usage:
  bench/asr_questions_score.py RESULTS NAME [NAME ...]          # table (numerals as words)
  bench/asr_questions_score.py --raw RESULTS NAME ...           # table without that mapping
  bench/asr_questions_score.py --worst RESULTS BASE OTHER ... [-n 15]  # BASE's worst clips
"""
import argparse
import csv
import os
import re

RESULTS = "."
VOICES = ["flite-slt", "flite-rms", "espeak-en-us+f3"]

ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen " \
       "fifteen sixteen seventeen eighteen nineteen".split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
ORD = {"1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth", "5th": "fifth"}


def num_words(n):
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else " " + ONES[n % 10])
    if n < 1000:
        r = ONES[n // 100] + " hundred"
        return r + ("" if n % 100 == 0 else " " + num_words(n % 100))
    return str(n)


def normalise(text, numerals=True):
    t = text.lower()
    t = t.replace("\u2019", "'")
    if numerals:
        t = t.replace("+", " plus ").replace("=", " equals ")
    t = t.replace("-", " ")
    t = t.replace("'", "")                      # earth's -> earths (both sides alike)
    t = re.sub(r"[^a-z0-9 ]+", " ", t)
    words = t.split()
    if numerals:
        out = []
        for w in words:
            if w in ORD:
                out.append(ORD[w])
            elif w.isdigit():
                out.extend(num_words(int(w)).split())
            else:
                out.append(w)
        words = out
    return words


def edits(ref, hyp):
    d = list(range(len(hyp) + 1))
    for i in range(1, len(ref) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(hyp) + 1):
            cur = d[j]
            d[j] = min(d[j] + 1, d[j - 1] + 1, prev + (ref[i - 1] != hyp[j - 1]))
            prev = cur
    return d[len(hyp)]


def load(name):
    with open(os.path.join(RESULTS, name + ".tsv")) as f:
        r = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        return {(row["voice"], row["idx"]): row for row in r}


def stats(rows, numerals):
    e = n = exact = k = 0
    for row in rows:
        ref = normalise(row["question"], numerals)
        hyp = normalise(row["transcript"] or "", numerals)
        d = edits(ref, hyp)
        e += d
        n += len(ref)
        exact += d == 0
        k += 1
    return e / n, exact, k


def table(names, numerals):
    hdr = ["setting"] + VOICES + ["overall"]
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for name in names:
        res = load(name)
        cells = []
        for v in VOICES + [None]:
            rows = [r for (vv, _), r in res.items() if v is None or vv == v]
            wer, exact, k = stats(rows, numerals)
            cells.append(f"{100 * wer:.1f}% / {exact}/{k}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def worst(base, others, n):
    b = load(base)
    o = [(name, load(name)) for name in others]
    scored = []
    for key, row in b.items():
        ref = normalise(row["question"])
        d = edits(ref, normalise(row["transcript"] or ""))
        scored.append((d / len(ref), d, key, row))
    scored.sort(key=lambda t: (-t[0], -t[1], t[2]))
    for rate, d, key, row in scored[:n]:
        ref = normalise(row["question"])
        print(f"{key[0]} {key[1]}  ref: {row['question']}")
        print(f"    {base} ({d} edits, {100 * rate:.0f}%): {row['transcript']}")
        for name, res in o:
            r = res[key]
            dd = edits(ref, normalise(r["transcript"] or ""))
            print(f"    {name} ({dd}): {r['transcript']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("names", nargs="+")
    ap.add_argument("--raw", action="store_true", help="do not map numerals to words")
    ap.add_argument("--worst", action="store_true")
    ap.add_argument("-n", type=int, default=15)
    a = ap.parse_args()
    global RESULTS
    RESULTS = a.results
    if a.worst:
        worst(a.names[0], a.names[1:], a.n)
    else:
        table(a.names, not a.raw)


if __name__ == "__main__":
    main()
