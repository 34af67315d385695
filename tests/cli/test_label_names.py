#!/usr/bin/python3
"""The commands a Hugging Face user types: focal convert --preset auto on a
BertForSequenceClassification checkpoint and its config.json (as transformers writes it,
with id2label), then focal run, which writes the .npy outputs and prints each row's most
probable label name and its softmax probability; both checked against PyTorch's float64
logits. Also the CLI's refusals of malformed --set, --rename and --logits values.
Usage: test_label_names.py FOCAL_BINARY MODEL_CASES WORK_DIR"""
import json
import os
import re
import subprocess
import sys

import numpy as np

focal, cases, work = sys.argv[1:4]
case = os.path.join(cases, "bert_hf_cls3_l2_d40_h5")
os.makedirs(work, exist_ok=True)
model = os.path.join(work, "bert.focal")


def run(*args):
    return subprocess.run([focal, *args], capture_output=True, text=True, timeout=120)


r = run("convert", "--preset", "auto", "--weights", os.path.join(case, "weights.safetensors"),
        "--config", os.path.join(case, "config.json"), "--max-batch", "4", "--max-seq", "16", "-o", model)
assert r.returncode == 0, r.stderr
assert "preset auto: chose bert (config.json model_type 'bert')" in r.stderr, r.stderr

r = run("inspect", "--json", model)
assert r.returncode == 0 and json.loads(r.stdout)["labels"] == json.load(open(os.path.join(case, "case.json")))["label_names"], r.stdout[:400]
r = run("inspect", model)
assert "label        2 positive" in r.stdout, r.stdout[:800]

inputs = [f"{name}={os.path.join(case, 'inputs', name + '.npy')}"
          for name in ("input_ids", "attention_mask", "token_type_ids")]
out_dir = os.path.join(work, "out")
r = run("run", model, *sum((["--input", i] for i in inputs), []), "--output-dir", out_dir)
assert r.returncode == 0, r.stderr
want = np.load(os.path.join(case, "expected", "logits.npy")).astype(np.float64)
got = np.load(os.path.join(out_dir, "logits.npy"))
assert np.abs(got - want).max() <= 1e-4 * (1 + np.abs(want).max()), np.abs(got - want).max()
names = json.load(open(os.path.join(case, "case.json")))["label_names"]
probabilities = np.exp(want - want.max(-1, keepdims=True))
probabilities /= probabilities.sum(-1, keepdims=True)
printed = re.findall(r"^logits\[(\d+)\]: (\S+) \(p=([0-9.]+)\)$", r.stdout, re.MULTILINE)
assert len(printed) == want.shape[0], r.stdout
for row, name, p in printed:
    best = int(probabilities[int(row)].argmax())
    assert name == names[best], (row, name, names[best], r.stdout)
    assert abs(float(p) - probabilities[int(row)][best]) <= 1e-4, (row, p, probabilities[int(row)])
assert {name for _, name, _ in printed} == set(names), r.stdout  # every label printed somewhere

refusals = [  # (arguments, exit code: 2 for a command line that does not parse, 1 for a refusal; text)
    (("--logits", "some"), 2, "unsupported --logits 'some' (last or all)"),
    (("--set", "no_equals"), 1, "--set 'no_equals': expected NAME=VALUE"),
    (("--rename", "(=x"), 1, "is not a valid regular expression"),
    (("--preset", "nope"), 1, "unknown preset 'nope'"),
]
for extra, code, text in refusals:
    args = ["convert", "--weights", os.path.join(case, "weights.safetensors"), "-o", os.path.join(work, "x.focal")]
    if "--preset" not in extra:
        args += ["--preset", "bert"]
    r = run(*args, *extra)
    assert r.returncode == code and text in r.stderr, (extra, r.returncode, r.stderr)
print("focal run printed", len(printed), "label names;", len(refusals), "refusals as expected")
