#!/usr/bin/env bash
# Speaks bench/questions.tsv with voices the product does not speak with (it speaks Piper joe,
# and flite kal as its fallback): flite slt and rms, espeak-ng en-us+f3. Each clip is 16 kHz
# mono with 0.3 s of silence before the question and 0.5 s after. Writes
# DIR/<voice>/NNN.wav and DIR/<voice>/list.tsv (wav path <TAB> question <TAB> keywords).
# Usage: bench/speak-questions.sh DIR [N]   (N: only the first N questions)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:?usage: bench/speak-questions.sh DIR [N]}
LIMIT=${2:-100000}
. bench/lib/speak.sh
need_voices

VOICES=(flite-slt flite-rms espeak-en-us+f3)
for v in "${VOICES[@]}"; do
  mkdir -p "$DIR/$v"
  : > "$DIR/$v/list.tsv"
  i=0
  while IFS=$'\t' read -r question keywords; do
    [[ -z "$question" || "$question" == \#* ]] && continue
    ((i < LIMIT)) || break
    f="$DIR/$v/$(printf %03d "$i").wav"
    [ -s "$f" ] || speak "$v" "$question" "$f" 0.5
    printf '%s\t%s\t%s\n' "$f" "$question" "$keywords" >> "$DIR/$v/list.tsv"
    i=$((i + 1))
  done < bench/questions.tsv
  echo "$v: $i clips in $DIR/$v"
done
