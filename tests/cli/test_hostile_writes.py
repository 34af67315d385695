#!/usr/bin/python3
"""Files the CLI writes are replaced whole or not at all: `focal convert -o`
naming an input is refused and the input is unchanged; a write that fails (the file size
limit, RLIMIT_FSIZE, stands in for a full disk, as it works for root too) leaves the old
model and header intact and no temporary behind; a process that has the old model mapped
keeps reading the old bytes after a convert over it.
Usage: test_hostile_writes.py FOCAL FOCAL_TEST_MODEL WORK_DIR"""
import mmap
import os
import resource
import signal
import sys

import numpy as np

from cli_support import expect, fresh_directory, read_bytes, run, write_mha_checkpoint


def limit_file_size(limit_bytes):
    """For the child: writes past `limit_bytes` fail with EFBIG (SIGXFSZ ignored)."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    return apply


def convert(focal, weights, config, out, *extra, **kwargs):
    return run(focal, "convert", "--preset", "torch-mha", "--weights", weights, "--config", config, *extra, "-o", out,
               **kwargs)


def no_temporaries(directory):
    return [name for name in os.listdir(directory) if name.startswith(".focal-")] == []


def check_output_naming_an_input_is_refused(focal, work, weights, config):
    checkpoint, settings = read_bytes(weights), read_bytes(config)
    alias = os.path.join(work, "config_link.json")
    os.link(config, alias)
    spelled = os.path.join(work, "..", os.path.basename(work), "mha.npz")
    for out in (weights, spelled, alias):
        expect(convert(focal, weights, config, out), 1, "refusing to overwrite")
    assert read_bytes(weights) == checkpoint and read_bytes(config) == settings
    print("convert: -o naming the checkpoint (two spellings) or the config (a hard link) refused, inputs unchanged")


def check_other_outputs_naming_their_input_are_refused(focal, tool, work):
    model = os.path.join(work, "input.focal")
    run(tool, model).check_returncode()
    original = read_bytes(model)
    expect(run(focal, "plan", model, "--symbol", "s", "-o", model), 1, "refusing to overwrite")
    matrix = os.path.join(work, "alignment.npy")
    np.save(matrix, np.eye(3, dtype=np.float32))
    saved = read_bytes(matrix)
    expect(run(focal, "attention", "--matrix", matrix, "--svg", matrix), 1, "refusing to overwrite")
    assert read_bytes(model) == original and read_bytes(matrix) == saved
    print("plan -o and attention --svg naming their input refused, the input unchanged")


def check_failed_writes_keep_the_old_file(focal, tool, work, weights, config):
    model = os.path.join(work, "model.focal")
    expect(convert(focal, weights, config, model), 0)
    good = read_bytes(model)
    failed = convert(focal, weights, config, model, "--max-seq", "4", preexec_fn=limit_file_size(len(good) // 2))
    assert failed.returncode == 1, failed.stderr
    assert read_bytes(model) == good and no_temporaries(work), os.listdir(work)

    tiny = os.path.join(work, "tiny.focal")
    run(tool, tiny).check_returncode()
    header = os.path.join(work, "tiny_plan.h")
    expect(run(focal, "plan", tiny, "--symbol", "old", "-o", header), 0)
    old_header = read_bytes(header)
    failed = run(focal, "plan", tiny, "--symbol", "new", "-o", header, preexec_fn=limit_file_size(64))
    expect(failed, 1, "cannot write")
    assert read_bytes(header) == old_header and no_temporaries(work), os.listdir(work)
    print("convert -o and plan -o: a failing write leaves the old file and no temporary")


def check_mapped_model_survives_a_convert_over_it(focal, work, weights, config):
    model = os.path.join(work, "mapped.focal")
    expect(convert(focal, weights, config, model), 0)
    with open(model, "rb") as f:
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    old = mapping[:]
    expect(convert(focal, weights, config, model, "--max-seq", "4", "--no-self-test"), 0)
    assert read_bytes(model) != old, "the second model should differ"
    assert mapping[:] == old, "the mapped bytes changed under the reader"
    mapping.close()
    print("convert over a mapped model: the mapping still reads the old model")


def main(focal, tool, work):
    fresh_directory(work)
    weights, config = write_mha_checkpoint(work)
    check_output_naming_an_input_is_refused(focal, work, weights, config)
    check_other_outputs_naming_their_input_are_refused(focal, tool, work)
    check_failed_writes_keep_the_old_file(focal, tool, work, weights, config)
    check_mapped_model_survives_a_convert_over_it(focal, work, weights, config)


if __name__ == "__main__":
    main(*sys.argv[1:])
