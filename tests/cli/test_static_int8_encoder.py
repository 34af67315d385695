#!/usr/bin/python3
"""`focal convert --quantize static` (issue 36) on the Cortex-M encoder's reference case
(tests/models/make_reference.py: pre-LN GELU transformer encoder, 3 layers, d_model 48,
6 heads, learned positions, [CLS] pooling, 5 classes, random weights, PyTorch's outputs
in float64): calibrated on its four sequences (8, 5, 1 and 7 tokens), with the first as
the self-test. The int8 model stores and passes its own bit-exact self-test, runs every
op on int8 activations (only the f32 outputs' dequantization is float), and on every
sequence `focal run` gives PyTorch's argmax with logits within 0.05 (measured 0.029) and
the valid positions of last_hidden_state within 0.2 (measured 0.12 of values up to 3.1).
The post-LN case with mean pooling is refused, naming the op.
Usage: test_static_int8_encoder.py FOCAL SOURCE_DIR WORK_DIR"""

import json
import os
import subprocess
import sys

import numpy as np

CASE = "torch_encoder_preln_gelu_cls_l3_d48_h6"
MEAN_CASE = "torch_encoder_postln_relu_mean_l2_d32_h4"


def convert(focal, case_dir, out, *extra):
    return subprocess.run([focal, "convert", "--preset", "torch-encoder", "--weights", f"{case_dir}/weights.safetensors",
                           "--config", f"{case_dir}/config.json", "--quantize", "static", "--max-batch", "1",
                           "--max-seq", "16", "-o", out, *extra], capture_output=True, text=True)


def first_sequence(case_dir, work):
    st = f"{work}/self_test"
    os.makedirs(f"{st}/inputs", exist_ok=True)
    os.makedirs(f"{st}/expected", exist_ok=True)
    for name in os.listdir(f"{case_dir}/inputs"):
        np.save(f"{st}/inputs/{name}", np.load(f"{case_dir}/inputs/{name}")[:1])
    # Padded positions of last_hidden_state are unspecified: the self-test checks the logits.
    np.save(f"{st}/expected/logits.npy", np.load(f"{case_dir}/expected/logits.npy")[:1])
    return st


def calibration(case_dir, work):
    cal = f"{work}/calibration"
    os.makedirs(cal, exist_ok=True)
    ids, mask = np.load(f"{case_dir}/inputs/input_ids.npy"), np.load(f"{case_dir}/inputs/attention_mask.npy")
    for row in range(ids.shape[0]):
        with open(f"{cal}/sequence{row}.json", "w") as f:
            json.dump({"input_ids": ids[row:row + 1].tolist(), "attention_mask": mask[row:row + 1].tolist()}, f)
    return cal


def check_ops(focal, model):
    shown = subprocess.run([focal, "inspect", model], capture_output=True, text=True, check=True).stdout
    tensors = shown[shown.index("role"):]
    for line in tensors.splitlines()[1:]:
        fields = line.split()
        if len(fields) > 3 and fields[2] == "activation":
            assert fields[3] == "i8", line  # every activation on int8
    assert "last_hidden_state.int8 -> last_hidden_state" in shown, shown


def main(focal, root, work):
    os.makedirs(work, exist_ok=True)
    subprocess.run(["/usr/bin/python3", f"{root}/tests/models/make_reference.py", work, "--only", "torch-encoder"],
                   check=True, capture_output=True)
    case_dir, model = f"{work}/{CASE}", f"{work}/encoder_static.focal"
    done = convert(focal, case_dir, model, "--calibration", calibration(case_dir, work), "--self-test",
                   first_sequence(case_dir, work), "--self-test-tolerance", "0.05")
    assert done.returncode == 0, done.stderr
    assert "the int8 model's own outputs, bit for bit" in done.stderr, done.stderr
    verify = subprocess.run([focal, "verify", model], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    check_ops(focal, model)
    ids, mask = np.load(f"{case_dir}/inputs/input_ids.npy"), np.load(f"{case_dir}/inputs/attention_mask.npy")
    logits, hidden = np.load(f"{case_dir}/expected/logits.npy"), np.load(f"{case_dir}/expected/last_hidden_state.npy")
    worst_logit = worst_hidden = 0.0
    for row in range(ids.shape[0]):
        np.save(f"{work}/ids.npy", ids[row:row + 1]), np.save(f"{work}/mask.npy", mask[row:row + 1])
        out = subprocess.run([focal, "run", model, "--input", f"input_ids={work}/ids.npy", "--input",
                              f"attention_mask={work}/mask.npy", "--output-dir", f"{work}/out"],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        got = np.load(f"{work}/out/logits.npy")[0]
        valid = int(mask[row].sum())
        got_hidden = np.load(f"{work}/out/last_hidden_state.npy")[0][:valid]
        worst_logit = max(worst_logit, float(np.abs(got - logits[row]).max()))
        worst_hidden = max(worst_hidden, float(np.abs(got_hidden - hidden[row][:valid]).max()))
        assert got.argmax() == logits[row].argmax(), (row, got, logits[row])
    print(f"largest difference from PyTorch: logits {worst_logit:.4f}, last_hidden_state {worst_hidden:.4f}")
    assert worst_logit < 0.05 and worst_hidden < 0.2, (worst_logit, worst_hidden)
    refused = convert(focal, f"{work}/{MEAN_CASE}", f"{work}/mean.focal")
    assert refused.returncode != 0 and "'pool' (PoolOptions): mean pooling has no int8 form" in refused.stderr, refused.stderr
    assert not os.path.exists(f"{work}/mean.focal")


if __name__ == "__main__":
    main(*sys.argv[1:4])
