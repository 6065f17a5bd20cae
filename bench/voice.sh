#!/usr/bin/env bash
# Voice loop first-audio latency: release build, 2 cores, real-time pace, default models.
# Makes 12 spoken questions with the Piper voice (`pocket say`, 22.05 kHz; not committed), plays
# them as the microphone one turn each (`pocket converse --pace realtime`), and prints P50/P90 of
# first-audio latency (first_audio - speech_end) and response latency (first_audio - eou) with
# the per-stage breakdown. Usage: bench/voice.sh [WORKDIR]; VOICE_ARGS adds `pocket converse`
# options (e.g. VOICE_ARGS="--first-audio-gate-ms 0").
set -euo pipefail
cd "$(dirname "$0")/.."

WORK=${1:-$(mktemp -d /tmp/pocket-voice-bench.XXXXXX)}
mkdir -p "$WORK"
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet -p pocket-cli
POCKET="$TARGET/release/pocket"
CORES=(taskset -c 0,1)
command -v taskset >/dev/null 2>&1 || CORES=()

QUESTIONS=(
  "What is the capital of France?"
  "How many days are there in a week?"
  "Can you tell me a fun fact about cats?"
  "What should I cook for dinner tonight?"
  "Why is the sky blue?"
  "How do I make a cup of tea?"
  "What is two plus two?"
  "Tell me a short joke."
  "What is the tallest mountain in the world?"
  "How far away is the moon?"
  "What is a good name for a dog?"
  "Which planet is closest to the sun?"
)
inputs=()
for i in "${!QUESTIONS[@]}"; do
  f="$WORK/q$(printf %02d "$i").wav"
  [ -s "$f" ] || "$POCKET" say "${QUESTIONS[$i]}" -o "$f" --threads 2 >/dev/null
  inputs+=(--input "$f")
done

echo "voice loop: ${#QUESTIONS[@]} spoken questions, real-time pace, 2 cores, default models"
"${CORES[@]}" "$POCKET" converse --pace realtime --threads 2 "${inputs[@]}" \
  --output "$WORK/replies.wav" --report "$WORK/report.json" --quiet ${VOICE_ARGS:-}
python3 - "$WORK/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def row(name, p):
    print(f"| {name} | {p['p50']:.0f} | {p['p90']:.0f} | {p['n']} |" if p else f"| {name} | - | - | 0 |")
print("| quantity (ms) | P50 | P90 | n |")
print("|---|---:|---:|---:|")
row("first-audio latency (first_audio - speech_end)", r["first_audio_latency_ms"])
row("response latency (first_audio - eou)", r["response_latency_ms"])
for name, p in r["stages_ms"]:
    row(f"stage: {name}", p)
print(f"\nturns: {len(r['turns'])}, output underruns: {r['underruns']}")
for t in r["turns"]:
    print(f"- {t['user_text']!r} -> {t['reply_text'][:70]!r}")
PY
echo "report: $WORK/report.json, replies: $WORK/replies.wav"
