#!/usr/bin/python3
"""focal convert --preset rnn-classifier refuses checkpoints it cannot place with an
error a user can act on (exit 1, never a crash, nothing written): two candidate heads
(both named), no head (naming the Linear names looked for and the tensors left over), a head whose shape does not
read the pooled width (expected against found, naming the tensor), a config key the
tensors contradict (the key, both values), no recurrent module. Written with NumPy as .npz.
Usage: test_rnn_classifier_errors.py FOCAL_BINARY WORK_DIR"""
import json
import os
import subprocess
import sys

import numpy as np

focal, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(0)
V, E, H, A, C = 30, 6, 7, 5, 3


def w(*shape):
    return (0.3 * rng.standard_normal(shape)).astype(np.float32)


def classifier():
    tensors = {"embedding.weight": w(V, E), "attention.W.weight": w(A, 2 * H), "attention.W.bias": w(A),
               "attention.v.weight": w(1, A), "fc.weight": w(C, 2 * H), "fc.bias": w(C)}
    for suffix in ("", "_reverse"):
        tensors.update({f"lstm.weight_ih_l0{suffix}": w(4 * H, E), f"lstm.weight_hh_l0{suffix}": w(4 * H, H),
                        f"lstm.bias_ih_l0{suffix}": w(4 * H), f"lstm.bias_hh_l0{suffix}": w(4 * H)})
    return tensors


def refused(name, tensors, expected, config=None):
    path = os.path.join(work, name + ".npz")
    np.savez(path, **tensors)
    args = [focal, "convert", "--preset", "rnn-classifier", "--weights", path, "-o", path + ".focal"]
    if config is not None:
        with open(path + ".json", "w") as f:
            json.dump(config, f)
        args += ["--config", path + ".json"]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 1, (name, r.returncode, r.stderr)
    for text in expected:
        assert text in r.stderr, (name, text, r.stderr)
    assert not os.path.exists(path + ".focal"), name
    print(f"{name}: {r.stderr.strip().splitlines()[-1]}")


ok = classifier()
path = os.path.join(work, "ok.npz")
np.savez(path, **ok)
r = subprocess.run([focal, "convert", "--preset", "rnn-classifier", "--weights", path, "--strict",
                    "-o", path + ".focal"], capture_output=True, text=True)
assert r.returncode == 0, r.stderr  # the baseline the cases below break converts

two_heads = dict(ok, **{"classifier.weight": w(C, 2 * H)})
refused("two_heads", two_heads, ["several candidates for classifier head", "fc.weight", "classifier.weight"])
no_head = {k.replace("fc.", "proj."): v for k, v in ok.items()}  # a head under a name not looked for
refused("no_head", no_head, ["no classifier head", "classifier, fc, head, out, output or linear",
                             "tensors not placed: proj.weight, proj.bias"])
narrow_head = dict(ok, **{"fc.weight": w(C, 2 * H - 4)})
refused("narrow_head", narrow_head, ["'fc.weight'", "has shape [3, 10], expected [C, 14 = 2 directions x 7]"])
refused("config_disagrees", ok, ["hidden is 99 but the checkpoint's tensors say 7"], config={"hidden": 99})
no_rnn = {k: v for k, v in ok.items() if not k.startswith("lstm.")}
refused("no_rnn", no_rnn, ["no nn.LSTM or nn.GRU", "weight_ih_l0"])
