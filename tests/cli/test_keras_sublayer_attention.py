#!/usr/bin/python3
"""focal convert --preset keras-classifier on a Keras 2 save_weights file whose attention
layer is built from two Dense sublayers (the attention tutorial's BahdanauAttention:
self.W = Dense(units), self.V = Dense(1)), so its weights are
bahdanau_attention/dense/kernel:0 ... instead of attention/W:0. The preset does not read
that layout (yet); it must refuse it with an error naming the weights it expected and
what the file holds, never crash. Written with h5py in Keras 2's layout (root attribute
layer_names, a group per layer with attribute weight_names), as
tests/models/make_keras_reference.py does.
Usage: test_keras_sublayer_attention.py FOCAL_BINARY WORK_DIR"""
import os
import subprocess
import sys

import h5py
import numpy as np

focal, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(0)
VOCAB, EMBED, HIDDEN, UNITS = 50, 8, 20, 6


def weights(*shape):
    return (0.1 * rng.standard_normal(shape)).astype(np.float32)


def write_layer(f, layer, named):
    group = f.create_group(layer)
    group.attrs["weight_names"] = np.array([name.encode() for name in named], dtype="S")
    for name, value in named.items():
        group.create_dataset(name, data=value)


path = os.path.join(work, "bahdanau_sublayers.h5")
with h5py.File(path, "w") as f:
    f.attrs["layer_names"] = np.array([b"embedding", b"bidirectional", b"bahdanau_attention", b"dropout", b"dense_2"],
                                      dtype="S")
    f.attrs["backend"] = b"tensorflow"
    f.attrs["keras_version"] = b"2.15.0"
    write_layer(f, "embedding", {"embedding/embeddings:0": weights(VOCAB, EMBED)})
    cell = {}
    for direction, cell_name in (("forward", "lstm_cell_1"), ("backward", "lstm_cell_2")):
        prefix = f"bidirectional/{direction}_lstm/{cell_name}/"
        cell[prefix + "kernel:0"] = weights(EMBED, 4 * HIDDEN)
        cell[prefix + "recurrent_kernel:0"] = weights(HIDDEN, 4 * HIDDEN)
        cell[prefix + "bias:0"] = weights(4 * HIDDEN)
    write_layer(f, "bidirectional", cell)
    write_layer(f, "bahdanau_attention", {
        "bahdanau_attention/dense/kernel:0": weights(2 * HIDDEN, UNITS),
        "bahdanau_attention/dense/bias:0": weights(UNITS),
        "bahdanau_attention/dense_1/kernel:0": weights(UNITS, 1),
        "bahdanau_attention/dense_1/bias:0": weights(1)})
    write_layer(f, "dropout", {})
    write_layer(f, "dense_2", {"dense_2/kernel:0": weights(2 * HIDDEN, 1), "dense_2/bias:0": weights(1)})

config = os.path.join(work, "config.json")
with open(config, "w") as f:
    f.write('{"hidden": %d}\n' % HIDDEN)
r = subprocess.run([focal, "convert", "--preset", "keras-classifier", "--weights", path,
                    "--config", config, "-o", os.path.join(work, "out.focal")],
                   capture_output=True, text=True)
# A crash is a negative return code (the signal); an error is exit 1 with a message.
assert r.returncode == 1, (r.returncode, r.stderr)
for text in ("attention ... /W:0", "bahdanau_attention/bahdanau_attention/dense/kernel:0"):
    assert text in r.stderr, (text, r.stderr)
assert not os.path.exists(os.path.join(work, "out.focal"))
print("keras-classifier refuses the sublayer attention layout:", r.stderr.strip().splitlines()[-1])
