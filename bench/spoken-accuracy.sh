#!/usr/bin/env bash
# Spoken keyword accuracy and first-audio latency of the voice loop: plays the question set
# (bench/speak-questions.sh: voices the product does not speak with) through `pocket converse`
# as ONE ongoing session per voice, then scores the replies (bench/accuracy.py).
# Usage: bench/spoken-accuracy.sh WORKDIR [PACE] [-- converse options, e.g. --model ID --history last:0]
#   PACE: realtime (default; latency from each clip's true end of speech) or fast (accuracy only)
#   VOICES="flite-rms ..." runs only those voices (default: all three).
#   QUESTIONS=FILE plays that question set (default bench/questions.tsv; e.g. the held-out
#   bench/questions-heldout.tsv). The default set's clips are cached in WORKDIR/clips and its
#   results are WORKDIR/<voice>.<tag>.{wav,json}; another set FILE uses WORKDIR/clips-<name> and
#   WORKDIR/<name>.<voice>.<tag>.{wav,json} (<name>: FILE's name without .tsv and a leading
#   "questions-", e.g. clips-heldout), so the sets never share clips or results.
set -euo pipefail
QUESTIONS=${QUESTIONS:-bench/questions.tsv}
[ ! -f "$QUESTIONS" ] || QUESTIONS=$(realpath "$QUESTIONS")
cd "$(dirname "$0")/.."
WORK=${1:?usage: [QUESTIONS=FILE] bench/spoken-accuracy.sh WORKDIR [PACE] [-- converse options]}
PACE=${2:-realtime}
shift $(( $# >= 2 ? 2 : 1 ))
[ "${1:-}" = "--" ] && shift
. bench/lib/questions.sh
question_set "$WORK"
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet -p pocket-cli
POCKET="$TARGET/release/pocket"
bench/speak-questions.sh "$CLIPS" >/dev/null
. bench/lib/session.sh
tag=$(printf '%s' "$PACE ${*:-default}" | tr -c 'A-Za-z0-9.:-' '_')
for dir in "$CLIPS"/*/; do
  voice=$(basename "$dir")
  # VOICES="flite-rms flite-slt" limits the run to those voices.
  [ -z "${VOICES:-}" ] || [[ " $VOICES " == *" $voice "* ]] || continue
  converse_list "$PACE" "$dir/list.tsv" "$WORK/$SET$voice.$tag" "$SET$voice $tag: " "$@"
done
