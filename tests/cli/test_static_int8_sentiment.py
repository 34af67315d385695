#!/usr/bin/python3
"""Issue 36's accuracy line on a trained model: the sentiment demo model (demo/sentiment,
demo/train_sentiment.py: embedding, BiLSTM 2 x 32, additive attention pooling, 2 classes),
converted twice, in f32 and with `--quantize static` calibrated on demo/sentiment/calibration
(32 training reviews), and run on the 2,000 held-out reviews of demo/sentiment/heldout.txt.
The int8 model must give the f32 model's argmax on at least 99% of them and probabilities
within 0.02; the f32 model must equal PyTorch's float64 probabilities within 1e-5.
Usage: test_static_int8_sentiment.py FOCAL SOURCE_DIR WORK_DIR"""

import json
import os
import subprocess
import sys

import numpy as np


def encode(demo):
    """ids and mask [N, longest] (int32) of the held-out reviews, the training script's way."""
    word_id = {w: i for i, w in enumerate(json.load(open(f"{demo}/vocab.json")))}
    lines = [line.rstrip("\n").split("\t") for line in open(f"{demo}/heldout.txt")]
    rows = [[word_id.get(w, 1) for w in text.split()] for _, text in lines]
    ids = np.zeros((len(rows), max(map(len, rows))), np.int32)
    mask = np.zeros_like(ids)
    for i, row in enumerate(rows):
        ids[i, :len(row)], mask[i, :len(row)] = row, 1
    labels = np.array([0 if label == "negative" else 1 for label, _ in lines])
    return ids, mask, labels


def convert(focal, demo, out, batch, extra):
    done = subprocess.run([focal, "convert", "--preset", "rnn-classifier", "--weights", f"{demo}/model.pt", "--config",
                           f"{demo}/config.json", "--max-batch", str(batch), "--max-seq", "48", *extra, "-o", out],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stderr


def probabilities(focal, model, work, name):
    out = subprocess.run([focal, "run", model, "--input", f"input_ids={work}/ids.npy", "--input",
                          f"attention_mask={work}/mask.npy", "--output-dir", f"{work}/{name}"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return np.load(f"{work}/{name}/probabilities.npy").astype(np.float64)


def measure(focal, demo, work):
    """Converts `demo` in f32 and static int8 (calibrated on demo/calibration), runs its
    held-out reviews through both: (f32 vs PyTorch float64, int8 argmax as f32's, largest
    |int8 - f32| probability, int8 accuracy, the conversion log)."""
    ids, mask, labels = encode(demo)
    np.save(f"{work}/ids.npy", ids), np.save(f"{work}/mask.npy", mask)
    convert(focal, demo, f"{work}/f32.focal", len(ids), [])
    log = convert(focal, demo, f"{work}/int8.focal", len(ids),
                  ["--quantize", "static", "--calibration", f"{demo}/calibration"])
    assert "the int8 model's own outputs, bit for bit" in log, log
    f32, int8 = probabilities(focal, f"{work}/f32.focal", work, "f32"), probabilities(focal, f"{work}/int8.focal", work, "int8")
    torch64 = np.load(f"{demo}/heldout_expected.npy")
    return (float(np.abs(f32 - torch64).max()), float((int8.argmax(1) == f32.argmax(1)).mean()),
            float(np.abs(int8 - f32).max()), float((int8.argmax(1) == labels).mean()), len(ids))


def main(focal, root, work):
    os.makedirs(work, exist_ok=True)
    f32_error, agree, worst, accuracy, count = measure(focal, f"{root}/demo/sentiment", work)
    print(f"{count} held-out reviews: f32 within {f32_error:.2e} of PyTorch float64; int8 activations: "
          f"argmax as f32 on {agree:.2%}, probabilities within {worst:.4f} of f32, accuracy {accuracy:.2%}")
    assert f32_error < 1e-5, f32_error
    assert agree >= 0.99, agree
    assert worst <= 0.02, worst


if __name__ == "__main__":
    main(*sys.argv[1:4])
