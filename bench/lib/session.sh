# One spoken session for the benches (source it from the repository root, with POCKET set to the
# release `pocket` binary).
# converse_list PACE LIST PREFIX LABEL [converse options]: plays LIST's clips (wav path in the
# first column of a bench/speak-questions.sh list) as ONE `pocket converse` session on two
# cores, writes PREFIX.wav and PREFIX.json, then prints LABEL and the keyword score and latency
# summary (bench/accuracy.py talk --json).
converse_list() {
  local pace=$1 list=$2 prefix=$3 label=$4 wav rest
  shift 4
  local inputs=() cores=(taskset -c 0,1)
  while IFS=$'\t' read -r wav rest; do inputs+=(--input "$wav"); done < "$list"
  command -v taskset >/dev/null 2>&1 || cores=()
  "${cores[@]}" "$POCKET" converse --pace "$pace" --threads 2 "${inputs[@]}" \
    --output "$prefix.wav" --report "$prefix.json" --quiet "$@"
  printf '%s' "$label"
  python3 bench/accuracy.py talk "$prefix.json" "$list" --json
}
