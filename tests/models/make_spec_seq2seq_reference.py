#!/usr/bin/python3
"""A PyTorch sequence-to-sequence model no preset covers, for the declarative spec's stages
and states (tests/models/specs/spec_seq2seq_zero_cell_l2_e12_h20.json describes it):

Usage: make_spec_seq2seq_reference.py OUT_DIR

  src_embedding     nn.Embedding(Vs, E)
  encoder           nn.LSTM(E, H, num_layers=2), unidirectional, batch_first, packed (ragged rows)
  tgt_embedding     nn.Embedding(Vt, E)
  attention.query   nn.Linear(H, A, bias=False); attention.key nn.Linear(H, A);
  attention.energy  nn.Linear(A, 1, bias=False)
  decoder.{0,1}     nn.LSTMCell(E + H, H), nn.LSTMCell(H, H)
  output            nn.Linear(2H, Vt)

Decoder layer k starts from the encoder's final h of layer k (no bridge). Each step, with
s the top layer's h before the step: a = softmax over valid j of energy(tanh(query(s) +
key(m_j))), context = sum_j a_j m_j (m: the encoder's top-layer outputs); x = [embedding;
context]; each layer k: h_k = LSTMCell_k(x, (h_k, zeros)), x = h_k (every step starts
from a zero cell state, as the tutorial decoders that call lstm(x, (h, zeros_like(h)))
do); logits = output([x; context]).

Writes OUT_DIR/spec_seq2seq_zero_cell_l2_e12_h20/ in make_rnn_reference.py's seq2seq
layout (family "spec-seq2seq"): inputs source_ids, source_mask [3, 7] (lengths 7, 5, 2);
expected greedy_ids, greedy_logits, greedy_attention over 20 greedy steps from bos = 1,
computed in float64 from the float32 weights. The step's cells are checked against the
LSTM equations written out (c = i g, h = o tanh(c) from a zero cell) to 1e-12.
"""
import copy
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference as ref  # noqa: E402  (case writer, random weights)
import make_rnn_reference as rnn  # noqa: E402  (packed encoder runs, masked softmax)

SEED = 4242
NAME = "spec_seq2seq_zero_cell_l2_e12_h20"
STEPS = 20
BOS_ID = rnn.BOS_ID
MIN_MARGIN = 1e-3


class ZeroCellSeq2Seq(nn.Module):
    def __init__(self, Vs=30, Vt=35, E=12, H=20, A=10, layers=2):
        super().__init__()
        self.src_embedding = nn.Embedding(Vs, E)
        self.encoder = nn.LSTM(E, H, num_layers=layers, batch_first=True)
        self.tgt_embedding = nn.Embedding(Vt, E)
        self.attention = nn.Module()
        self.attention.query = nn.Linear(H, A, bias=False)
        self.attention.key = nn.Linear(H, A)
        self.attention.energy = nn.Linear(A, 1, bias=False)
        self.decoder = nn.ModuleList([nn.LSTMCell(E + H if k == 0 else H, H) for k in range(layers)])
        self.output = nn.Linear(2 * H, Vt)

    def encode(self, source_ids, source_mask):
        x = self.src_embedding(source_ids)
        lengths = source_mask.sum(1)
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, (h, _) = self.encoder(packed)
        memory, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        return memory, list(h)  # h: [layers, B, H], each layer's final state

    def step(self, prev_ids, hs, memory, source_mask):
        energy = self.attention.energy(torch.tanh(self.attention.query(hs[-1])[:, None] +
                                                  self.attention.key(memory)))[..., 0]
        weights = rnn.masked_softmax(energy, source_mask)
        context = torch.einsum("bs,bsd->bd", weights, memory)
        x = torch.cat([self.tgt_embedding(prev_ids), context], -1)
        new = []
        for cell, h in zip(self.decoder, hs):
            x, _ = cell(x, (h, torch.zeros_like(h)))
            new.append(x)
        return self.output(torch.cat([x, context], -1)), new, weights


def check_zero_cell(model64, x, h):
    """LSTMCell from (h, 0) against its equations written out."""
    cell = model64.decoder[0]
    gates = x @ cell.weight_ih.T + cell.bias_ih + h @ cell.weight_hh.T + cell.bias_hh
    i, _, g, o = gates.chunk(4, -1)
    want = torch.sigmoid(o) * torch.tanh(torch.sigmoid(i) * torch.tanh(g))
    got, _ = cell(x, (h, torch.zeros_like(h)))
    assert (got - want).abs().max().item() <= 1e-12


def greedy(model64, source, mask):
    """rnn.greedy's decode (this model has the same encode and step), after checking the
    zero-cell step; the smallest top-1 minus top-2 logit margin."""
    with torch.no_grad():
        _, hs = model64.encode(source, mask)
        x = torch.randn(source.shape[0], model64.decoder[0].input_size, dtype=torch.float64)
        check_zero_cell(model64, x, hs[0])
    ids, logits, attention, margins = rnn.greedy(model64, source, mask, STEPS)
    return ids, logits, attention, margins.min().item()


def build():
    torch.manual_seed(SEED)
    mask = ref.ragged_mask(3, 7, (7, 5, 2))
    source = torch.randint(3, 30, (3, 7)) * mask
    for attempt in range(50):
        model = ZeroCellSeq2Seq()
        ref.randomize(model, 0.5, {"embedding": 2.0, "weight_hh": 1.0})
        ids, logits, attention, margin = greedy(copy.deepcopy(model).double(), source, mask)
        if margin >= MIN_MARGIN and min(len(set(row)) for row in ids.tolist()) >= 4:
            break
    else:
        raise RuntimeError("no weights draw gave well separated, varied greedy tokens")
    outputs = {"greedy_ids": ids, "greedy_logits": logits, "greedy_attention": attention}
    extra = {"max_steps": STEPS, "bos_id": BOS_ID}
    return (model, {}, {"source_ids": source, "source_mask": mask}, outputs, extra), attempt, margin


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    torch.set_num_threads(min(2, torch.get_num_threads()))
    built, attempt, margin = build()
    ref.write_case(argv[0], NAME, "spec-seq2seq", SEED, "pt", built)
    print(f"{NAME}: weights draw {attempt}, min greedy margin {margin:.4g}")


if __name__ == "__main__":
    main(sys.argv[1:])
