#!/usr/bin/env bash
# Backchannels and real interruptions over the assistant's speech. For each voice the product
# does not speak with, one clip per trial: a question that gets a spoken reply, then, 1.6 s
# after the question ends (about a second into the reply), either a backchannel ("Mm-hmm.",
# "Yeah.", ...) or a real interruption ("Wait.", "No, stop.", a new question). Each clip runs
# through `pocket converse --pace realtime` (the microphone path: speech detector, recognizer,
# barge-in). Reported: backchannels that cut the reply off (false interruptions), real
# interruptions that did not, and the stop time of real ones (from the onset's detection to
# the output going silent). Trials where the reply had already ended before the user spoke are
# counted apart. Usage: [POCKET=binary] [VOICES="flite-kal ..."] bench/backchannels.sh WORKDIR
# [converse options...] (VOICES: flite-<name> / espeak-<variant> voices; default the four below).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:?usage: bench/backchannels.sh WORKDIR [converse options]}
shift
if [ -z "${POCKET:-}" ]; then
  cargo build --release --quiet -p pocket-cli
  POCKET="${CARGO_TARGET_DIR:-target}/release/pocket"
fi
. bench/lib/speak.sh
need_voices
QUESTION="Tell me a story about a brave little dragon."
BACKCHANNELS=("Mm-hmm." "Yeah." "Okay." "Right." "Uh-huh." "I see.")
INTERRUPTIONS=("Wait." "No, stop." "Hold on." "What time is it?" "Stop talking." "Tell me a joke instead.")
mkdir -p "$WORK"
: > "$WORK/trials.tsv"
read -r -a voices <<< "${VOICES:-flite-slt flite-rms flite-awb espeak-en-us+f3}"
for voice in "${voices[@]}"; do
  dir="$WORK/$voice"
  mkdir -p "$dir"
  q="$dir/question.wav"
  [ -s "$q" ] || speak "$voice" "$QUESTION" "$q" 1.6
  i=0
  for kind in backchannel interruption; do
    if [ "$kind" = backchannel ]; then phrases=("${BACKCHANNELS[@]}"); else phrases=("${INTERRUPTIONS[@]}"); fi
    for text in "${phrases[@]}"; do
      over="$dir/over-$i.wav"
      [ -s "$over" ] || speak "$voice" "$text" "$over" 0
      clip="$dir/trial-$i.wav"
      # question (0.3 s lead, 1.6 s after) + the phrase (0.3 s lead) + 8 s for the reply.
      sox -q "$q" "$over" "$clip" pad 0 8
      onset=$(python3 -c "import sys; print(float(sys.argv[1]) + 0.3)" "$(soxi -D "$q")")
      "$POCKET" converse --pace realtime --quiet --input "$clip" --output "$dir/said-$i.wav" \
        --report "$dir/report-$i.json" "$@"
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$voice" "$kind" "$text" "$onset" \
        "$dir/report-$i.json" "$dir/said-$i.wav" >> "$WORK/trials.tsv"
      i=$((i + 1))
    done
  done
done
python3 - "$WORK/trials.tsv" <<'PY'
import json, sys, wave, array, statistics
def playing(path, at_s):
    """Whether the reply was audible in the 300 ms before `at_s` (the phrase's onset)."""
    with wave.open(path) as w:
        rate, n = w.getframerate(), w.getnframes()
        a, b = int((at_s - 0.3) * rate), int(at_s * rate)
        if b > n or a < 0:
            return False
        w.setpos(a)
        x = array.array("h", w.readframes(b - a))
    return bool(x) and (sum(v * v for v in x) / len(x)) ** 0.5 > 300
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
out = {"backchannel": [], "interruption": []}
stops, late = [], []
for voice, kind, text, onset, report, said in rows:
    r = json.load(open(report))
    turns = r["turns"]
    cut = bool(turns) and turns[0].get("heard") is not None
    if not playing(said, float(onset)):
        late.append((voice, kind, text, len(turns)))
        continue
    out[kind].append((voice, text, cut, [t["user_text"] for t in turns]))
    if kind == "interruption" and cut and r.get("barge_in_stop_ms"):
        stops.append(r["barge_in_stop_ms"]["p50"])
b, i = out["backchannel"], out["interruption"]
fb = [x for x in b if x[2]]
mi = [x for x in i if not x[2]]
print(f"backchannels over speech: {len(b)}, cut the reply off: {len(fb)} ({100 * len(fb) / max(len(b), 1):.1f}%)")
for x in fb:
    print("  false interruption:", x)
print(f"interruptions over speech: {len(i)}, did not cut it off: {len(mi)}")
for x in mi:
    print("  missed:", x)
if stops:
    stops.sort()
    print(f"stop time of real interruptions (ms): P50 {statistics.median(stops):.1f}, max {stops[-1]:.1f} (n={len(stops)})")
print(f"trials where the reply had ended before the phrase (not counted): {len(late)}")
PY
