#!/usr/bin/env bash
# LLM engine vs llama.cpp, side by side in one run: the same GGUF files, the same threads,
# release builds, llama-bench's pp/tg tests (a prompt of P tokens as one batch; N tokens
# decoded one by one, each from an empty cache), alternating the two engines per round.
# Files: SmolLM2-135M Q4_1 (asset), Qwen2.5-Coder-0.5B (asset, if installed: Q5_0 / Q8_0 /
# Q4_K / Q6_K), Qwen2.5-Coder-1.5B Q4_K_M (asset `--set large`, if installed; ONLY=1.5B keeps just
# the files whose name holds that text, FORMATS="" drops the random MNN-shaped ones) and random-weight files of MNN-Pocket-0.3B's exact shape in every format
# `pocket llm synth` writes (FORMATS, default "q4_0 q4_1 q5_0 q5_1 q5_k q8_0"; add f16 if you
# like; q5_k has Q5_1 where rows are not whole 256-element super-blocks: all but ffn_down at
# this shape, as llama.cpp's quantizer would write it).
# Also prints the measured memory read bandwidth (median of a probe before each round and after
# the last), decode as a fraction of it (weight bytes read per token x tok/s / bandwidth), and
# the peak RSS of the MNN-shaped Q4_1 model with a 4K context filled.
#
#   [FORMATS="q4_0 q8_0"] bench/llm.sh [THREADS] [ROUNDS] [P] [N]
# Needs: the default assets (`pocket assets fetch`), llama-bench (LLAMA_BIN, default
# /work/peers/build/bin), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${1:-2}; ROUNDS=${2:-3}; P=${3:-128}; N=${4:-128}
LLAMA_BIN=${LLAMA_BIN:-/work/peers/build/bin}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
# POCKET=BINARY uses that `pocket` instead of building the release one.
if [ -z "${POCKET:-}" ]; then
  cargo build --release -q -p pocket-cli
  POCKET="$CARGO_TARGET_DIR/release/pocket"
fi
SMOL="$("$POCKET" assets path smollm2-135m-instruct-q4_1)/SmolLM2-135M-Instruct.Q4_1.gguf"
WORK=${BENCH_DIR:-${TMPDIR:-/tmp}/pocket-llm-bench}
mkdir -p "$WORK"
MODELS=("$SMOL")
QWEN_DIR=$("$POCKET" assets path qwen2.5-coder-0.5b-instruct 2>/dev/null || true)
[ -f "$QWEN_DIR/Qwen2.5-Coder-0.5B-Instruct.gguf" ] && MODELS+=("$QWEN_DIR/Qwen2.5-Coder-0.5B-Instruct.gguf")
QWEN15_DIR=$("$POCKET" assets path qwen2.5-coder-1.5b-instruct-q4_k_m 2>/dev/null || true)
[ -f "$QWEN15_DIR/Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf" ] && MODELS+=("$QWEN15_DIR/Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf")
[ -z "${ONLY:-}" ] || { keep=(); for m in "${MODELS[@]}"; do [[ "$(basename "$m")" == *"$ONLY"* ]] && keep+=("$m"); done; MODELS=("${keep[@]}"); }
for q in ${FORMATS-q4_0 q4_1 q5_0 q5_1 q5_k q8_0}; do
  f="$WORK/mnn-pocket-0.3b-$q.gguf"
  [ -f "$f" ] || "$POCKET" llm synth --shape mnn-pocket-0.3b --quant "$q" --seed 1 -o "$f"
  MODELS+=("$f")
