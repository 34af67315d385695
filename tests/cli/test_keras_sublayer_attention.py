#!/usr/bin/python3
"""focal convert --preset keras-classifier, as a user types it, on the Keras tutorial's
model (an attention layer built from two Dense sublayers: self.W = Dense(units),
self.V = Dense(1), so its Keras 2 weights are
bahdanau_attention/bahdanau_attention/dense/kernel:0 ...), with no config: from a Keras 2
save_weights .h5 and from a Keras 3 .keras archive (tests/models/keras_seed_files.py
writes both as Keras lays them out). focal run's outputs match the NumPy float64
reference within 1e-4. A file whose attention layer has neither layout (one Dense
sublayer and a weight of its own) is refused, exit 1, with an error listing the file's
layers and naming the layouts read, never a crash, and nothing is written.
Usage: test_keras_sublayer_attention.py FOCAL_BINARY WORK_DIR"""
import os
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
import keras_seed_files as keras  # noqa: E402

focal, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(0)
VOCAB, EMBED, HIDDEN, UNITS, SEQ = 50, 8, 20, 6, 9
weights = keras.seed_weights(rng, VOCAB, EMBED, HIDDEN, UNITS)
ids = rng.integers(0, VOCAB, (2, SEQ)).astype(np.int32)
inputs = os.path.join(work, "inputs")
os.makedirs(inputs, exist_ok=True)
np.save(os.path.join(inputs, "input_ids.npy"), ids)
want = keras.forward(weights, ids)


def convert(path, out):
    return subprocess.run([focal, "convert", "--preset", "keras-classifier", "--weights", path,
                           "--max-seq", str(SEQ), "--max-batch", "2", "-o", out], capture_output=True, text=True)


def check_converts(path):
    out = path + ".focal"
    r = convert(path, out)
    assert r.returncode == 0, (path, r.returncode, r.stderr)
    out_dir = out + ".out"
    # The Keras model's one input, by its name here: the tutorial's model has no mask.
    r = subprocess.run([focal, "run", out, "--input", "input_ids=" + os.path.join(inputs, "input_ids.npy"),
                        "--output-dir", out_dir], capture_output=True, text=True)
    assert r.returncode == 0, (r.returncode, r.stderr)
    for name in ("logits", "probabilities", "attention"):
        got = np.load(os.path.join(out_dir, name + ".npy"))
        error = np.abs(got - want[name]).max()
        assert got.shape == want[name].shape and error <= 1e-4, (path, name, got.shape, error)
    print(f"{os.path.basename(path)} converts (no config) and runs within 1e-4: probabilities "
          f"{np.load(os.path.join(out_dir, 'probabilities.npy'))[:, 0]}")


nested = os.path.join(work, "bahdanau_sublayers.h5")
keras.write_keras2_h5(nested, weights)
with h5py.File(nested, "r") as f:  # the nested sublayer name the tutorial's layer gets
    assert "bahdanau_attention/bahdanau_attention/dense/kernel:0" in f
check_converts(nested)
archive = os.path.join(work, "imdb.keras")
keras.write_keras3_archive(archive, weights, SEQ)
check_converts(archive)

# An attention layer of neither layout: one Dense sublayer and a score vector of its own.
unknown = os.path.join(work, "unknown_attention.h5")
layers = [(name, named) for name, named in keras.keras2_weights(weights)]
layers[3] = ("my_attention", {"my_attention/query/kernel:0": weights["W"]["kernel"],
                              "my_attention/score:0": weights["V"]["kernel"]})
with h5py.File(unknown, "w") as f:
    keras.write_weight_groups(f, layers)
out = os.path.join(work, "unknown.focal")
r = convert(unknown, out)
# A crash is a negative return code (the signal); an error is exit 1 with a message.
assert r.returncode == 1, (r.returncode, r.stderr)
for text in ("no attention layer", "two Dense sublayers", "layers: bidirectional, dense_2, embedding, my_attention"):
    assert text in r.stderr, (text, r.stderr)
assert not os.path.exists(out)
print("an unknown attention layout is refused:", r.stderr.strip().splitlines()[-1])
