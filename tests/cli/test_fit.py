#!/usr/bin/python3
"""`focal convert --fit` (issue 36) on the Cortex-M classifier's reference case
(tests/models/make_rnn_reference.py: keyword-spotting BiLSTM 2 x 64 with additive attention
pooling, 4 classes, random weights, PyTorch's outputs in float64), its first sequence as
the self-test and all three as calibration cases:
- a 64 KiB-RAM, 256 KiB-flash part: no f32-activation choice fits its RAM (arena 68,096 B);
  the converter keeps static int8, the only one that fits, and the written model is that
  choice, passes `focal verify`, and its `focal plan` arena is the one the table counted;
  it is, byte for byte, the static int8 example firmware's model
  (targets/cortex-m/examples/classify/models/classifier_static_int8.focal), which ctest
  example_classifier_static builds and runs under qemu on each Cortex-M core within 32 KiB
  of RAM and 256 KiB of flash, its self-test passing with the stack margin checked;
- a part twice that size: the most accurate whole-model choice that fits (int8 weights),
  not the smallest, then per layer: some dense weights back in f32 while the flash has
  room, more accurate than int8 weights alone, the written model passing `focal verify`;
- a 16 KiB-RAM part: refused, naming the nearest miss and its RAM over the part;
- a malformed part, and --fit with a type option of its own: refused, naming them.
Writes fit.focal and the cases into WORK_DIR for python_fit.
Usage: test_fit.py FOCAL SOURCE_DIR WORK_DIR"""

import json
import os
import re
import subprocess
import sys

import numpy as np

CASE = "rnn_classifier_kws_softmax4_e64_h64_a32_v1000"


def convert(focal, work, fit, *extra, out="scratch.focal"):
    case = f"{work}/{CASE}"
    return subprocess.run([focal, "convert", "--preset", "rnn-classifier", "--weights", f"{case}/weights.safetensors",
                           "--config", f"{case}/config.json", "--max-batch", "1", "--max-seq", "64", "--strict",
                           "--self-test", f"{work}/self_test", "--self-test-tolerance", "0.1", "--calibration",
                           f"{work}/calibration", "--fit", fit, *extra, "--json", "-o", f"{work}/{out}"],
                          capture_output=True, text=True)


def write_cases(root, work):
    os.makedirs(work, exist_ok=True)
    subprocess.run(["/usr/bin/python3", f"{root}/tests/models/make_rnn_reference.py", work], check=True,
                   capture_output=True)
    case = f"{work}/{CASE}"
    for sub in ("inputs", "expected"):  # the first sequence: the firmware plans for batch 1
        os.makedirs(f"{work}/self_test/{sub}", exist_ok=True)
        for name in os.listdir(f"{case}/{sub}"):
            np.save(f"{work}/self_test/{sub}/{name}", np.load(f"{case}/{sub}/{name}")[:1])
    os.makedirs(f"{work}/calibration", exist_ok=True)
    ids, mask = np.load(f"{case}/inputs/input_ids.npy"), np.load(f"{case}/inputs/attention_mask.npy")
    for row in range(ids.shape[0]):
        with open(f"{work}/calibration/sequence{row}.json", "w") as f:
            json.dump({"input_ids": ids[row:row + 1].tolist(), "attention_mask": mask[row:row + 1].tolist()}, f)


def chosen(report):
    picked = [c for c in report["choices"] if c.get("chosen")]
    assert len(picked) == 1, report
    return picked[0]


def check_64k_part(focal, root, work):
    done = convert(focal, work, "ram=64K,flash=256K", out="fit.focal")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["fit"]
    by_name = {c["choice"]: c for c in report["choices"]}
    assert not by_name["f32"]["fits"] and by_name["f32"]["ram_bytes"] > 65536, report
    assert all(not c["fits"] for c in report["choices"] if c["choice"] != "static int8"), report
    pick = chosen(report)
    assert pick["choice"] == "static int8" and pick["fits"], report
    assert pick["ram_bytes"] <= 65536 and pick["flash_bytes"] <= 262144, pick
    assert os.path.getsize(f"{work}/fit.focal") == pick["model_bytes"], pick
    with open(f"{work}/fit.focal", "rb") as f, \
            open(f"{root}/targets/cortex-m/examples/classify/models/classifier_static_int8.focal", "rb") as g:
        assert f.read() == g.read(), "--fit wrote other bytes than the static int8 example firmware's model"
    verify = subprocess.run([focal, "verify", f"{work}/fit.focal"], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    plan = subprocess.run([focal, "plan", f"{work}/fit.focal", "--symbol", "m"], capture_output=True, text=True,
                          check=True).stdout
    arena = int(re.search(r"m_arena_bytes = (\d+)ul", plan).group(1))
    assert arena == pick["arena_bytes"] and pick["ram_bytes"] == arena + 8192 + 1024, (arena, pick)
    assert "INT8_OPS Embedding Recurrent AttentionPool Dense" in plan, plan
    return report


def check_larger_part(focal, work):
    done = convert(focal, work, "ram=128K,flash=512K")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["fit"]
    whole = [c for c in report["choices"] if c["fits"] and "layer" not in c["choice"]]
    assert min(whole, key=lambda c: c["error"])["choice"] == "int8 weights", report
    pick = chosen(report)
    assert re.fullmatch(r"int8 weights, \d+ layers? f32", pick["choice"]), report
    assert pick["fits"] and pick["error"] < min(c["error"] for c in whole), report
    assert pick["options"].startswith("--dtype int8 (f32: "), pick
    verify = subprocess.run([focal, "verify", f"{work}/scratch.focal"], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def check_refusals(focal, work):
    done = convert(focal, work, "ram=16K,flash=256K")
    assert done.returncode == 1 and not os.path.exists(f"{work}/scratch.focal.tmp"), done
    assert "no choice fits the part; the nearest is static int8: RAM 23,232 B of 16,384 (6,848 over)" in done.stderr, \
        done.stderr
    for fit, words in (("ram=64Q,flash=256K", "'ram=64Q': a size is bytes"), ("flash=256K", "needs the part's RAM"),
                       ("ram=64K,flash=256K,heap=1K", "'heap=1K': unknown key")):
        done = convert(focal, work, fit)
        assert done.returncode != 0 and words in done.stderr, (fit, done.stderr)
    done = convert(focal, work, "ram=64K,flash=256K", "--dtype", "int8")
    assert done.returncode != 0 and "--fit chooses the weight and activation types itself" in done.stderr, done.stderr


def main(focal, root, work):
    write_cases(root, work)
    report = check_64k_part(focal, root, work)
    check_larger_part(focal, work)
    check_refusals(focal, work)
    for c in report["choices"]:
        print(f"{c['choice']:<24} RAM {c['ram_bytes']:>7,} flash {c['flash_bytes']:>8,} error {c['error']:.4f}"
              f"{'  chosen' if c['chosen'] else ''}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
