#!/usr/bin/python3
"""Every file the CLI and the converter read must be a regular file: a
FIFO is refused instead of blocking in open() forever, a directory with a message
instead of std::bad_alloc.
Usage: test_hostile_file_kinds.py FOCAL FOCAL_TEST_MODEL WORK_DIR"""
import os
import sys

import numpy as np

from cli_support import expect, fresh_directory, run, write_mha_checkpoint


def main(focal, tool, work):
    fresh_directory(work)
    fifo, directory = os.path.join(work, "fifo"), os.path.join(work, "directory")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    os.makedirs(directory, exist_ok=True)
    tiny = os.path.join(work, "tiny.focal")
    run(tool, tiny).check_returncode()
    weights, config = write_mha_checkpoint(work)
    # --self-test DIR whose input is a FIFO.
    self_test = os.path.join(work, "self_test")
    os.makedirs(os.path.join(self_test, "inputs"), exist_ok=True)
    for name in ("query", "key_value"):
        np.save(os.path.join(self_test, "inputs", name + ".npy"), np.zeros((1, 4, 8), dtype=np.float32))
    mask = os.path.join(self_test, "inputs", "key_padding_mask.npy")
    if not os.path.exists(mask):
        os.mkfifo(mask)

    out = os.path.join(work, "never.focal")
    convert = ["convert", "--preset", "torch-mha", "-o", out]
    cases = []
    for bad in (fifo, directory):
        cases += [
            ["inspect", bad], ["verify", bad], ["plan", bad, "--symbol", "s"],
            ["run", tiny, "--input", "x=" + bad, "--output-dir", os.path.join(work, "out")],
            ["attention", "--matrix", bad, "--svg", os.path.join(work, "a.svg")],
            convert + ["--weights", bad, "--config", config],
            convert + ["--weights", weights, "--config", bad],
            convert + ["--weights", weights, "--config", config, "--tokenizer", "chars:" + bad],
            ["convert", "--spec", bad, "--weights", weights, "-o", out],
        ]
    cases.append(convert + ["--weights", weights, "--config", config, "--self-test", self_test])
    for args in cases:
        expect(run(focal, *args), 1, "is not a regular file")
    assert not os.path.exists(out)
    print(f"{len(cases)} reads of a FIFO or a directory refused as not a regular file")


if __name__ == "__main__":
    main(*sys.argv[1:])
