#!/usr/bin/python3
"""Keras-layout .h5 weight files for the attention-pooled classifier cases that
make_reference's RNN script wrote (run it first): each OUT_DIR/<case>/ of family
rnn-classifier with a bidirectional LSTM gets weights_keras.h5, the same weights as
Keras's model.save_weights() lays them out (written with h5py; Debian has no
TensorFlow), so the keras-classifier preset must reproduce the PyTorch expected outputs.

Layout: root attribute layer_names; one group per layer with attribute weight_names and
datasets at <layer>/<weight name>:
  embedding/embedding/embeddings:0                            [V, E]
  bidirectional/bidirectional/forward_lstm/lstm_cell_1/kernel:0           [E, 4H] (= W_ih^T)
                                          .../recurrent_kernel:0          [H, 4H] (= W_hh^T)
                                          .../bias:0                      [4H] (= b_ih + b_hh)
  bidirectional/bidirectional/backward_lstm/lstm_cell_2/...               the same
  attention/attention/W:0 [2H, A], b:0 [A], v:0 [A, 1]
  dense/dense/kernel:0 [2H, C], bias:0 [C]
Keras's LSTM gates (i, f, c, o) are PyTorch's (i, f, g, o), so only transposes are needed.
The same weights also go into weights_keras3.keras, a Keras 3 archive (config.json,
metadata.json, model.weights.h5 as keras/src/saving/saving_lib.py writes them): each
layer's variables at layers/<snake_case class>/vars/<i> in creation order, the cells at
layers/bidirectional/{forward,backward}_layer/cell/vars/0..2 (kernel, recurrent_kernel,
bias), the attention layer's own W, b, v at layers/attention/vars/0..2.
Usage: make_keras_reference.py OUT_DIR
"""

import io
import json
import os
import sys
import zipfile

import h5py
import numpy as np


def write_layer(f, layer, weights):
    group = f.create_group(layer)
    group.attrs["weight_names"] = np.array([name.encode() for name in weights], dtype="S")
    for name, value in weights.items():
        group.create_dataset(name, data=np.asarray(value, dtype=np.float32))


def keras3_archive(path, w):
    f32 = {k: np.asarray(v, dtype=np.float32) for k, v in w.items()}
    groups = {"layers/embedding/vars": [f32["embedding.weight"]], "layers/attention/vars":
              [f32["attention.W.weight"].T, f32["attention.W.bias"], f32["attention.v.weight"].T],
              "layers/dense/vars": [f32["classifier.weight"].T, f32["classifier.bias"]]}
    for direction, suffix in (("forward", ""), ("backward", "_reverse")):
        groups[f"layers/bidirectional/{direction}_layer/cell/vars"] = [
            f32["lstm.weight_ih_l0" + suffix].T, f32["lstm.weight_hh_l0" + suffix].T,
            f32["lstm.bias_ih_l0" + suffix] + f32["lstm.bias_hh_l0" + suffix]]
    image = io.BytesIO()
    with h5py.File(image, "w") as f:
        for group, values in groups.items():
            g = f.create_group(group)
            for i, value in enumerate(values):
                g.create_dataset(str(i), data=value)
    layers = [{"module": "keras.layers", "class_name": cls, "config": {"name": name}, "name": name}
              for cls, name in (("Embedding", "embedding"), ("Bidirectional", "bidirectional"), ("Dense", "dense"))]
    layers.insert(2, {"module": None, "class_name": "Attention", "config": {"name": "attention"},
                      "registered_name": "Attention", "name": "attention"})
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("metadata.json", json.dumps({"keras_version": "3.3.3"}))
        archive.writestr("config.json", json.dumps({"module": "keras", "class_name": "Functional",
                                                    "config": {"name": "functional", "layers": layers}}))
        archive.writestr("model.weights.h5", image.getvalue())


def keras_file(case_dir):
    w = dict(np.load(os.path.join(case_dir, "weights.npz")))
    if "lstm.weight_ih_l0_reverse" not in w:
        return False
    cell = {}
    for direction, suffix, cell_name in (("forward", "", "lstm_cell_1"), ("backward", "_reverse", "lstm_cell_2")):
        prefix = f"bidirectional/{direction}_lstm/{cell_name}/"
        cell[prefix + "kernel:0"] = w["lstm.weight_ih_l0" + suffix].T
        cell[prefix + "recurrent_kernel:0"] = w["lstm.weight_hh_l0" + suffix].T
        cell[prefix + "bias:0"] = w["lstm.bias_ih_l0" + suffix] + w["lstm.bias_hh_l0" + suffix]
    with h5py.File(os.path.join(case_dir, "weights_keras.h5"), "w") as f:
        f.attrs["layer_names"] = np.array([b"embedding", b"bidirectional", b"attention", b"dense"], dtype="S")
        f.attrs["backend"] = b"tensorflow"
        write_layer(f, "embedding", {"embedding/embeddings:0": w["embedding.weight"]})
        write_layer(f, "bidirectional", cell)
        write_layer(f, "attention", {"attention/W:0": w["attention.W.weight"].T, "attention/b:0": w["attention.W.bias"],
                                     "attention/v:0": w["attention.v.weight"].T})
        write_layer(f, "dense", {"dense/kernel:0": w["classifier.weight"].T, "dense/bias:0": w["classifier.bias"]})
    with h5py.File(os.path.join(case_dir, "weights_keras.h5"), "r") as f:  # read back: exact
        assert np.array_equal(f["dense/dense/kernel:0"][()], w["classifier.weight"].T)
    keras3_archive(os.path.join(case_dir, "weights_keras3.keras"), w)
    return True


def main(out_dir):
    written = 0
    for name in sorted(os.listdir(out_dir)):
        case_dir = os.path.join(out_dir, name)
        case_file = os.path.join(case_dir, "case.json")
        if not os.path.exists(case_file) or json.load(open(case_file))["family"] != "rnn-classifier":
            continue
        written += keras_file(case_dir)
    print(f"wrote {written} Keras .h5 weight files and as many .keras archives")
    assert written >= 1


if __name__ == "__main__":
    main(sys.argv[1])
