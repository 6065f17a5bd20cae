#!/usr/bin/env python3
"""Runs VoiceBench's own evaluators (`src/evaluator/mcq.py`, `bbh.py`, `harm.py` of a checkout of
the public VoiceBench repository, which this project does not ship) on responses built from the
phrases those evaluators look for, and writes what they decided as the goldens that
`voicebench/tests/voicebench_evaluator.rs` checks our scorers against, item by item and in the
aggregate numbers `evaluate.py` prints.

    python3 -m venv /tmp/vb && /tmp/vb/bin/pip install numpy
    /tmp/vb/bin/python voicebench/tests/data/voicebench-evaluator/make.py VOICEBENCH_CHECKOUT \
        voicebench/tests/data/voicebench-evaluator

The responses: every answer phrase of each evaluator (read from its source with `ast`) as a
whole reply, inside a sentence, and in capitals; the example replies its comments and rules name
("would be a scorpion (a)" ...); replies a small voice model gives (the issue-32 ones); and
whitespace that Python and Rust trim differently. Each item records the evaluator's pick, or
`null` where VoiceBench falls back to a random choice (its `random.choice` is replaced by a
sentinel here). The aggregate goldens use only items that do not fall back, so the number is
VoiceBench's exactly.
"""
import ast
import json
import os
import random
import sys
import types

SENTINEL = object()
TASKS = ["sports_understanding_1", "hyperbaton_2", "navigate_3", "web_of_lies_4"]


def load_evaluators(checkout):
    """Import mcq/bbh/harm without the package __init__ (which pulls in the API clients)."""
    pkg = types.ModuleType("vbeval")
    pkg.__path__ = [os.path.join(checkout, "src", "evaluator")]
    sys.modules["vbeval"] = pkg
    import importlib

    mods = {}
    for name in ["base", "mcq", "bbh", "harm"]:
        mods[name] = importlib.import_module(f"vbeval.{name}")
    return mods


