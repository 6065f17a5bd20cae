# Sourced by the bench scripts that speak test utterances with voices the product does not
# speak with (flite slt/rms, espeak-ng variants).

# Fails unless flite, espeak-ng and sox are installed.
need_voices() {
  local tool
  for tool in flite espeak-ng sox; do
    command -v "$tool" >/dev/null || { echo "needs $tool (scripts/setup-system installs it)" >&2; return 1; }
  done
}

# speak VOICE TEXT OUT.wav AFTER_S: VOICE is flite-<name> or espeak-<variant>; OUT.wav is 16 kHz
# mono with 0.3 s of silence before (the detector needs quiet to see the onset) and AFTER_S after.
speak() {
  synth "$1" "$2" "$3.raw.wav"
  sox -q "$3.raw.wav" -r 16000 -c 1 -b 16 "$3" pad 0.3 "$4"
  rm -f "$3.raw.wav"
}

# synth VOICE TEXT RAW.wav: the voice's own output (its rate, its silences).
synth() {
  case "$1" in
    flite-*) flite -voice "${1#flite-}" -t "$2" -o "$3" ;;
    espeak-*) espeak-ng -v "${1#espeak-}" -w "$3" "$2" ;;
  esac
}
