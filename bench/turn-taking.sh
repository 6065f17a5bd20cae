#!/usr/bin/env bash
# Turn-taking: fixed silence endpointing against the end-of-turn classifier ("smart") and the
# language model's judgement of the words ("semantic"), side by
# side on one test set. Speaks bench/turn-taking.txt with voices the product does not speak
# with (three by default); every third sentence (a different third per voice) gets a 500-900 ms
# pause at its phrase boundary ("What is the capital of ... France?"), cut into the whole
# sentence's audio where the synthesizer says the first phrase ends (bench/speak_split.py,
# bench/turn_taking_clip.py) so the words before it keep their mid-sentence intonation. Each voice's clips run through the
# whole loop (`pocket converse --pace realtime`) once per endpoint mode. Reports per mode:
#   false cuts  - paused clips whose turn ended before their true end of speech (the loop
#                 answered half a sentence), and of those how many the loop took back when
#                 the user went on and answered as one turn (EndpointConfig::continue_within);
#   first audio - P50/P90/max and turns over 1.5 s, from the true end of speech to the first
#                 sample of the reply to the clip's last turn.
# Usage: [POCKET=binary] [PER_VOICE=n] [MODES="fixed semantic"] [VOICES="flite-slt ..."]
#        bench/turn-taking.sh WORKDIR
# (PER_VOICE: the first n sentences of each voice, for a shorter run; default all 20.
# MODES: endpoint modes to run; "fixed@300" sets the fixed rule's silence, "smart@400" the
# classifier's fallback silence (ms), "semantic@1000" likewise; a "-nospec" suffix runs without the reply made ahead
# during the end-of-speech wait, e.g. MODES="fixed fixed-nospec fixed@300 smart smart@400";
# a "-noq" suffix turns off the shorter wait for words written as a question.
# CONVERSE_ARGS: more `pocket converse` options for every run, split at spaces, e.g. "--model
# ID"; ASR_EARLIER_TEXT, when set, is passed whole as --asr-earlier-text.)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:?usage: bench/turn-taking.sh WORKDIR}
PER_VOICE=${PER_VOICE:-1000}
# POCKET=path/to/pocket uses that binary instead of building one.
if [ -z "${POCKET:-}" ]; then
  cargo build --release --quiet -p pocket-cli
  POCKET="${CARGO_TARGET_DIR:-target}/release/pocket"
fi
. bench/lib/speak.sh
need_voices
read -r -a VOICES <<< "${VOICES:-flite-slt flite-awb espeak-en-us+m3}"
mkdir -p "$WORK"
v=0
for voice in "${VOICES[@]}"; do
  dir="$WORK/$voice"
  mkdir -p "$dir"
  : > "$dir/list.tsv"
  i=0
  while IFS= read -r line; do
    [[ -z "$line" || "$line" == \#* ]] && continue
    ((i < PER_VOICE)) || break
    first=${line%%|*}; rest=${line#*|}
    first=$(echo "$first" | sed 's/ *$//'); rest=$(echo "$rest" | sed 's/^ *//')
    f="$dir/$(printf %02d "$i").wav"
    pause_ms=0
    if (( (i + v) % 3 == 0 )); then
      # 500..900 ms, spread over the paused clips.
      pause_ms=$(( 500 + (i * 137 + v * 61) % 401 ))
    fi
    if [ ! -s "$f" ]; then
      if ((pause_ms > 0)); then
        # The whole sentence, paused inside (its first phrase alone would sound finished).
        # The synthesizer says where the first phrase ends (bench/speak_split.py).
        at=$(python3 bench/speak_split.py "$voice" "$first" "$rest" "$f.raw.wav")
        sox -q "$f.raw.wav" -r 16000 -c 1 -b 16 "$f.whole.wav"
        python3 bench/turn_taking_clip.py "$f.whole.wav" "$at" "$pause_ms" "$f" >/dev/null
        rm -f "$f.raw.wav" "$f.whole.wav"
      else
        speak "$voice" "$first $rest" "$f" 0.6
      fi
    fi
    printf '%s\t%s\t%s\n' "$f" "$pause_ms" "$first $rest" >> "$dir/list.tsv"
    i=$((i + 1))
  done < bench/turn-taking.txt
  v=$((v + 1))
done
# Voice by voice, both modes back to back (similar load for both; a cut-short run stays fair).
MODES=${MODES:-fixed semantic}
for voice in "${VOICES[@]}"; do
  for mode in $MODES; do
    dir="$WORK/$voice"
    inputs=()
    while IFS=$'\t' read -r f _; do inputs+=(--input "$f"); done < "$dir/list.tsv"
    extra=()
    [[ "$mode" == *-nospec ]] && extra+=(--no-speculate)
    [[ "$mode" == *-noq ]] && extra+=(--question-threshold 1)
    [ -z "${ASR_EARLIER_TEXT+set}" ] || extra+=(--asr-earlier-text "$ASR_EARLIER_TEXT")
    base=${mode%-nospec}
    base=${base%-noq}
    if [[ "$base" == fixed@* ]]; then extra+=(--end-silence-ms "${base#*@}"); fi
    if [[ "$base" == smart@* || "$base" == semantic@* ]]; then
      extra+=(--turn-fallback-ms "${base#*@}")
    fi
    echo "== $mode $voice (${#inputs[@]} args)" >&2
    "$POCKET" converse --pace realtime --threads 2 --endpoint "${base%@*}" "${inputs[@]}" \
      "${extra[@]}" ${CONVERSE_ARGS:-} --output "$dir/$mode.wav" --report "$dir/$mode.json" --quiet
  done
done
uptime > "$WORK/load.txt"
MODES="$MODES" python3 bench/turn_taking_report.py "$WORK" "${VOICES[@]}"
