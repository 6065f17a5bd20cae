#!/usr/bin/env python3
"""Record llama.cpp's token ids for the tokenizer parity corpus (not run in CI).

For each model and each text of tokenizer_corpus.json this runs
  llama-tokenize -m MODEL --stdin --no-escape --ids --log-disable
(BOS added only if the model asks for it, special tokens parsed: llama-tokenize's
defaults) and writes tokenizer_<name>.json next to this script.

Usage: LLAMA_BIN=/path/to/llama.cpp/build/bin POCKET_HOME=... python3 make_tokenizer_golden.py
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("LLAMA_BIN", "/work/peers/build/bin")
HOME = os.environ.get("POCKET_HOME", os.path.expanduser("~/.local/share/pocket-voice"))
MODELS = {
    "smollm2": ("smollm2-135m-instruct-q4_1", "SmolLM2-135M-Instruct.Q4_1.gguf"),
    "qwen25": ("qwen2.5-coder-0.5b-instruct", "Qwen2.5-Coder-0.5B-Instruct.gguf"),
}


def tokenize(model, text):
    cmd = [os.path.join(BIN, "llama-tokenize"), "-m", model, "--stdin", "--no-escape", "--ids", "--log-disable"]
    env = dict(os.environ, LD_LIBRARY_PATH=BIN)
    out = subprocess.run(cmd, input=text.encode(), capture_output=True, env=env, check=True)
    line = out.stdout.decode().strip().splitlines()[-1]
    return json.loads(line)


def main():
    corpus = json.load(open(os.path.join(HERE, "tokenizer_corpus.json"), encoding="utf-8"))
    for name, (asset, file) in MODELS.items():
        model = os.path.join(HOME, asset, file)
        ids = [tokenize(model, text) for text in corpus]
        golden = {
            "asset": asset,
            "command": "llama-tokenize -m MODEL --stdin --no-escape --ids --log-disable < TEXT",
            "ids": ids,
        }
        path = os.path.join(HERE, f"tokenizer_{name}.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write("{\n")
            f.write(f' "asset": {json.dumps(asset)},\n "command": {json.dumps(golden["command"])},\n "ids": [\n')
            f.write(",\n".join("  " + json.dumps(x) for x in ids))
            f.write("\n ]\n}\n")
        print(f"{path}: {len(ids)} texts, {sum(map(len, ids))} tokens", file=sys.stderr)


if __name__ == "__main__":
    main()
