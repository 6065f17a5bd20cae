#!/usr/bin/env python3
"""Summarizes bench/turn-taking.sh: per endpoint mode, false cuts on paused clips and
first-audio latency from the true end of speech. Usage: turn_taking_report.py WORKDIR VOICE..."""

import json
import os
import math
import sys
from pathlib import Path


def pct(values, p):
    """Nearest-rank percentile (as the pipeline's report)."""
    v = sorted(values)
    return v[max(1, math.ceil(p * len(v))) - 1] if v else float("nan")


def clips_and_turns(voice_dir, mode):
    rows = [l.rstrip("\n").split("\t") for l in open(voice_dir / "list.tsv")]
    report = json.load(open(voice_dir / f"{mode}.json"))
    ends = [i["true_speech_end_ms"] for i in report["inputs"]]
    turns = sorted(
        (t["metrics"] for t in report["turns"] if t["metrics"].get("speech_end") is not None),
        key=lambda m: m["speech_end"],
    )
    out = []
    for k, (row, end) in enumerate(zip(rows, ends)):
        if end is None:
            out.append((row, None, []))
            continue
        lo = ends[k - 1] if k > 0 and ends[k - 1] is not None else -math.inf
        # The turns this clip made: their speech ended after the previous clip's true end
        # and no later than shortly after this clip's (the detector trails a little: 300 ms
        # of slack at both ends).
        mine = [m for m in turns if lo + 300 < m["speech_end"] <= end + 300]
        out.append((row, end, mine))
    return out


def main():
    work, voices = Path(sys.argv[1]), sys.argv[2:]
    print(f"load: {(work / 'load.txt').read_text().strip() if (work / 'load.txt').exists() else '?'}")
    for mode in os.environ.get("MODES", "fixed semantic").split():
        paused = cut = plain_cut = plain = missed = joined = 0
        first, first_paused, waits, classifier, response = [], [], [], [], []
        ahead = 0
        for voice in voices:
            vd = work / voice
            if not (vd / f"{mode}.json").exists():
                continue
            for (f, pause_ms, text), end, mine in clips_and_turns(vd, mode):
                is_paused = int(pause_ms) > 0
                paused += is_paused
                plain += not is_paused
                if not mine:
                    missed += 1
                    continue
                early = any(m["eou"] is not None and m["eou"] < end for m in mine)
                last = mine[-1]
                # The user went on right after the cut: the loop took that turn back and
                # answered both utterances as one (`continued`, EndpointConfig::continue_within).
                whole = early and last.get("continued", False) and last["eou"] >= end
                joined += whole
                if early and is_paused:
                    cut += 1
                    how = "; went on: answered as one turn" if whole else ""
                    print(f"  {mode} cut: {Path(f).parent.name}/{Path(f).name} ({pause_ms} ms) {text!r}{how}")
                elif early:
                    plain_cut += 1
                if last.get("first_audio") is not None and last["eou"] >= end:
                    lat = last["first_audio"] - end
                    first.append(lat)
                    if is_paused:
                        first_paused.append(lat)
                    waits.append(last["eou"] - end)
                    response.append(last["first_audio"] - last["eou"])
                    ahead += bool(last.get("speculative"))
                if last.get("turn_classifier_ms") is not None:
                    classifier.append(last["turn_classifier_ms"])
        if paused + plain == 0:
            continue
        print(
            f"{mode}: {paused + plain} clips ({paused} paused); false cuts on paused clips "
            f"{cut}/{paused} = {100 * cut / max(paused, 1):.1f}%; cuts on unpaused {plain_cut}; "
            f"no turn {missed}"
        )
        print(
            f"  cut turns the user went on from and the loop answered as one turn: {joined}; "
            f"answered half-said: {cut + plain_cut - joined}"
        )
        print(
            f"  first audio from the true end: P50 {pct(first, 0.5):.0f} ms, P90 {pct(first, 0.9):.0f} ms "
            f"(n={len(first)}), max {max(first, default=float('nan')):.0f} ms, over 1.5 s "
            f"{sum(x > 1500 for x in first)}; paused clips P50 {pct(first_paused, 0.5):.0f} ms "
            f"(n={len(first_paused)})"
        )
        print(f"  endpoint wait from the true end: P50 {pct(waits, 0.5):.0f} ms, P90 {pct(waits, 0.9):.0f} ms")
        print(
            f"  response (first audio - endpoint): P50 {pct(response, 0.5):.0f} ms, "
            f"P90 {pct(response, 0.9):.0f} ms; replies made ahead of the endpoint {ahead}/{len(response)}"
        )
        if classifier:
            print(
                f"  classifier time (pause that ended the turn): P50 {pct(classifier, 0.5):.0f} ms, "
                f"P90 {pct(classifier, 0.9):.0f} ms"
            )


if __name__ == "__main__":
    main()
