#!/usr/bin/env bash
# Every VoiceBench fixture subset (`pocket voicebench fixture`) through the whole voice loop
# (audio modality, realtime, one held turn per sample) and in text mode, for one model, then a
# markdown table row per subset: scores, first audio from the true end of speech, ASR final,
# LLM first token, WER. The table in docs/VOICEBENCH.md comes from this script.
# Usage: bench/voicebench-table.sh WORKDIR [MODEL]   (MODEL: asset id or GGUF; default: the rule's)
#   POCKET=BINARY uses that `pocket` instead of building the release one.
set -euo pipefail
cd "$(dirname "$0")/.."
D=${1:?usage: bench/voicebench-table.sh WORKDIR [MODEL]}
MODEL=(); [ -z "${2:-}" ] || MODEL=(--model "$2")
if [ -z "${POCKET:-}" ]; then
  cargo build --release --quiet -p pocket-cli
  POCKET="${CARGO_TARGET_DIR:-target}/release/pocket"
fi
rm -rf "$D"; mkdir -p "$D"
"$POCKET" voicebench fixture --out "$D/data" >/dev/null
SUBSETS=(openbookqa ifeval bbh advbench commoneval)
for s in "${SUBSETS[@]}"; do
  "$POCKET" voicebench run --data "$D/data" --subset "$s" --out "$D/audio" --modality audio --pace realtime --quiet "${MODEL[@]}"
  "$POCKET" voicebench run --data "$D/data" --subset "$s" --out "$D/text" --modality text --quiet "${MODEL[@]}"
  "$POCKET" voicebench score "$D/audio/$s-test.jsonl" --report-dir "$D/rep-audio-$s" >/dev/null
  "$POCKET" voicebench score "$D/text/$s-test.jsonl" --report-dir "$D/rep-text-$s" >/dev/null
done
python3 - "$D" "${SUBSETS[@]}" <<'PY'
import json, sys
d, subsets = sys.argv[1], sys.argv[2:]
rep = lambda mode, s: json.load(open(f"{d}/rep-{mode}-{s}/report.json"))
def score(r):
    row = r["scores"][0]
    if row["score"] is None:
        return "– (judge)"
    return f"{row['score']:.1f}" + (f", {row['fallbacks']} fb" if row["fallbacks"] else "")
def pct(r, key):
    l = r["latency_ms"].get(key)
    return f"{l['p50']:.0f} / {l['p90']:.0f} / {l['p99']:.0f}" if l else "–"
def p50(r, key):
    l = r["latency_ms"].get(key)
    return f"{l['p50']:.0f}" if l else "–"
print("| subset | n | score, audio (realtime) | score, text | first audio from true end P50 / P90 / P99 (ms) | ASR final P50 (ms) | LLM first token P50, audio / text (ms) | WER |")
print("|---|---|---|---|---|---|---|---|")
for s in subsets:
    a, t = rep("audio", s), rep("text", s)
    wer = a.get("wer") or {}
    print(f"| {s} | {a['samples']} | {score(a)} | {score(t)} | {pct(a, 'first_audio_true_end')} | {p50(a, 'asr')} | "
          f"{p50(a, 'llm_first_token')} / {p50(t, 'llm_first_token')} | {100 * wer.get('wer', 0):.1f}% |")
PY
