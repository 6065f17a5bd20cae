#!/usr/bin/env python3
"""Keyword accuracy of the assistant's answers.

  accuracy.py ask  ANSWERS.jsonl  QUESTIONS.tsv     # `pocket ask` output, in question order
  accuracy.py talk REPORT.json    LIST.tsv          # `pocket converse` report + speak-questions list

A reply is right when it contains one of the question's keywords (| separated) as whole words,
case-insensitive. Prints accuracy, the misses, and (talk) first-audio P50/P90 from the true end
of speech; `--json` prints one JSON object instead.
"""
import json
import re
import sys


def norm(text):
    return " " + re.sub(r"[^a-z0-9]+", " ", text.lower().replace("-", " ")) + " "


def right(reply, keywords):
    r = norm(reply)
    return any(norm(k) in r for k in keywords.split("|"))


def rows_tsv(path):
    out = []
    for line in open(path, encoding="utf-8"):
        if not line.strip() or line.startswith("#"):
            continue
        out.append(line.rstrip("\n").split("\t"))
    return out


def pct(values, p):
    v = sorted(values)
    if not v:
        return None
    import math
    return v[max(1, math.ceil(p * len(v))) - 1]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    as_json = "--json" in sys.argv
    mode, answers, questions = args
    results = []  # (question, heard, reply, right)
    extra = {}
    if mode == "ask":
        qs = rows_tsv(questions)
        replies = [json.loads(l) for l in open(answers, encoding="utf-8") if l.strip()]
        by_q = {}
        for r in replies:
            by_q.setdefault(r["question"], []).append(r)
        for q, kw in qs:
            r = by_q.get(q, [])
            reply = r.pop(0)["reply"] if r else ""
            results.append((q, q, reply, right(reply, kw)))
    else:
        rows = {path: (q, kw) for path, q, kw in rows_tsv(questions)}
        report = json.load(open(answers, encoding="utf-8"))
        turns = report["turns"]
        for inp in report["inputs"]:
            q, kw = rows[inp["path"]]
            t = turns[inp["turn"] - 1] if inp.get("turn") else None
            reply = t["reply_text"] if t else ""
            heard = t["user_text"] if t else f"({inp['outcome']})"
            results.append((q, heard, reply, right(reply, kw)))
        lat = [t["true_first_audio_latency_ms"] for t in turns if t.get("true_first_audio_latency_ms") is not None]
        vad = [t["first_audio_latency_ms"] for t in turns if t.get("first_audio_latency_ms") is not None]
        extra = {
            "first_audio_true_end_p50": pct(lat, 0.5), "first_audio_true_end_p90": pct(lat, 0.9),
            "first_audio_true_end_max": max(lat) if lat else None,
            "first_audio_true_end_over_1500": sum(1 for v in lat if v > 1500.0),
            "first_audio_vad_p50": pct(vad, 0.5), "first_audio_vad_p90": pct(vad, 0.9),
            "turns": len(turns),
            # Output underruns (gaps inside replies), and the turns they fell in.
            "underruns": report.get("underruns"),
            "underrun_turns": {t["turn"]: t["underruns"] for t in turns if t.get("underruns")},
        }
    n = len(results)
    ok = sum(1 for r in results if r[3])
    summary = {"n": n, "right": ok, "accuracy": round(100.0 * ok / n, 1) if n else None, **extra}
    if as_json:
        print(json.dumps(summary))
        return
    for q, heard, reply, good in results:
        if not good:
            print(f"MISS {q!r} heard {heard!r} -> {reply[:90]!r}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
