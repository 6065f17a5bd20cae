#!/usr/bin/env bash
# One long spoken session, as a user who keeps talking: TURNS questions (default 200) from
# the question set played into ONE `pocket converse --pace realtime` session, the question
# set taken in order and again in the next voice once it runs out (flite rms, then flite slt,
# then espeak-ng en-us+f3: voices the product does not speak with). Scores the replies against
# the keywords and prints first audio from each clip's true end of speech (P50 / P90 / max, turns
# over 1.5 s) and the output underruns by turn (bench/accuracy.py).
# Usage: bench/long-session.sh WORKDIR [TURNS] [-- converse options]
#   TURNS <= 3 x the set's size (336 for bench/questions.tsv, 360 for bench/questions-heldout.tsv)
#   QUESTIONS=FILE plays that question set (default bench/questions.tsv; e.g. the held-out
#   bench/questions-heldout.tsv). The default set's clips are cached in WORKDIR/clips and the
#   session is WORKDIR/long-session.TURNS.{tsv,wav,json}; another set FILE uses
#   WORKDIR/clips-<name> and WORKDIR/long-session.<name>.TURNS.* (<name>: FILE's name without
#   .tsv and a leading "questions-", e.g. clips-heldout), so the sets never share clips or results.
set -euo pipefail
QUESTIONS=${QUESTIONS:-bench/questions.tsv}
[ ! -f "$QUESTIONS" ] || QUESTIONS=$(realpath "$QUESTIONS")
cd "$(dirname "$0")/.."
WORK=${1:?usage: [QUESTIONS=FILE] bench/long-session.sh WORKDIR [TURNS] [-- converse options]}
TURNS=${2:-200}
shift $(( $# >= 2 ? 2 : 1 ))
[ "${1:-}" = "--" ] && shift
. bench/lib/questions.sh
question_set "$WORK"
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet -p pocket-cli
POCKET="${POCKET:-$TARGET/release/pocket}"
bench/speak-questions.sh "$CLIPS" >/dev/null
list="$WORK/long-session.$SET$TURNS.tsv"
: > "$list"
for voice in flite-rms flite-slt espeak-en-us+f3; do
  head -n $(( TURNS - $(wc -l < "$list") )) "$CLIPS/$voice/list.tsv" >> "$list"
  [ "$(wc -l < "$list")" -lt "$TURNS" ] || break
done
[ "$(wc -l < "$list")" -eq "$TURNS" ] || { echo "at most $(wc -l < "$list") turns: three voices x the question set" >&2; exit 2; }
. bench/lib/session.sh
converse_list realtime "$list" "$WORK/long-session.$SET$TURNS" "" "$@"
