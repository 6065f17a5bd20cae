#!/usr/bin/env bash
# Backchannels and interruptions as the recognizer writes them: 28 backchannels and laughs and
# 28 real interruptions, each spoken alone by 18 voices the product does not speak with (flite,
# espeak-ng variants and accents), recognized with the plain prompt and with the prompt an
# utterance over a reply gets, then judged by the product's backchannel rule
# (pipeline/examples/backchannel_words.rs). The loop's own figure (timing, resume, stop time)
# comes from bench/backchannels.sh. Usage: bench/backchannel-words.sh WORKDIR
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:?usage: bench/backchannel-words.sh WORKDIR}
. bench/lib/speak.sh
need_voices
BACKCHANNELS=("Mm-hmm." "Uh-huh." "Yeah." "Okay." "Right." "I see." "Hmm." "Mhm." "Yep." "Sure."
  "Got it." "Oh." "Ha ha." "Ha ha ha." "Mm." "Yeah, yeah." "Right, right." "Oh, I see." "Yes."
  "Alright." "Ah." "He he he." "Haha." "Okay, okay." "Uh huh." "Mm hm." "Cool." "Thanks.")
INTERRUPTIONS=("Wait." "No, stop." "Hold on." "What time is it?" "Stop talking."
  "Tell me a joke instead." "Stop." "No." "Hang on." "Actually, never mind." "Wait, what?"
  "Be quiet." "Excuse me." "Pause." "Wait a second." "Stop, stop." "No no no."
  "Hold on a moment." "Can you repeat that?" "Louder, please." "That's wrong." "Never mind."
  "Okay, stop." "Sorry, what?" "What's the weather like?" "Shh." "Hey, listen." "One more thing.")
VOICES=(flite-kal flite-kal16 flite-awb flite-rms flite-slt espeak-en-us+f3 espeak-en-us+m3
  espeak-en+f2 espeak-en-gb+m1 espeak-en-us+m5 espeak-en-gb-scotland espeak-en-029
  espeak-en-us+f4 espeak-en-gb-x-rp+m2 espeak-en-us-nyc+f1 espeak-en+Annie espeak-en-us+Andy
  espeak-en-gb+belinda)
mkdir -p "$WORK"
list="$WORK/list.tsv"
: > "$list"
for voice in "${VOICES[@]}"; do
  for kind in b i; do
    if [ "$kind" = b ]; then phrases=("${BACKCHANNELS[@]}"); else phrases=("${INTERRUPTIONS[@]}"); fi
    i=0
    for text in "${phrases[@]}"; do
      clip="$WORK/$voice-$kind$i.wav"
      [ -s "$clip" ] || speak "$voice" "$text" "$clip" 0.2 2>/dev/null
      printf '%s\t%s\t%s\t%s\n' "$clip" "$kind" "$text" "$voice" >> "$list"
      i=$((i + 1))
    done
  done
done
cargo run --release --quiet -p pocket-pipeline --example backchannel_words -- "$list" | tee "$WORK/result.txt" | grep prompt
