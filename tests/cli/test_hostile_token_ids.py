#!/usr/bin/python3
"""Integer inputs reach i32 tensors exactly, never through float: ids
above 2^24 keep their value, ids beyond int32 are refused naming the input and the value,
for `focal run` and for `focal convert --self-test DIR`.
Usage: test_hostile_token_ids.py FOCAL SOURCE_DIR WORK_DIR"""
import os
import sys

import numpy as np

from cli_support import expect, fresh_directory, run, write_mha_checkpoint


def save(work, name, array):
    path = os.path.join(work, name + ".npy")
    np.save(path, array)
    return path


def check_run(focal, root, work):
    bert = f"{root}/tests/goldens/bert_l2_d32_h4/model.focal"
    mask = save(work, "mask", np.ones((1, 4), dtype=np.int64))
    types = save(work, "types", np.zeros((1, 4), dtype=np.int64))

    def run_bert(ids):
        return run(focal, "run", bert, "--input", "input_ids=" + save(work, "ids", np.array([ids], dtype=np.int64)),
                   "--input", "attention_mask=" + mask, "--input", "token_type_ids=" + types,
                   "--output-dir", os.path.join(work, "out"))

    expect(run_bert([1, 2, 3, 2**31]), 1, "input 'input_ids'", "element 3 is 2147483648, outside int32")
    expect(run_bert([1, 2, -2**31 - 1, 3]), 1, "input 'input_ids'", "element 2 is -2147483649, outside int32")
    # Exact: the engine's vocabulary check sees 2^24 + 1, not the float 2^24.
    expect(run_bert([1, 2, 3, 2**24 + 1]), 1, "16777217")
    print("run: ids beyond int32 refused by input and value; 2^24 + 1 stays exact")


def check_convert_self_test(focal, work):
    weights, config = write_mha_checkpoint(work)
    out = os.path.join(work, "mha.focal")
    self_test = os.path.join(work, "self_test")
    os.makedirs(os.path.join(self_test, "inputs"), exist_ok=True)
    rng = np.random.default_rng(1)
    for name in ("query", "key_value"):
        save(os.path.join(self_test, "inputs"), name, rng.uniform(-1, 1, (1, 4, 8)).astype(np.float32))

    def convert_with_mask(mask):
        save(os.path.join(self_test, "inputs"), "key_padding_mask", mask)  # PyTorch's: 1 = pad
        return run(focal, "convert", "--preset", "torch-mha", "--weights", weights, "--config", config,
                   "--self-test", self_test, "-o", out)

    expect(convert_with_mask(np.array([[0, 0, 0, 2**31]], dtype=np.int64)), 1, "key_padding_mask",
           "element 3 is 2147483648, outside int32")
    expect(convert_with_mask(np.array([[0, 0, 0.5, 1]], dtype=np.float32)), 1, "element 2 is 0.5, not an int32")
    assert not os.path.exists(out)
    expect(convert_with_mask(np.array([[0, 0, 0, 1]], dtype=np.float32)), 0)  # whole floats are exact
    print("convert --self-test: a mask beyond int32 or fractional refused; whole floats taken")


def main(focal, root, work):
    fresh_directory(work)
    check_run(focal, root, work)
    check_convert_self_test(focal, work)


if __name__ == "__main__":
    main(*sys.argv[1:])
