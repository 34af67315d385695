#!/usr/bin/python3
"""Attention-pooled RNN classifiers as people save them, for the rnn-classifier and
keras-classifier presets reading sizes from the tensors (config.json: at most max_len).

PyTorch cases (family rnn-classifier; float64 PyTorch reference, ragged padded batch):
  rnn_classifier_fc_wrapped_lstm_bi_l2_...  a wrapper module (keys under `model.`): embedding
      nn.Embedding(V, E); encoder nn.LSTM(E, H, num_layers=2, bidirectional=True) (its name
      says nothing of the cell: the gate count does); attention.attn nn.Linear(2H, A),
      attention.v nn.Linear(A, 1) with a bias (it cancels in the softmax); fc nn.Linear(2H, 3).
  rnn_classifier_fc_gru_bi_...  embedding; gru nn.GRU(E, H, bidirectional=True); attn.W
      nn.Linear(2H, A), attn.v nn.Linear(A, 1, bias=False); fc nn.Linear(2H, 1) (sigmoid).
  a = softmax over the valid s of v(tanh(W h_s)), pooled = sum_s a_s h_s, logits =
  fc(pooled), probabilities = sigmoid (C == 1) or softmax. Inputs input_ids,
  attention_mask [B, S]; expected logits, probabilities [B, C], attention [B, S].

Keras cases (family keras-classifier): the tutorial seed's model (keras_seed_files.py) with
vocab 53, embed 10, LSTM 14, units 6 (and once with a GRU of 11 in its place), as a Keras 2
save_weights .h5, a Keras 2 model.save .h5 (with the optimizer's slots), a Keras 3
.keras archive and a Keras 3 save_weights .weights.h5; expected
outputs from the NumPy float64 re-implementation of Keras's layers, checked here against
the same model run through torch.nn.LSTM / nn.GRU (Keras's kernels transposed, an LSTM's
one bias as bias_ih, a GRU's gates reordered) to 1e-9.
Usage: make_classifier_reference.py OUT_DIR
"""
import copy
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_seed_files as keras  # noqa: E402
import make_reference as ref  # noqa: E402
import make_rnn_reference as rnn  # noqa: E402  (run_rnn: packed ragged runs, masked_softmax)

BASE_SEED = 20241201
BATCH = 3
STDS = {"default": 0.4, "embedding": 1.0, "att": 0.6, "fc": 1.0}


class Pooling(nn.Module):
    def __init__(self, width, units, w_name, v_bias):
        super().__init__()
        self.w_name = w_name
        setattr(self, w_name, nn.Linear(width, units))
        self.v = nn.Linear(units, 1, bias=v_bias)

    def forward(self, states, mask):
        scores = self.v(torch.tanh(getattr(self, self.w_name)(states)))[..., 0]
        return rnn.masked_softmax(scores, mask)


class AttentionClassifier(nn.Module):
    def __init__(self, c):
        super().__init__()
        cell = nn.LSTM if c["cell"] == "lstm" else nn.GRU
        E, H, width = c["embedding"], c["hidden"], 2 * c["hidden"]
        self.embedding = nn.Embedding(c["vocab"], E)
        setattr(self, c["rnn_name"], cell(E, H, num_layers=c["layers"], bidirectional=True, batch_first=True))
        setattr(self, c["attention_name"], Pooling(width, c["units"], c["w_name"], c["v_bias"]))
        self.fc = nn.Linear(width, c["classes"])
        self.names = (c["rnn_name"], c["attention_name"])

    def forward(self, input_ids, attention_mask):
        states, _, _ = rnn.run_rnn(getattr(self, self.names[0]), self.embedding(input_ids), attention_mask.sum(1))
        weights = getattr(self, self.names[1])(states, attention_mask)
        logits = self.fc((weights[..., None] * states).sum(1))
        probs = torch.sigmoid(logits) if logits.shape[-1] == 1 else logits.softmax(-1)
        return {"logits": logits, "probabilities": probs, "attention": weights}


