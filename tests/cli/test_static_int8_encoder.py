#!/usr/bin/python3
"""`focal convert --quantize static` (issue 36) on the Cortex-M encoder's reference case
(tests/models/make_reference.py: pre-LN GELU transformer encoder, 3 layers, d_model 48,
6 heads, learned positions, [CLS] pooling, 5 classes, random weights, PyTorch's outputs
in float64): calibrated on its four sequences (8, 5, 1 and 7 tokens), with the first as
the self-test. The int8 model stores and passes its own bit-exact self-test, runs every
op on int8 activations (only the f32 outputs' dequantization is float), and on every
sequence `focal run` gives PyTorch's argmax with logits within 0.05 (measured 0.029) and
the valid positions of last_hidden_state within 0.2 (measured 0.12 of values up to 3.1).
The post-LN case with mean pooling is refused, naming the op. `--fit ram=32K,flash=256K`
on the same case finds no f32-activation choice within 32 KiB of RAM (arena 43,456 B)
and writes static int8, byte for byte the example firmware's model
(targets/cortex-m/examples/classify/models/encoder_static_int8.focal).
Usage: test_static_int8_encoder.py FOCAL SOURCE_DIR WORK_DIR"""

import json
import os
import subprocess
import sys

import numpy as np

CASE = "torch_encoder_preln_gelu_cls_l3_d48_h6"
MEAN_CASE = "torch_encoder_postln_relu_mean_l2_d32_h4"


def convert(focal, case_dir, out, *extra, quantize=("--quantize", "static")):
    return subprocess.run([focal, "convert", "--preset", "torch-encoder", "--weights", f"{case_dir}/weights.safetensors",
                           "--config", f"{case_dir}/config.json", *quantize, "--max-batch", "1",
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


def check_fit(focal, root, case_dir, work):
    done = convert(focal, case_dir, f"{work}/fit.focal", "--calibration", f"{work}/calibration", "--self-test",
                   f"{work}/self_test", "--self-test-tolerance", "0.05", "--fit", "ram=32K,flash=256K", "--json",
                   quantize=())
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["fit"]
    by_name = {c["choice"]: c for c in report["choices"]}
    assert not by_name["f32"]["fits"] and by_name["f32"]["ram_bytes"] > 32768, report
    assert by_name["static int8"]["chosen"] and by_name["static int8"]["ram_bytes"] <= 32768, report
    with open(f"{work}/fit.focal", "rb") as f, \
            open(f"{root}/targets/cortex-m/examples/classify/models/encoder_static_int8.focal", "rb") as g:
        assert f.read() == g.read(), "--fit wrote other bytes than the static int8 example firmware's model"


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
    check_fit(focal, root, case_dir, work)
    refused = convert(focal, f"{work}/{MEAN_CASE}", f"{work}/mean.focal")
    assert refused.returncode != 0 and "'pool' (PoolOptions): mean pooling has no int8 form" in refused.stderr, refused.stderr
    assert not os.path.exists(f"{work}/mean.focal")


if __name__ == "__main__":
    main(*sys.argv[1:4])
