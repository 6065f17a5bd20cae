#!/usr/bin/env bash
# Spoken keyword accuracy and first-audio latency of the voice loop: plays the question set
# (bench/speak-questions.sh: voices the product does not speak with) through `pocket converse`
# as ONE ongoing session per voice, then scores the replies (bench/accuracy.py).
# Usage: bench/spoken-accuracy.sh WORKDIR [PACE] [-- converse options, e.g. --model ID --history last:0]
#   PACE: realtime (default; latency from each clip's true end of speech) or fast (accuracy only)
#   VOICES="flite-rms ..." runs only those voices (default: all three).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:?usage: bench/spoken-accuracy.sh WORKDIR [PACE] [-- converse options]}
PACE=${2:-realtime}
shift $(( $# >= 2 ? 2 : 1 ))
[ "${1:-}" = "--" ] && shift
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet -p pocket-cli
POCKET="$TARGET/release/pocket"
bench/speak-questions.sh "$WORK/clips" >/dev/null
. bench/lib/session.sh
tag=$(printf '%s' "$PACE ${*:-default}" | tr -c 'A-Za-z0-9.:-' '_')
for dir in "$WORK"/clips/*/; do
  voice=$(basename "$dir")
  # VOICES="flite-rms flite-slt" limits the run to those voices.
  [ -z "${VOICES:-}" ] || [[ " $VOICES " == *" $voice "* ]] || continue
  converse_list "$PACE" "$dir/list.tsv" "$WORK/$voice.$tag" "$voice $tag: " "$@"
done
