"""The Keras attention classifier of the tutorial seed (Embedding -> Bidirectional(LSTM(H,
return_sequences=True)) -> BahdanauAttention(A) built from two Dense sublayers ->
Dropout -> Dense(C, sigmoid)) without TensorFlow (Debian has none): its weights as Keras
holds them, the files Keras writes from them (written with h5py and zipfile), and a NumPy
float64 forward pass written from Keras's source:
  Embedding      keras/src/layers/core/embedding.py call: ops.take(embeddings, ids).
  LSTM           keras/src/layers/rnn/lstm.py LSTMCell.call (implementation 2, the fused
                 one; 1 is the same sums split by gate): z = x @ kernel + h @ recurrent_kernel
                 + bias, split into i, f, c, o; i = sigmoid(z_i), f = sigmoid(z_f),
                 c = f * c + i * tanh(z_c), o = sigmoid(z_o), h = o * tanh(c)
                 (activation tanh, recurrent_activation sigmoid: the defaults); zero initial
                 state (keras/src/layers/rnn/rnn.py get_initial_state).
  Bidirectional  keras/src/layers/rnn/bidirectional.py call: the backward layer
                 (go_backwards=True) reads the sequence reversed; with return_sequences its
                 output is flipped back in time (ops.flip(y_rev, axis=1)), merge_mode concat:
                 [y; y_rev].
  the attention  the seed's BahdanauAttention.call: score = V(tanh(W(h))) with Dense
                 (keras/src/layers/core/dense.py: x @ kernel + bias), softmax over axis 1
                 (time), context = sum over time of weights * h.
  Dropout        identity at inference; Dense(C, sigmoid): sigmoid(context @ kernel + bias).
The seed pads with pad_sequences (zeros in front, 'pre') and its Embedding has no
mask_zero, so Keras runs the padding tokens like any other: the reference takes every
position (the converted model gets attention_mask all 1s).

File layouts, confirmed from Keras's source:
  Keras 2 save_weights .h5 (keras/src/legacy/saving/legacy_h5_format.py
  save_weights_to_hdf5_group): root attributes layer_names, backend, keras_version; a group
  per layer (sorted by name) with attribute weight_names and a dataset per weight at
  <layer>/<weight.name>, the name scoped by the layer, so the sublayer Dense's kernel is
  bahdanau_attention/bahdanau_attention/dense/kernel:0; then an empty
  top_level_model_weights group. model.save("m.h5") puts the same under model_weights/
  and the optimizer's slots under optimizer_weights/.
  Keras 3 .keras (keras/src/saving/saving_lib.py _save_model_to_fileobj, _save_state,
  _save_container_state, H5IOStore/H5Entry): a zip of metadata.json, config.json and
  model.weights.h5; in it every saveable writes its own variables to <path>/vars/<i> (a
  vars group even when it has none), a Functional model's layers at layers/<snake_case
  class name>[_<n>] (not the layer's name), their sublayers under attribute names
  (sorted): layers/bidirectional/forward_layer/cell/vars/0..2,
  layers/bahdanau_attention/W/vars/0..1, ...; the optimizer at optimizer/vars/<i>.
"""
import io
import json
import zipfile

import h5py
import numpy as np


