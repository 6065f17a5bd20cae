#!/usr/bin/env bash
# Text-mode keyword accuracy: the question set's questions, typed rather than spoken, through
# `pocket ask` (the voice loop's chat: same model, system prompt, sampler, reply limits and
# history policy as `pocket converse`) as ONE ongoing conversation on two cores, then scored
# (bench/accuracy.py ask). Prints LABEL and the score as one JSON object; the answers are kept in
# WORKDIR/ask.<tag>.jsonl (another set: WORKDIR/<name>.ask.<tag>.jsonl), and
# `python3 bench/accuracy.py ask THAT.jsonl QUESTIONS` lists the misses.
# Usage: bench/text-accuracy.sh WORKDIR [-- ask options, e.g. --model ID --history last:0]
#   --history last:0 answers each question fresh (no earlier turns in view).
#   QUESTIONS=FILE asks that question set (default bench/questions.tsv; e.g. the held-out
#   bench/questions-heldout.tsv; <name>: FILE's name without .tsv and a leading "questions-").
#   POCKET=BINARY uses that `pocket` instead of building the release one.
set -euo pipefail
QUESTIONS=${QUESTIONS:-bench/questions.tsv}
[ ! -f "$QUESTIONS" ] || QUESTIONS=$(realpath "$QUESTIONS")
cd "$(dirname "$0")/.."
WORK=${1:?usage: [QUESTIONS=FILE] bench/text-accuracy.sh WORKDIR [-- ask options]}
shift
[ "${1:-}" = "--" ] && shift
. bench/lib/questions.sh
question_set "$WORK"
if [ -z "${POCKET:-}" ]; then
  cargo build --release --quiet -p pocket-cli
  POCKET="${CARGO_TARGET_DIR:-target}/release/pocket"
fi
mkdir -p "$WORK"
tag=$(printf '%s' "${*:-default}" | tr -c 'A-Za-z0-9.:-' '_')
out="$WORK/${SET}ask.$tag.jsonl"
cores=(taskset -c 0,1)
command -v taskset >/dev/null 2>&1 || cores=()
# The question column of every row bench/accuracy.py scores (it skips # lines and blank lines).
grep -v -e '^#' -e '^[[:space:]]*$' "$QUESTIONS" | cut -f1 \
  | "${cores[@]}" "$POCKET" ask --threads 2 "$@" > "$out"
printf '%s' "${SET}ask $tag: "
python3 bench/accuracy.py ask "$out" "$QUESTIONS" --json