class Wrapper(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        return self.model(*args)


def torch_case(c, seq, lengths, wrapped):
    model = AttentionClassifier(c)
    ref.randomize(model, STDS["default"], STDS)
    model = Wrapper(model) if wrapped else model
    mask = ref.ragged_mask(BATCH, seq, lengths)
    ids = ref.random_ids(c["vocab"], (BATCH, seq), mask)
    with torch.no_grad():
        model64 = copy.deepcopy(model).double()
        outputs = model64(ids, mask)
        for row, length in enumerate(lengths):  # the padded batch equals each row alone
            alone = model64(ids[row:row + 1, :length], mask[row:row + 1, :length])
            assert torch.allclose(alone["logits"][0], outputs["logits"][row], atol=1e-9)
    return model, {"max_len": seq + 4}, {"input_ids": ids, "attention_mask": mask}, outputs, {}


TORCH_CASES = [
    ("rnn_classifier_fc_wrapped_lstm_bi_l2_v53_e10_h14_a6_c3",
     dict(cell="lstm", rnn_name="encoder", layers=2, attention_name="attention", w_name="attn", v_bias=True,
          vocab=53, embedding=10, hidden=14, units=6, classes=3), 11, (11, 7, 2), True),
    ("rnn_classifier_fc_gru_bi_v47_e12_h9_a7_c1",
     dict(cell="gru", rnn_name="gru", layers=1, attention_name="attn", w_name="W", v_bias=False,
          vocab=47, embedding=12, hidden=9, units=7, classes=1), 10, (10, 4, 8), False),
]


def as_torch_gates(m, cell, hidden):
    """Keras's [..., G*H] (columns) as PyTorch's [G*H, ...] rows; GRU gates z, r, h -> r, z, n."""
    m = torch.from_numpy(np.ascontiguousarray(m.T).astype(np.float64))
    if cell == "gru":
        m = torch.cat([m[hidden:2 * hidden], m[:hidden], m[2 * hidden:]])
    return m


def torch_rnn_check(weights, ids, want):
    """The NumPy Keras forward against torch.nn.LSTM / nn.GRU on the same weights (float64)."""
    cell = weights["cell"]
    embed, hidden = weights["forward"]["kernel"].shape[0], weights["forward"]["recurrent_kernel"].shape[0]
    module = (nn.LSTM if cell == "lstm" else nn.GRU)(embed, hidden, bidirectional=True, batch_first=True).double()
    with torch.no_grad():
        for direction, suffix in (("forward", ""), ("backward", "_reverse")):
            w = weights[direction]
            bias = w["bias"] if cell == "lstm" else w["bias"][0]
            getattr(module, "weight_ih_l0" + suffix).copy_(as_torch_gates(w["kernel"], cell, hidden))
            getattr(module, "weight_hh_l0" + suffix).copy_(as_torch_gates(w["recurrent_kernel"], cell, hidden))
            getattr(module, "bias_ih_l0" + suffix).copy_(as_torch_gates(bias[None], cell, hidden)[:, 0])
            if cell == "lstm":
                getattr(module, "bias_hh_l0" + suffix).zero_()
            else:
                getattr(module, "bias_hh_l0" + suffix).copy_(as_torch_gates(w["bias"][1][None], cell, hidden)[:, 0])
        x = torch.from_numpy(weights["embeddings"].astype(np.float64)[ids])
        states = module(x)[0].numpy()
    w = {k: {n: v.astype(np.float64) for n, v in weights[k].items()} for k in ("W", "V", "dense")}
    score = (np.tanh(states @ w["W"]["kernel"] + w["W"]["bias"]) @ w["V"]["kernel"])[..., 0]
    attention = np.exp(score - score.max(1, keepdims=True))
    attention /= attention.sum(1, keepdims=True)
    logits = (attention[..., None] * states).sum(1) @ w["dense"]["kernel"] + w["dense"]["bias"]
    assert np.abs(attention - want["attention"]).max() < 1e-9
    assert np.abs(logits - want["logits"]).max() < 1e-9


def keras_case(out_dir, name, seed, vocab=53, embed=10, hidden=14, units=6, seq=12, cell="lstm"):
    rng = np.random.default_rng(seed)
    weights = keras.seed_weights(rng, vocab, embed, hidden, units, cell=cell)
    # pad_sequences(maxlen=seq) pads in front with 0s, which the seed's Embedding reads as tokens
    ids = rng.integers(1, vocab, (BATCH, seq))
    for row, length in enumerate((seq, 8, 3)):
        ids[row, :seq - length] = 0
    outputs = keras.forward(weights, ids)
    torch_rnn_check(weights, ids, outputs)
    case_dir = os.path.join(out_dir, name)
    os.makedirs(case_dir, exist_ok=True)
    keras.write_keras2_h5(os.path.join(case_dir, "weights_keras2.h5"), weights)
    keras.write_keras2_h5(os.path.join(case_dir, "model_keras2.h5"), weights, whole_model=True)
    keras.write_keras3_archive(os.path.join(case_dir, "model.keras"), weights, seq)
    keras.write_keras3_weights(os.path.join(case_dir, "model.weights.h5"), weights)
    inputs = {"input_ids": torch.from_numpy(ids), "attention_mask": torch.ones(BATCH, seq, dtype=torch.int64)}
    ref.save_arrays(os.path.join(case_dir, "inputs"), inputs)
    ref.save_arrays(os.path.join(case_dir, "expected"), {k: torch.from_numpy(v) for k, v in outputs.items()})
    # all but weights_keras2.h5 also hold the optimizer's slots: the readers leave them out
    case = {"family": "keras-classifier", "preset": "keras-classifier", "weights": "model.keras",
            "weights_files": ["weights_keras2.h5", "model_keras2.h5", "model.keras", "model.weights.h5"],
            "inputs": list(inputs),
            "outputs": list(outputs), "seed": seed}
    with open(os.path.join(case_dir, "case.json"), "w") as f:
        json.dump(case, f, indent=2)
    with open(os.path.join(case_dir, "config.json"), "w") as f:
        f.write("{}\n")
    print(f"{name}: Keras 2 .h5 (save_weights, save), Keras 3 .keras and .weights.h5, seq {seq}, "
          f"p = {outputs['probabilities'][:, 0].round(4).tolist()}")


def main(out_dir):
    torch.set_num_threads(min(2, torch.get_num_threads()))
    for index, (name, c, seq, lengths, wrapped) in enumerate(TORCH_CASES):
        seed = BASE_SEED + 1000 * index
        torch.manual_seed(seed)
        built = torch_case(c, seq, lengths, wrapped)
        fmt = ref.FORMATS[index % len(ref.FORMATS)]
        ref.write_case(out_dir, name, "rnn-classifier", seed, fmt, built)
        print(f"{name}: {sorted(built[0].state_dict())}")
    keras_case(out_dir, "keras_seed_bahdanau_v53_e10_h14_a6", BASE_SEED + 5000)
    # the same model with Bidirectional(GRU(...)) in place of the LSTM
    keras_case(out_dir, "keras_bigru_bahdanau_v41_e9_h11_a5", BASE_SEED + 6000, 41, 9, 11, 5, 10, cell="gru")


if __name__ == "__main__":
    main(sys.argv[1])