def seed_weights(rng, vocab, embed, hidden, units, classes=1, scale=0.4, cell="lstm"):
    """The model's variables as Keras holds them; cell "gru" swaps the LSTM for a GRU
    (reset_after=True, the default: bias [2, 3H], input then recurrent)."""
    def w(*shape):
        return (scale * rng.standard_normal(shape)).astype(np.float32)

    gates = 4 if cell == "lstm" else 3
    weights = {"cell": cell, "embeddings": w(vocab, embed)}
    for direction in ("forward", "backward"):
        weights[direction] = {"kernel": w(embed, gates * hidden), "recurrent_kernel": w(hidden, gates * hidden),
                              "bias": w(4 * hidden) if cell == "lstm" else w(2, 3 * hidden)}
    weights["W"] = {"kernel": w(2 * hidden, units), "bias": w(units)}
    weights["V"] = {"kernel": w(units, 1), "bias": w(1)}
    weights["dense"] = {"kernel": w(2 * hidden, classes), "bias": w(classes)}
    return weights


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm(x, cell, reverse=False):
    """x [B, S, E] -> h for every step [B, S, H], in the order the steps were read."""
    kernel, recurrent, bias = (cell[k].astype(np.float64) for k in ("kernel", "recurrent_kernel", "bias"))
    hidden = recurrent.shape[0]
    h = np.zeros((x.shape[0], hidden))
    c = np.zeros((x.shape[0], hidden))
    steps = range(x.shape[1] - 1, -1, -1) if reverse else range(x.shape[1])
    out = []
    for t in steps:
        z = x[:, t] @ kernel + h @ recurrent + bias
        i, f, g, o = (z[:, k * hidden:(k + 1) * hidden] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        out.append(h)
    return np.stack(out, 1)


def gru(x, cell, reverse=False):
    """keras/src/layers/rnn/gru.py GRUCell.call with reset_after=True: x_z, x_r, x_h =
    split(x @ kernel + input_bias), r_z, r_r, r_h = split(h @ recurrent_kernel +
    recurrent_bias); z = sigmoid(x_z + r_z), r = sigmoid(x_r + r_r),
    hh = tanh(x_h + r * r_h), h = z * h + (1 - z) * hh."""
    kernel, recurrent, bias = (cell[k].astype(np.float64) for k in ("kernel", "recurrent_kernel", "bias"))
    hidden = recurrent.shape[0]
    h = np.zeros((x.shape[0], hidden))
    steps = range(x.shape[1] - 1, -1, -1) if reverse else range(x.shape[1])
    out = []
    for t in steps:
        mx = x[:, t] @ kernel + bias[0]
        mh = h @ recurrent + bias[1]
        z = sigmoid(mx[:, :hidden] + mh[:, :hidden])
        r = sigmoid(mx[:, hidden:2 * hidden] + mh[:, hidden:2 * hidden])
        hh = np.tanh(mx[:, 2 * hidden:] + r * mh[:, 2 * hidden:])
        h = z * h + (1 - z) * hh
        out.append(h)
    return np.stack(out, 1)


def forward(weights, ids):
    """ids [B, S] -> logits [B, C], probabilities [B, C], attention [B, S], in float64."""
    x = weights["embeddings"].astype(np.float64)[ids]
    run = lstm if weights["cell"] == "lstm" else gru
    y = run(x, weights["forward"])
    y_rev = run(x, weights["backward"], reverse=True)[:, ::-1]  # ops.flip(y_rev, axis=1)
    states = np.concatenate([y, y_rev], -1)

    def dense(v, layer):
        return v @ weights[layer]["kernel"].astype(np.float64) + weights[layer]["bias"].astype(np.float64)

    score = dense(np.tanh(dense(states, "W")), "V")[..., 0]  # [B, S]
    score = np.exp(score - score.max(1, keepdims=True))
    attention = score / score.sum(1, keepdims=True)
    context = (attention[..., None] * states).sum(1)
    logits = dense(context, "dense")
    return {"logits": logits, "probabilities": sigmoid(logits), "attention": attention}


def keras2_weights(weights):
    """(layer, {weight name: value}) in model order, the names Keras 2 gives them."""
    cells = {}
    kind = weights["cell"]
    for direction, cell in (("forward", f"{kind}_cell_1"), ("backward", f"{kind}_cell_2")):
        for k in ("kernel", "recurrent_kernel", "bias"):
            cells[f"bidirectional/{direction}_{kind}/{cell}/{k}:0"] = weights[direction][k]
    return [("input_1", {}),
            ("embedding", {"embedding/embeddings:0": weights["embeddings"]}),
            ("bidirectional", cells),
            ("bahdanau_attention", {f"bahdanau_attention/{dense}/{k}:0": weights[layer][k]
                                    for dense, layer in (("dense", "W"), ("dense_1", "V"))
                                    for k in ("kernel", "bias")}),
            ("dropout", {}),
            ("dense_2", {f"dense_2/{k}:0": weights["dense"][k] for k in ("kernel", "bias")})]


def write_weight_groups(root, layers):
    root.attrs["layer_names"] = np.array([name.encode() for name, _ in layers], dtype="S")
    root.attrs["backend"] = b"tensorflow"
    root.attrs["keras_version"] = b"2.15.0"
    for layer, named in sorted(layers):
        group = root.create_group(layer)
        group.attrs["weight_names"] = np.array([name.encode() for name in named], dtype="S")
        for name, value in named.items():
            group.create_dataset(name, data=value)
    root.create_group("top_level_model_weights").attrs["weight_names"] = np.array([], dtype="S")


def write_keras2_h5(path, weights, whole_model=False):
    """save_weights layout, or (whole_model) model.save's: model_weights/ plus Adam's slots."""
    with h5py.File(path, "w") as f:
        layers = keras2_weights(weights)
        if not whole_model:
            write_weight_groups(f, layers)
            return
        f.attrs["model_config"] = json.dumps({"class_name": "Functional"})
        write_weight_groups(f.create_group("model_weights"), layers)
        slots = f.create_group("optimizer_weights")
        slots.create_dataset("Adam/iter:0", data=np.int64(120))
        for _, named in layers:
            for name, value in named.items():
                for slot in ("m", "v"):
                    slots.create_dataset(f"Adam/{name[:-2]}/{slot}:0", data=np.zeros_like(value))


def keras3_config(weights, seq):
    vocab, embed = weights["embeddings"].shape
    hidden, units = weights["forward"]["recurrent_kernel"].shape[0], weights["W"]["kernel"].shape[1]
    classes = weights["dense"]["kernel"].shape[1]

    def layer(cls, config, module="keras.layers"):
        return {"module": module, "class_name": cls, "config": config, "registered_name": None if module else cls,
                "name": config["name"]}

    kind = weights["cell"]
    lstm_config = {"name": f"forward_{kind}", "trainable": True, "dtype": "float32", "return_sequences": True,
                   "return_state": False, "go_backwards": False, "stateful": False, "unroll": False,
                   "zero_output_for_mask": True, "units": hidden, "activation": "tanh",
                   "recurrent_activation": "sigmoid", "use_bias": True, "dropout": 0.0, "recurrent_dropout": 0.0}
    lstm_config.update({"unit_forget_bias": True} if kind == "lstm" else {"reset_after": True})
    backward = dict(lstm_config, name=f"backward_{kind}", go_backwards=True)
    cls = "LSTM" if kind == "lstm" else "GRU"
    layers = [layer("InputLayer", {"batch_shape": [None, seq], "dtype": "float32", "sparse": False,
                                   "name": "input_layer"}),
              layer("Embedding", {"name": "embedding", "trainable": True, "dtype": "float32",
                                  "input_dim": int(vocab), "output_dim": int(embed), "mask_zero": False}),
              layer("Bidirectional", {"name": "bidirectional", "trainable": True, "dtype": "float32",
                                      "merge_mode": "concat", "layer": layer(cls, lstm_config),
                                      "backward_layer": layer(cls, backward)}),
              layer("BahdanauAttention", {"name": "bahdanau_attention", "trainable": True, "dtype": "float32",
                                          "units": int(units)}, module=None),
              layer("Dropout", {"name": "dropout", "trainable": True, "dtype": "float32", "rate": 0.5}),
              layer("Dense", {"name": "dense_2", "trainable": True, "dtype": "float32", "units": int(classes),
                              "activation": "sigmoid", "use_bias": True})]
    return {"module": "keras", "class_name": "Functional",
            "config": {"name": "functional", "trainable": True, "layers": layers,
                       "input_layers": [["input_layer", 0, 0]], "output_layers": [["dense_2", 0, 0]]},
            "registered_name": "Functional",
            "compile_config": {"optimizer": "adam", "loss": "binary_crossentropy", "metrics": ["accuracy"]}}


def keras3_vars(weights):
    """{h5 path of the vars group: [values in creation order]} as _save_state writes them."""
    cell = [weights["forward"][k] for k in ("kernel", "recurrent_kernel", "bias")]
    back = [weights["backward"][k] for k in ("kernel", "recurrent_kernel", "bias")]
    groups = {"vars": [], "layers/input_layer/vars": [], "layers/embedding/vars": [weights["embeddings"]],
              "layers/bidirectional/vars": [], "layers/bidirectional/backward_layer/vars": [],
              "layers/bidirectional/backward_layer/cell/vars": back,
              "layers/bidirectional/forward_layer/vars": [],
              "layers/bidirectional/forward_layer/cell/vars": cell,
              "layers/bahdanau_attention/vars": [],
              "layers/bahdanau_attention/V/vars": [weights["V"]["kernel"], weights["V"]["bias"]],
              "layers/bahdanau_attention/W/vars": [weights["W"]["kernel"], weights["W"]["bias"]],
              "layers/dropout/vars": [],
              "layers/dense/vars": [weights["dense"]["kernel"], weights["dense"]["bias"]]}
    slots = [np.array(120, dtype=np.int64), np.array(1e-3, dtype=np.float32)]
    for values in list(groups.values()):
        for value in values:
            slots += [np.zeros_like(value), np.zeros_like(value)]  # Adam's m and v
    groups["optimizer/vars"] = slots
    return groups


def write_keras3_weights(target, weights):
    """model.weights.h5 as H5IOStore writes it (to a path or a file object); Keras 3's
    model.save_weights("m.weights.h5") writes the same file on its own."""
    with h5py.File(target, "w") as f:
        for group, values in keras3_vars(weights).items():
            g = f.create_group(group)
            for i, value in enumerate(values):
                g.create_dataset(str(i), data=value)


def write_keras3_archive(path, weights, seq):
    image = io.BytesIO()
    write_keras3_weights(image, weights)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("metadata.json", json.dumps({"keras_version": "3.3.3", "date_saved": "2024-06-01@12:00:00"}))
        archive.writestr("config.json", json.dumps(keras3_config(weights, seq)))
        archive.writestr("model.weights.h5", image.getvalue())