done
MNN="$WORK/mnn-pocket-0.3b-q4_1.gguf"
[ -f "$MNN" ] || "$POCKET" llm synth --shape mnn-pocket-0.3b --quant q4_1 --seed 1 -o "$MNN"
OUT="$WORK/results.tsv"; : >"$OUT"
# The host's bandwidth moves from minute to minute: probe it before every round and after the
# last, and divide by the median.
membw() { "$POCKET" llm membw -t "$THREADS" --json | sed 's/^/membw\t/' >>"$OUT"; }
for round in $(seq "$ROUNDS"); do
  membw
  for model in "${MODELS[@]}"; do
    name=$(basename "$model")
    /usr/bin/time -f "%M" -o "$WORK/rss" "$POCKET" llm bench --model "$model" -p "$P" -n "$N" -t "$THREADS" -r 3 --json \
      | sed "s/^/ours\t$name\t/" >>"$OUT"
    printf 'ours-rss\t%s\t%s\n' "$name" "$(cat "$WORK/rss")" >>"$OUT"
    /usr/bin/time -f "%M" -o "$WORK/rss" env LD_LIBRARY_PATH="$LLAMA_BIN" "$LLAMA_BIN/llama-bench" -m "$model" \
      -p "$P" -n "$N" -t "$THREADS" -r 3 -o json 2>/dev/null | tr -d '\n' | sed "s/^/llama\t$name\t/" >>"$OUT"
    printf '\nllama-rss\t%s\t%s\n' "$name" "$(cat "$WORK/rss")" >>"$OUT"
  done
done
membw
"$POCKET" llm bench --model "$MNN" -p "$P" -n "$N" -t "$THREADS" -r 1 --ctx 4096 --fill-ctx --json \
  | sed "s/^/ours-4k\t$(basename "$MNN")\t/" >>"$OUT"
python3 - "$OUT" "$THREADS" "$P" "$N" <<'PY'
import json, sys, collections, statistics
path, threads, P, N = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
bws = []
ours = collections.defaultdict(lambda: collections.defaultdict(list))
llama = collections.defaultdict(lambda: collections.defaultdict(list))
rss = collections.defaultdict(lambda: collections.defaultdict(list))
weights, full = {}, {}
for line in open(path):
    f = line.rstrip("\n").split("\t")
    if not f or not f[0]:
        continue
    if f[0] == "membw":
        bws.append(json.loads(f[1])["read_bytes_per_s"])
    elif f[0] == "ours":
        j = json.loads(f[2]); ours[f[1]]["pp"].append(j["prefill_tok_s"]); ours[f[1]]["tg"].append(j["decode_tok_s"])
        weights[f[1]] = j["weight_bytes_per_token"]
    elif f[0] == "llama":
        for t in json.loads(f[2]):
            llama[f[1]]["pp" if t["n_prompt"] > 0 else "tg"].append(t["avg_ts"])
    elif f[0] in ("ours-rss", "llama-rss"):
        rss[f[1]][f[0]].append(int(f[2]) * 1024)
    elif f[0] == "ours-4k":
        full[f[1]] = json.loads(f[2])
med = lambda v: statistics.median(v) if v else float("nan")
bw = med(bws)
print(f"{threads} threads, pp{P} / tg{N}, median of the rounds; memory read bandwidth {bw / 1e9:.1f} GB/s "
      f"(median of {len(bws)} probes, {min(bws) / 1e9:.1f}-{max(bws) / 1e9:.1f})")
print()
print("| model | test | llama.cpp tok/s | ours tok/s | ours / llama.cpp | peak RSS llama.cpp | peak RSS ours |")
print("|---|---|---:|---:|---:|---:|---:|")
for m in ours:
    for t, label in (("pp", f"pp{P}"), ("tg", f"tg{N}")):
        a, b = med(llama[m][t]), med(ours[m][t])
        print(f"| {m} | {label} | {a:.1f} | {b:.1f} | {b / a:.2f}x | {med(rss[m]['llama-rss']) / 1e6:.0f} MB | {med(rss[m]['ours-rss']) / 1e6:.0f} MB |")
print()
for m in ours:
    b = med(ours[m]["tg"]); a = med(llama[m]["tg"])
    print(f"{m}: {weights[m] / 1e6:.1f} MB of weights read per token; decode at {b * weights[m] / 1e9:.1f} GB/s = "
          f"{b * weights[m] / bw:.0%} of measured bandwidth (llama.cpp {a * weights[m] / bw:.0%})")
for m, j in full.items():
    print(f"{m} with a {j['context']}-token context filled: peak RSS {j['peak_rss_bytes'] / 1e6:.0f} MB "
          f"(KV cache {j['kv_cache_bytes'] / 1e6:.0f} MB)")
PY
