#!/usr/bin/env bash
# Speech recognition vs faster-whisper, side by side on the same clips, same threads.
# Prints one table: per clip, faster-whisper (int8, float32) wall time of `transcribe`, ours
# (Q8_0 and f16 weights) for the same whole-clip call, and our streaming end-of-utterance to
# final-text time (with and without decoding during the end-silence wait); then WER and RTF.
#
# Usage: [BEAM=N] bench/asr.sh [tiny.en|base] [THREADS] [REPEAT]   (BEAM: both sides' beam
# size for the whole-clip decodes and our finals; default 1, greedy)
# Needs faster-whisper in /work/peers/venv-fw (python3 -m venv ...; pip install faster-whisper)
# or FW_PYTHON pointing at a Python that has it.
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${1:-tiny.en}; THREADS=${2:-2}; REPEAT=${3:-3}; export BEAM=${BEAM:-1}
case "$MODEL" in tiny.en) ID=whisper-tiny.en ;; base) ID=whisper-base ;; *) echo "model: tiny.en|base" >&2; exit 2 ;; esac
FW_PYTHON=${FW_PYTHON:-/work/peers/venv-fw/bin/python}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p pocket-asr --example asr_bench
DIR=$(cargo run --release -q -p pocket-cli -- assets path "$ID")
LIB=$(cargo run --release -q -p pocket-cli -- assets path librivox)
JFK=$(cargo run --release -q -p pocket-cli -- assets path jfk)
CLIPS=()
while read -r line; do
  id=$(sed 's/.*(\(.*\))$/\1/' <<<"$line"); text=$(sed 's/^<s> \(.*\) <\/s>.*/\1/' <<<"$line")
  CLIPS+=("$LIB/$id.wav=$text")
done < "$LIB/transcription"
CLIPS+=("$JFK/jfk.wav=And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.")
OUT=$(mktemp)
"$FW_PYTHON" bench/asr_faster_whisper.py "$DIR" "${CLIPS[@]}" --threads "$THREADS" --repeat "$REPEAT" --beam "$BEAM" >>"$OUT"
"$CARGO_TARGET_DIR/release/examples/asr_bench" "$DIR" "$THREADS" "$REPEAT" "${CLIPS[@]}" >>"$OUT"
python3 - "$OUT" "$MODEL" "$THREADS" <<'PY'
import sys, collections
rows = collections.OrderedDict(); wer = {}; audio = {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) < 4: continue
    eng, clip = f[0], f[1]
    if clip == "WER": wer[eng] = f"{f[2]}% ({f[3]})"; continue
    audio[clip] = float(f[2]); rows.setdefault(clip, {})[eng] = float(f[3])
cols = ["fw-int8", "fw-float32", "ours-q8", "ours-f16", "stream-final-nospec", "stream-final"]
print(f"model {sys.argv[2]}, {sys.argv[3]} threads; ms (median); stream-final = endpoint -> final text")
print("| clip | audio s | " + " | ".join(cols) + " | fw-int8 / ours-q8 |")
print("|---|---:|" + "---:|" * len(cols) + "---:|")
tot = collections.Counter()
for clip, r in rows.items():
    for c in cols: tot[c] += r.get(c, 0)
    ratio = r.get("fw-int8", 0) / max(r.get("ours-q8", 1e-9), 1e-9)
    print(f"| {clip[-4:]} | {audio[clip]:.1f} | " + " | ".join(f"{r.get(c, float('nan')):.0f}" for c in cols) + f" | {ratio:.1f}x |")
secs = sum(audio.values()) * 1000
print("| RTF | | " + " | ".join(f"{tot[c] / secs:.3f}" for c in cols) + " | |")
print("WER: " + ", ".join(f"{k} {v}" for k, v in wer.items()))
PY
rm -f "$OUT"
