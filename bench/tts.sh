#!/usr/bin/env bash
# Speech synthesis vs piper-tts, side by side in one run: the same Piper voice (en_US-joe-medium),
# the same replies, 2 intra-op threads each, release build, each engine warmed up first.
# Prints per-reply time to first audio and the totals (RTF = synthesis time / audio time; also
# CPU time per audio second, which other work on the machine disturbs less than wall time).
#
#   bench/tts.sh [THREADS] [RUNS]
# Needs: the default assets (`pocket assets fetch`), and piper-tts in a venv:
#   python3 -m venv /work/peers/venv-tts && /work/peers/venv-tts/bin/pip install piper-tts==1.8.0
# (override the interpreter with PIPER_PY=/path/to/python).
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${1:-2}
RUNS=${2:-3}
PY=${PIPER_PY:-/work/peers/venv-tts/bin/python}
REPLIES=bench/tts_replies.txt
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

cargo build --release -q -p pocket-tts --example tts_bench
BIN=${CARGO_TARGET_DIR:-target}/release/examples/tts_bench
MODEL=$("$BIN" --model-path)

# Alternate the engines run by run so machine load hits both alike.
for run in $(seq 1 "$RUNS"); do
  "$BIN" "$REPLIES" "$THREADS" 1 >>"$OUT/pocket.jsonl"
  "$PY" bench/tts_piper.py "$MODEL" "$REPLIES" "$THREADS" 1 >>"$OUT/piper.jsonl"
done

"$PY" - "$OUT/pocket.jsonl" "$OUT/piper.jsonl" "$REPLIES" <<'PYEOF'
import json, statistics, sys
def load(p):
    rows = [json.loads(l) for l in open(p)]
    by = {}
    for r in rows:
        by.setdefault(r["reply"], []).append(r)
    return by
ours, peer = load(sys.argv[1]), load(sys.argv[2])
replies = [l.strip() for l in open(sys.argv[3]) if l.strip()]
med = lambda rs, k: statistics.median(r[k] for r in rs)
print(f"{'reply':<48} {'first audio ms':>22} {'ratio':>6}")
print(f"{'':<48} {'pocket':>10} {'piper-tts':>11}")
ratios = []
for i, text in enumerate(replies):
    a, b = med(ours[i], "first_ms"), med(peer[i], "first_ms")
    ratios.append(a / b)
    print(f"{text[:46]:<48} {a:>10.1f} {b:>11.1f} {a / b:>6.2f}")
tot = lambda by, k: sum(med(rs, k) for rs in by.values())
rtf_o = tot(ours, "total_ms") / 1e3 / tot(ours, "audio_s")
rtf_p = tot(peer, "total_ms") / 1e3 / tot(peer, "audio_s")
fo = statistics.median(med(rs, "first_ms") for rs in ours.values())
fp = statistics.median(med(rs, "first_ms") for rs in peer.values())
print()
print(f"first audio, median over replies: pocket {fo:.1f} ms, piper-tts {fp:.1f} ms, ratio {fo / fp:.2f} (target <= 0.70)")
print(f"first audio ratio per reply: median {statistics.median(ratios):.2f}, worst {max(ratios):.2f}")
print(f"RTF: pocket {rtf_o:.4f}, piper-tts {rtf_p:.4f}, ratio {rtf_o / rtf_p:.2f} (target <= 1.20)")
cpu_o = tot(ours, "cpu_ms") / 1e3 / tot(ours, "audio_s")
cpu_p = tot(peer, "cpu_ms") / 1e3 / tot(peer, "audio_s")
print(f"CPU seconds per audio second (robust to machine load): pocket {cpu_o:.4f}, piper-tts {cpu_p:.4f}, ratio {cpu_o / cpu_p:.2f}")
print(f"audio: pocket {tot(ours, 'audio_s'):.1f} s, piper-tts {tot(peer, 'audio_s'):.1f} s")
PYEOF
