#!/usr/bin/env bash
# Whole first words: speaks bench/soft-onsets.txt (utterances starting with soft sounds) with
# three voices the product does not speak with, then compares what the voice loop heard
# (`pocket converse --pace fast`: the pipeline's speech detector, pre-roll and recognizer
# stream) with the same recognizer on the whole clip (`pocket transcribe --whole`). If the loop
# cut the start of an utterance, its word error rate is higher than the whole clip's, and its
# first word differs. Usage: [POCKET=binary] bench/soft-onsets.sh WORKDIR
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:?usage: bench/soft-onsets.sh WORKDIR}
# POCKET=path/to/pocket uses that binary instead of building one.
if [ -z "${POCKET:-}" ]; then
  cargo build --release --quiet -p pocket-cli
  POCKET="${CARGO_TARGET_DIR:-target}/release/pocket"
fi
. bench/lib/speak.sh
need_voices
for voice in flite-slt flite-rms espeak-en-us+f3; do
  dir="$WORK/$voice"
  mkdir -p "$dir"
  : > "$dir/list.tsv"
  inputs=()
  i=0
  while IFS= read -r text; do
    [[ -z "$text" || "$text" == \#* ]] && continue
    f="$dir/$(printf %02d "$i").wav"
    [ -s "$f" ] || speak "$voice" "$text" "$f" 0.6
    # (All output is read: `head` would close the pipe early and fail the pipeline.)
    whole=$("$POCKET" transcribe --whole --json "$f" 2>/dev/null |
      python3 -c 'import json,sys; l=sys.stdin.readlines(); print(json.loads(l[0]).get("text", "") if l else "")')
    printf '%s\t%s\t%s\n' "$f" "$text" "$whole" >> "$dir/list.tsv"
    inputs+=(--input "$f")
    i=$((i + 1))
  done < bench/soft-onsets.txt
  "$POCKET" converse --pace fast --threads 2 "${inputs[@]}" --output "$dir/loop.wav" \
    --report "$dir/loop.json" --quiet
done
python3 - "$WORK" <<'PY'
import json, re, sys, pathlib
def words(t): return re.sub(r"[^a-z0-9' ]+", " ", t.lower()).split()
def errors(ref, hyp):
    d = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, d[0] = d[0], i
        for j, h in enumerate(hyp, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (r != h))
    return d[len(hyp)]
total = {"n": 0, "words": 0, "whole": 0, "loop": 0, "first_whole": 0, "first_loop": 0}
for voice in sorted(pathlib.Path(sys.argv[1]).iterdir()):
    if not (voice / "loop.json").exists():
        continue
    rows = [l.rstrip("\n").split("\t") for l in open(voice / "list.tsv")]
    turns = json.load(open(voice / "loop.json"))["turns"]
    heard = [t.get("user_text", "") for t in turns]
    if len(heard) != len(rows):
        print(f"{voice.name}: {len(heard)} turns for {len(rows)} clips (an utterance was split or lost)")
    w = {"words": 0, "whole": 0, "loop": 0, "first_whole": 0, "first_loop": 0}
    for (f, text, whole), loop in zip(rows, heard):
        ref = words(text)
        w["words"] += len(ref)
        w["whole"] += errors(ref, words(whole))
        w["loop"] += errors(ref, words(loop))
        fw, fl = words(whole)[:1], words(loop)[:1]
        w["first_whole"] += fw != ref[:1]
        w["first_loop"] += fl != ref[:1]
        if fl != fw:
            print(f"  {voice.name} {pathlib.Path(f).name}: whole {whole!r} / loop {loop!r}")
    print(f"{voice.name}: {len(rows)} clips, WER whole clip {100*w['whole']/w['words']:.1f}% / "
          f"voice loop {100*w['loop']/w['words']:.1f}%; first word wrong: whole {w['first_whole']}, "
          f"loop {w['first_loop']}")
    total["n"] += len(rows)
    for k in w: total[k] += w[k]
print(f"all: {total['n']} clips, WER whole clip {100*total['whole']/total['words']:.1f}% / voice loop "
      f"{100*total['loop']/total['words']:.1f}%; first word wrong: whole {total['first_whole']}, loop {total['first_loop']}")
PY
