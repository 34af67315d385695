#!/usr/bin/python3
"""The Python module allocates nothing per run beyond what the C++ API does (which is
nothing: tests/test_zero_alloc.cpp): Session.run and Session.run_stage with outputs
written into caller-provided arrays, counted by malloc_counter.c loaded with LD_PRELOAD
(every malloc, calloc, realloc and aligned allocation of the process, Python's and
NumPy's included). As a check that the count sees the module, runs that return new arrays
must count allocations. Models: a golden BERT (three inputs), the bundled story decoder
(one-token steps on a KV cache), the bundled dates seq2seq model (its decode stage).
Usage: LD_PRELOAD=libmalloc_counter.so test_module_allocations.py COUNTER.so SOURCE_DIR"""
import ctypes
import sys

import numpy as np

import focal

RUNS = 100


def allocations_per(run, restart, counter):
    restart()
    run()  # warm: first-call caches (pybind11 type lookups, NumPy's dtype objects)
    run()
    before = counter.malloc_counter_allocations()
    for _ in range(RUNS):
        run()
    return (counter.malloc_counter_allocations() - before) / RUNS


def check(name, session, inputs, counter, stage=None, setup=lambda: None):
    """Runs of `inputs` (the whole graph, or one stage), each after `setup` ran once (not
    counted: a decoder's prefill, an encoder-decoder's encode stage)."""
    run = session.run if stage is None else (lambda i, **k: session.run_stage(stage, i, **k))
    setup()
    out = {n: np.empty_like(a) for n, a in run(inputs).items()}
    written = allocations_per(lambda: run(inputs, out=out), setup, counter)
    fresh = allocations_per(lambda: run(inputs), setup, counter)
    print(f"{name}: {written:g} allocations per run into caller arrays, {fresh:g} returning new arrays")
    assert written == 0, (name, written)
    assert fresh >= len(out) > 0, (name, fresh)  # the counter sees the module's own allocations


def main(counter_path, root):
    counter = ctypes.CDLL(counter_path)  # the preloaded copy: one counter
    counter.malloc_counter_allocations.restype = ctypes.c_long
    assert counter.malloc_counter_allocations() > 0, "run under LD_PRELOAD=" + counter_path
    bert = f"{root}/tests/goldens/bert_l2_d32_h4"
    model = focal.load(f"{bert}/model.focal")
    inputs = {t.name: np.load(f"{bert}/inputs/{t.name}.npy") for t in model.inputs}
    check("bert", focal.Session(model), inputs, counter)
    check("bert, 2 threads", focal.Session(model, threads=2), inputs, counter)
    s, d = f"{root}/demo/story", f"{root}/demo/dates"
    story = focal.load(focal.convert(preset="gpt2", weights=f"{s}/model.safetensors", config=f"{s}/config.json",
                                     self_test=False).bytes)
    decoder = focal.Session(story)
    prompt = {"input_ids": np.arange(1, 9, dtype=np.int32)[None]}
    # A prefill of 8, then RUNS + 3 steps of one token, within the planned context of 128.
    check("story decode step", decoder, {"input_ids": np.array([[9]], np.int32)}, counter,
          setup=lambda: (decoder.reset_state(), decoder.run(prompt)))
    dates = focal.load(focal.convert(preset="rnn-seq2seq", weights=f"{d}/model.pt", config=f"{d}/config.json",
                                     self_test=False).bytes)
    source = {"input_ids": np.array([[5, 6, 7, 8]], np.int32), "attention_mask": np.ones((1, 4), np.int32)}
    seq2seq = focal.Session(dates)
    check("dates decode stage", seq2seq, {"decoder_input_ids": np.array([1], np.int32)}, counter, stage="decode",
          setup=lambda: seq2seq.run_stage("encode", source))


if __name__ == "__main__":
    main(*sys.argv[1:3])
