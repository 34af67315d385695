#!/usr/bin/python3
"""The bundled trained story model (demo/story) with int8 activations: converted with
`--dtype int8 --activations int8 --keep-f32 auto` (and --json), its greedy continuation of
each demo prompt over 64 tokens must equal the f32 model's at 60 or more positions. Also
checks the --json report (one entry per dense layer, the kept count it states, a self-test
that passed) and two refusals: --activations int8 without --dtype int8, and a --keep-f32
name that is no dense weight (the nearest named, every valid one listed).
Usage: test_int8_story.py FOCAL SOURCE_DIR WORK_DIR"""

import json
import os
import subprocess
import sys

TOKENS, REQUIRED = 64, 60


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def greedy(focal, model, prompt):
    out = run(focal, "generate", model, "--prompt", prompt, "--max-new", str(TOKENS), "--end-id", "-1", "--ids")
    return [int(x) for x in out.split()]


def main(focal, root, work):
    os.makedirs(work, exist_ok=True)
    s = f"{root}/demo/story"
    common = ["--preset", "gpt2", "--weights", f"{s}/model.safetensors", "--config", f"{s}/config.json",
              "--tokenizer", f"bpe:{s}/vocab.json:{s}/merges.txt"]
    f32, int8 = f"{work}/story_f32.focal", f"{work}/story_int8.focal"
    run(focal, "convert", *common, "-o", f32)
    report = json.loads(run(focal, "convert", *common, "--dtype", "int8", "--activations", "int8",
                            "--keep-f32", "auto", "--json", "-o", int8))
    layers = report["int8_activations"]["layers"]
    assert len(layers) == 4 * 6 + 1, len(layers)  # per block q, k, v, out, fc, proj; the tied head
    kept = [l["weight"] for l in layers if l["activations"] == "f32"]
    assert report["int8_activations"]["kept"] == len(kept)
    assert report["self_tests"] == 1 and report["self_test_worst_ratio"] <= 1.0
    worst = max(layers, key=lambda l: l["relative_rms_error"])
    print(f"int8 activations: {len(kept)} of {len(layers)} layers kept ({', '.join(kept) or 'none'}); "
          f"largest error {worst['relative_rms_error']:.4f} ({worst['weight']}), threshold "
          f"{report['int8_activations']['threshold']}")
    refused = subprocess.run([focal, "convert", *common, "--activations", "int8", "-o", f"{work}/refused.focal"],
                             capture_output=True, text=True)
    assert refused.returncode == 1 and "add --dtype int8" in refused.stderr, refused.stderr
    unknown = subprocess.run([focal, "convert", *common, "--dtype", "int8", "--activations", "int8", "--keep-f32",
                              "h.0.mlp.c_fc", "-o", f"{work}/refused.focal"], capture_output=True, text=True)
    assert unknown.returncode == 1 and "nearest: h.0.mlp.c_fc.weight[0:]" in unknown.stderr, unknown.stderr
    assert "\n  lm_head.weight (tied to wte)\n" in unknown.stderr, unknown.stderr  # int8 weights, f32 table: a copy
    for prompt in [l.strip() for l in open(f"{s}/prompts.txt") if l.strip()]:
        want, got = greedy(focal, f32, prompt), greedy(focal, int8, prompt)
        equal = sum(a == b for a, b in zip(want, got))
        prefix = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), TOKENS)
        print(f"{prompt!r}: {equal} of {TOKENS} greedy tokens equal to f32's (first {prefix} identical)")
        assert equal >= REQUIRED, (prompt, want, got)


if __name__ == "__main__":
    main(*sys.argv[1:])
