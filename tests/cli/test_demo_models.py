#!/usr/bin/python3
"""The bundled trained models (demo/): converted by `focal convert` and run by `focal
generate`, they reproduce what PyTorch produced when they were trained (demo/dates/
examples_expected.txt, demo/story/prompts_expected.txt, token for token), and the dates
model's attention lands on the aligned source character: for each output digit, the argmax
of its attention over the source must be one of the source positions it is derived from
(demo/dates/examples_alignment.json lists them), on at least 90% of those steps.
Usage: test_demo_models.py FOCAL SOURCE_DIR WORK_DIR"""

import json
import os
import subprocess
import sys

import numpy as np


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def main(focal, root, work):
    os.makedirs(work, exist_ok=True)
    dates, story = f"{work}/dates.focal", f"{work}/story.focal"
    d = f"{root}/demo/dates"
    run(focal, "convert", "--preset", "rnn-seq2seq", "--weights", f"{d}/model.pt", "--config", f"{d}/config.json",
        "--tokenizer", f"chars:{d}/vocab.json:source:lowercase", "--target-tokenizer", f"chars:{d}/vocab.json:target",
        "-o", dates)
    sources = [l.rstrip("\n") for l in open(f"{d}/examples.txt") if l.strip()]
    expected = [l.rstrip("\n") for l in open(f"{d}/examples_expected.txt") if l.strip()]
    alignment = json.load(open(f"{d}/examples_alignment.json"))["examples"]
    checked = sensible = 0
    for i, (source, want) in enumerate(zip(sources, expected)):
        got = run(focal, "generate", dates, "--source", source, "--max-new", "12",
                  "--attention-out", f"{work}/a{i}.npy").strip()
        assert got == want, f"{source!r}: focal {got!r}, PyTorch {want!r}"
        weights = np.load(f"{work}/a{i}.npy")
        for t, step in enumerate(alignment[i]["steps"]):
            if "sensible" not in step:
                continue  # separators and the end token have no single source character
            checked += 1
            sensible += int(int(weights[t].argmax()) in step["sensible"])
    fraction = sensible / checked
    print(f"dates: {len(sources)} examples as PyTorch; attention on an aligned source character for "
          f"{sensible} of {checked} output digits ({100 * fraction:.1f}%)")
    assert fraction >= 0.9, fraction

    s = f"{root}/demo/story"
    run(focal, "convert", "--preset", "gpt2", "--weights", f"{s}/model.safetensors", "--config", f"{s}/config.json",
        "--tokenizer", f"bpe:{s}/vocab.json:{s}/merges.txt", "-o", story)
    for line in open(f"{s}/prompts_expected.txt"):
        case = json.loads(line)
        ids = run(focal, "generate", story, "--prompt", case["prompt"], "--max-new", str(len(case["continuation_ids"])),
                  "--end-id", "-1", "--ids").split()
        assert [int(x) for x in ids] == case["continuation_ids"], case["prompt"]
        text = run(focal, "generate", story, "--prompt", case["prompt"], "--max-new",
                   str(len(case["continuation_ids"])), "--end-id", "-1")
        assert text.rstrip("\n") == case["continuation"], (text, case["continuation"])
        print(f"story: {case['prompt']!r} continues as PyTorch did ({len(ids)} tokens)")


if __name__ == "__main__":
    main(*sys.argv[1:])
