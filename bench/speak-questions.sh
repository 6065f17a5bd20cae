#!/usr/bin/env bash
# Speaks a question set with voices the product does not speak with (it speaks Piper joe, and
# flite kal as its fallback): flite slt and rms, espeak-ng en-us+f3. Each clip is 16 kHz mono
# with 0.3 s of silence before the question and 0.5 s after. Writes DIR/<voice>/NNN.wav and
# DIR/<voice>/list.tsv (wav path <TAB> question <TAB> keywords).
# Usage: bench/speak-questions.sh DIR [N]   (N: only the first N questions)
#   QUESTIONS=FILE speaks that question set (default bench/questions.tsv; same format, e.g.
#   bench/questions-heldout.tsv; a relative path is taken from the current directory, else
#   from the repository root). Keep one DIR per question set (bench/spoken-accuracy.sh and
#   bench/long-session.sh use WORK/clips for the default set, WORK/clips-<name> for another).
#   A clip already in DIR is reused only when DIR/<voice>/list.tsv gives it the same question,
#   so a DIR that held another set (or an interrupted run) is spoken again, not misread.
set -euo pipefail
QUESTIONS=${QUESTIONS:-bench/questions.tsv}
[ ! -f "$QUESTIONS" ] || QUESTIONS=$(realpath "$QUESTIONS")
cd "$(dirname "$0")/.."
DIR=${1:?usage: [QUESTIONS=FILE] bench/speak-questions.sh DIR [N]}
LIMIT=${2:-100000}
[ -f "$QUESTIONS" ] || { echo "no question file $QUESTIONS" >&2; exit 2; }
. bench/lib/speak.sh
need_voices

VOICES=(flite-slt flite-rms espeak-en-us+f3)
for v in "${VOICES[@]}"; do
  mkdir -p "$DIR/$v"
  # The questions the clips already in DIR were spoken from (row i: NNN.wav = i).
  old=()
  [ ! -f "$DIR/$v/list.tsv" ] || mapfile -t old < "$DIR/$v/list.tsv"
  : > "$DIR/$v/list.tsv"
  i=0
  while IFS=$'\t' read -r question keywords; do
    [[ -z "$question" || "$question" == \#* ]] && continue
    ((i < LIMIT)) || break
    f="$DIR/$v/$(printf %03d "$i").wav"
    prev=${old[i]:-}
    prev=${prev#*$'\t'}
    prev=${prev%%$'\t'*}
    [ -s "$f" ] && [ "$prev" = "$question" ] || speak "$v" "$question" "$f" 0.5
    printf '%s\t%s\t%s\n' "$f" "$question" "$keywords" >> "$DIR/$v/list.tsv"
    i=$((i + 1))
  done < "$QUESTIONS"
  echo "$v: $i clips in $DIR/$v"
done
