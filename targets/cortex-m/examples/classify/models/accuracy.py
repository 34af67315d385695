#!/usr/bin/python3
"""Held-out accuracy of the example classifier's builds (make_models.sh runs it): COUNT
random sequences (ids uniform in [1, 1000), lengths uniform in [1, 64], seed SEED, none
of them the calibration's), each through PyTorch in float64 (the reference case's
module and weights, tests/models/make_rnn_reference.py) and through each MODEL with
`focal run` on the host, whose integer outputs are the device's bit for bit. Prints, per
model, how often its argmax is PyTorch's and the first model's, and its probabilities'
largest and mean difference from PyTorch's.

  accuracy.py FOCAL CASE_DIR MODEL... [--count N] [--seed S]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../..")
sys.path.insert(0, os.path.join(ROOT, "tests/models"))
import make_rnn_reference as rnn  # noqa: E402  (the module, the case's config and weights)
from case_files import load_weights  # noqa: E402


def reference_probabilities(case_dir, ids, mask):
    with open(os.path.join(case_dir, "config.json")) as f:
        config = json.load(f)
    model = rnn.RnnClassifier(config)
    model.load_state_dict(load_weights(os.path.join(case_dir, "weights.safetensors"), "safetensors"))
    with torch.no_grad():
        return model.double()(torch.from_numpy(ids).long(), torch.from_numpy(mask).long())["probabilities"].numpy()


def focal_probabilities(focal, model, ids, mask, tmp):
    rows = []
    for row in range(ids.shape[0]):
        np.save(f"{tmp}/ids.npy", ids[row:row + 1]), np.save(f"{tmp}/mask.npy", mask[row:row + 1])
        subprocess.run([focal, "run", model, "--input", f"input_ids={tmp}/ids.npy", "--input",
                        f"attention_mask={tmp}/mask.npy", "--output-dir", tmp], check=True, capture_output=True)
        rows.append(np.load(f"{tmp}/probabilities.npy")[0])
    return np.array(rows, dtype=np.float64)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("focal")
    parser.add_argument("case_dir")
    parser.add_argument("models", nargs="+")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20261205)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    seq = 64
    lengths = rng.integers(1, seq + 1, args.count)
    mask = (np.arange(seq)[None, :] < lengths[:, None]).astype(np.int32)
    ids = (rng.integers(1, 1000, (args.count, seq)) * mask).astype(np.int32)
    want = reference_probabilities(args.case_dir, ids, mask)
    first = None
    print(f"{args.count} held-out sequences (seed {args.seed}, 1 to {seq} words) against PyTorch in float64:")
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            got = focal_probabilities(args.focal, model, ids, mask, tmp)
            first = got if first is None else first
            same = np.mean(got.argmax(1) == want.argmax(1))
            same_first = np.mean(got.argmax(1) == first.argmax(1))
            error = np.abs(got - want).max(1)
            print(f"  {os.path.basename(model)}: argmax as PyTorch's {100 * same:.1f}%, as "
                  f"{os.path.basename(args.models[0])}'s {100 * same_first:.1f}%; probabilities within "
                  f"{error.max():.4f} of PyTorch's (mean {error.mean():.4f}, {100 * np.mean(error <= 0.02):.1f}% "
                  f"within 0.02)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
