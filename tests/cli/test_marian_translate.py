#!/usr/bin/python3
"""Text to text with an opus-mt model as the hub serves it (tests/models/make_marian_reference.py):
focal convert --preset auto on its model.safetensors and config.json (model_type marian)
with the source and target SentencePiece vocabularies mapped through vocab.json, then
focal generate --source TEXT, whose output must be the float64 reference's greedy
translation decoded as MarianTokenizer.decode does; --ids must print its ids and eos.
Usage: test_marian_translate.py FOCAL_BINARY MODEL_CASES WORK_DIR"""
import json
import os
import subprocess
import sys

import numpy as np

focal, cases, work = sys.argv[1:4]
case = os.path.join(cases, "marian_hub_e2_d3_d40")
spec = json.load(open(os.path.join(case, "case.json")))
os.makedirs(work, exist_ok=True)
model = os.path.join(work, "marian.focal")


def run(*args):
    return subprocess.run([focal, *args], capture_output=True, text=True, timeout=120)


def in_case(name):
    return os.path.join(case, name)


r = run("convert", "--preset", "auto", "--weights", in_case("model.safetensors"), "--config", in_case("config.json"),
        "--tokenizer", f"unigram:{in_case('source.vocab')}:{in_case('vocab.json')}",
        "--target-tokenizer", f"unigram:{in_case('target.vocab')}:{in_case('vocab.json')}",
        "--max-seq", "32", "-o", model)
assert r.returncode == 0, r.stderr
assert "preset auto: chose marian (config.json model_type 'marian')" in r.stderr, r.stderr

steps = str(spec["steps"])
r = run("generate", model, "--source", spec["text"], "--max-new", steps)
assert r.returncode == 0, r.stderr
assert r.stdout.rstrip("\n") == spec["translation"], (r.stdout, spec["translation"])

r = run("generate", model, "--source", spec["text"], "--max-new", steps, "--ids")
assert r.returncode == 0, r.stderr
want = [int(i) for i in np.load(in_case("expected/translation_ids.npy"))]
got = [int(i) for i in r.stdout.split()]
assert got[:len(want)] == want and (len(got) == len(want) or got[len(want):] == [0]), (got, want)
print("focal generate --source:", repr(spec["text"]), "->", repr(r.stdout.strip()))
