#!/usr/bin/python3
"""focal run on the tiny model: .npy in, .npy out, checked with NumPy; bad inputs fail
with a message and exit 1. Usage: test_run.py FOCAL_BINARY TINY_MODEL WORK_DIR"""
import os
import subprocess
import sys

import numpy as np

focal, model, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
x = np.random.default_rng(0).uniform(-2, 2, size=(1, 5, 8)).astype(np.float32)
np.save(os.path.join(work, "x.npy"), x)
out_dir = os.path.join(work, "out")


def run(*args):
    return subprocess.run([focal, "run", model, *args], capture_output=True, text=True)


r = run("--input", "x=" + os.path.join(work, "x.npy"), "--output-dir", out_dir, "--threads", "2")
assert r.returncode == 0, r.stderr
probs = np.load(os.path.join(out_dir, "probs.npy"))
logits = np.load(os.path.join(out_dir, "logits.npy"))
assert probs.shape == (1, 5, 5) and logits.shape == (1, 5, 5), (probs.shape, logits.shape)
assert np.allclose(probs.sum(-1), 1.0, atol=1e-5), probs.sum(-1)
e = np.exp(logits - logits.max(-1, keepdims=True))
assert np.allclose(probs, e / e.sum(-1, keepdims=True), atol=1e-6)

failures = [
    (("--input", "nope=" + os.path.join(work, "x.npy"), "--output-dir", out_dir), "has no input 'nope'"),
    (("--input", "x=" + os.path.join(work, "missing.npy"), "--output-dir", out_dir), "cannot open"),
    (("--output-dir", out_dir), "input 'x' not set"),
]
np.save(os.path.join(work, "long.npy"), np.zeros((1, 9, 8), dtype=np.float32))
failures.append((("--input", "x=" + os.path.join(work, "long.npy"), "--output-dir", out_dir), "allows 1 to 8"))
for args, text in failures:
    r = run(*args)
    assert r.returncode == 1 and text in r.stderr, (args, r.returncode, r.stderr)
print("focal run: 1 good run and", len(failures), "refusals as expected")