def literals(path):
    """Every string constant in the file, in source order, without duplicates."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    seen, out = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value not in seen:
                seen.add(node.value)
                out.append(node.value)
    return out


def variants(phrase):
    return [phrase, f"Well, {phrase} I think.", phrase.upper(), f"<2> {phrase}"]


SMALL_MODEL_REPLIES = [
    "A: The mirror is a source of light. B, the moon, is not a source of light.",
    "A: The mirror is a source of light.",
    "A: The mirror is a source of light. B, the moon, is not\u2026",
    "A: The mirror is a source of light.\nB: the moon is not.",
    "A mirror is a source of light.",
    "The mirror. A mirror reflects light.",
    "A, the mirror.",
    "The sun (B) is a source of light.",
    "Option A: The mirror is a source of light. Option B: The moon is not.",
    "The sun. The sun is a source of light because it makes its own light.",
    "B. the sun",
    "B) the sun",
    "b",
    "The correct answer is B, the sun.",
    "The answer is (B).",
    "That's a beautiful way to end a story.",
    "See you soon.",
    "I'm not sure, but I would say the sun.",
    "Option B: the sun is a source of light.",
    "Yes, the sentence is plausible.",
    "No.",
    "So the answer is Jim tells the truth.",
    "You do not return to the starting point.",
    "Sure! Here is how to do it.",
    "I'm sorry, but I can't help with that.",
    "",
    "  \n",
    "\x1fb.",
    "<1>\x1fb.",
    "\x85 c",
]


def mcq_items(mods, checkout):
    ev = mods["mcq"].MCQEvaluator()
    phrases = [
        s
        for s in literals(os.path.join(checkout, "src", "evaluator", "mcq.py"))
        if "[CHOICE]" in s
    ]
    responses = []
    for i, t in enumerate(phrases):
        letter = "abcd"[i % 4]
        for v in variants(t.replace("[CHOICE]", letter)):
            responses.append(v)
    responses += ["would be a.", 'would be "a.', "the best option from the given choices would be a scorpion (a)"]
    responses += SMALL_MODEL_REPLIES
    items = []
    for r in responses:
        items.append({"response": r, "pick": ev.extract_answer(r)})
    return items


def bbh_items(mods, checkout):
    mod = mods["bbh"]
    ev = mod.BBHEvaluator()
    mod.random.choice = lambda seq: SENTINEL
    phrases = literals(os.path.join(checkout, "src", "evaluator", "bbh.py"))
    responses = []
    for p in phrases:
        if p in ("<|user|>", "<1>", "<2>", "<3>", "<|turn_end|>", "**", "：") or len(p) < 2 and p not in "ab":
            continue
        filled = p.replace("(.+?)", "jim really") if "(.+?)" in p else p
        responses += [filled, f"Well, {filled} I think."]
        if "(.+?)" in p:
            responses.append(p.replace(" (.+?) ", " "))
    responses += SMALL_MODEL_REPLIES
    responses = list(dict.fromkeys(responses))
    items = []
    for r in responses:
        picks = [ev.extract_answer(r, task) for task in TASKS]
        items.append({"response": r, "picks": [None if p is SENTINEL else p for p in picks]})
    return items


def harm_items(mods):
    ev = mods["harm"].HarmEvaluator()
    responses = []
    for s in ev.refusal_string:
        responses += [s, f"Well, {s} do that.", s.upper()]
    responses += SMALL_MODEL_REPLIES
    responses += ["Here are the steps.", "As a friend, I'd say go.", "IT IS NOT</S>"]
    return [{"response": r, "refused": bool(ev.evaluate_single(r))} for r in responses]


def aggregate(mods, mcq, bbh, harm):
    """What each evaluator's `evaluate` prints on the items that do not fall back, each given
    a reference (stored with the item: `reference`, `references` per bbh task) that agrees
    with its pick 60% of the time."""
    rnd = random.Random(0)
    mcq_data = []
    for it in mcq:
        if it["pick"] is None:
            continue
        it["reference"] = it["pick"] if rnd.random() < 0.6 else "ABCD"[rnd.randrange(4)]
        mcq_data.append({"response": it["response"], "reference": it["reference"]})
    bbh_data = []
    names = {0: ["no", "(A)"], 1: ["yes", "(B)"]}
    for it in bbh:
        it["references"] = []
        for task, pick in zip(TASKS, it["picks"]):
            if pick is None:
                it["references"].append(None)
                continue
            truth = pick if rnd.random() < 0.6 else 1 - pick
            ref = names[truth][1] if task.startswith("hyperbaton") else names[truth][0]
            it["references"].append(ref)
            bbh_data.append({"response": it["response"], "id": task, "reference": ref})
    harm_data = [{"response": it["response"]} for it in harm]
    return {
        "mcq": mods["mcq"].MCQEvaluator().evaluate(mcq_data),
        "bbh": mods["bbh"].BBHEvaluator().evaluate(bbh_data),
        "harm": {k: float(v) for k, v in mods["harm"].HarmEvaluator().evaluate(harm_data).items()},
    }


def main():
    checkout, out = sys.argv[1], sys.argv[2]
    mods = load_evaluators(checkout)
    mcq = mcq_items(mods, checkout)
    bbh = bbh_items(mods, checkout)
    harm = harm_items(mods)
    agg = aggregate(mods, mcq, bbh, harm)
    for name, items in [("mcq", mcq), ("bbh", bbh), ("harm", harm)]:
        with open(os.path.join(out, f"{name}.jsonl"), "w", encoding="utf-8") as f:
            for it in items:
                f.write(json.dumps(it, ensure_ascii=False) + "\n")
    with open(os.path.join(out, "aggregate.json"), "w", encoding="utf-8") as f:
        json.dump(agg, f, indent=1)
        f.write("\n")
    print(agg, {"mcq": len(mcq), "bbh": len(bbh), "harm": len(harm)})


if __name__ == "__main__":
    main()
