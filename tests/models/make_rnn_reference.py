#!/usr/bin/python3
"""Writes PyTorch reference cases for the RNN presets (run with Debian's python3-torch).

Usage: make_rnn_reference.py OUT_DIR [--check]
       make_rnn_reference.py --check            (self-tests only, nothing written)

Cases follow make_reference.py's case-directory contract (weights.pt / .safetensors / .npz,
inputs/*.npy, expected/*.npy, config.json, case.json); references are computed in float64
from the float32 weights and stored as float32 (ids int32).

rnn-seq2seq (preset "rnn-seq2seq"), parameter names (batch_first everywhere):
  src_embedding     nn.Embedding(Vs, E)
  encoder           nn.LSTM / nn.GRU(E, H, num_layers=L, bidirectional=bi)
  bridge_h          nn.Linear(Dk, Hd)        decoder h0 = tanh(bridge_h(h_last))
  bridge_c          nn.Linear(Dk, Hd)        LSTM only: c0 = tanh(bridge_c(c_last))
  tgt_embedding     nn.Embedding(Vt, E)
  decoder           nn.LSTM / nn.GRU(in, Hd), one layer, the encoder's cell
  attention.*       per variant (below)
  combine           nn.Linear(Dk + Hd, Hd, bias=False)     Luong variants only
  output            nn.Linear(Hd + Dk or Hd, Vt)
  Dk = dirs * H. h_last / c_last are the last encoder layer's final states, [fwd; bwd]
  (forward after each row's last valid token, backward after position 0); the memory is the
  last layer's outputs [B, S, Dk], zero at padded positions.
  bahdanau      attention.query Linear(Hd, A, no bias), attention.key Linear(Dk, A),
                attention.energy Linear(A, 1, no bias). Step: a = softmax over valid j of
                energy(tanh(query(s_{t-1}) + key(h_j))), context = sum_j a_j h_j,
                s_t = decoder([tgt_embedding(y_{t-1}); context]), logits = output([s_t; context]).
  luong_general s_t = decoder(tgt_embedding(y_{t-1})); score_j = s_t . attention.W(h_j)
                (Linear(Dk, Hd, no bias)); h~ = tanh(combine([context; s_t])); logits = output(h~).
  luong_dot     score_j = s_t . h_j (Dk == Hd).
  luong_concat  score_j = energy(tanh(query(s_t) + key(h_j))), the Bahdanau-named layers.
  config.json: cell, attention, hidden, decoder_hidden, embedding, encoder_layers,
  bidirectional, src_vocab, tgt_vocab, bos_id, eos_id, max_src_len, max_tgt_len
  (the attention width A is the shape of attention.query / attention.key).
  inputs:   source_ids [B, S] (ragged, 0 after each row's length), source_mask [B, S].
  expected: greedy_ids [B, 50] (argmax from y_0 = bos, always 50 steps, eos does not stop a
            row), greedy_logits [B, 50, Vt], greedy_attention [B, 50, S] (0 where padded),
            greedy_margins [B, 50] (best - second best logit); beam_ids [T] and beam_score [1]
            for row 0 alone (beam_search() below; case.json "beam": width, max_steps, alpha,
            eos_id).
  case.json extra: "max_steps": 50, "beam": {...}, "beam_margin" (normalized-score gap
  between the best and second-best finished hypotheses).

rnn-classifier (preset "rnn-classifier"): embedding nn.Embedding(V, E); lstm
  nn.LSTM(E, H, bidirectional=True); attention.W nn.Linear(2H, A); attention.v
  nn.Linear(A, 1, bias=False); classifier nn.Linear(2H, C). a = softmax over valid s of
  v(tanh(W h_s)), pooled = sum_s a_s h_s, logits = classifier(pooled), probabilities =
  sigmoid (C == 1) or softmax (C > 1). config.json: embedding, hidden, attention_units,
  num_classes, vocab_size, max_len. inputs input_ids, attention_mask [B, S]; expected
  probabilities [B, C], attention [B, S] (0 where padded), logits [B, C].

--check: the encoder's packed batch equals row-by-row runs on the unpadded rows; the
step-by-step greedy decode equals a teacher-forced run on the greedy sequence (the Luong
decoders as one nn.LSTM/nn.GRU call over the whole sequence, Bahdanau with the cell
equations written out), logits and attention to 1e-9; the beam result's score equals the
teacher-forced log-probability of its tokens; the classifier's batch forward equals
row-by-row forwards.
"""
import argparse
import copy
import os
import sys
import time

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference as ref  # noqa: E402  (formats, checkpoint writers, case writer)

BASE_SEED = 20240901
BATCH = 3
GREEDY_STEPS = 50
BEAM = {"width": 3, "max_steps": 20, "alpha": 0.6, "eos_id": 2}
BOS_ID, EOS_ID = 1, 2
MIN_DISTINCT = 6           # per greedy row
MIN_MARGIN = 1e-3          # greedy top1 - top2 logit
MIN_BEAM_MARGIN = 1e-4     # best - second best normalized finished score
MIN_BEAM_GAP = 1e-4        # score gaps around each step's beam selection
MIN_BEAM_STEPS = 6         # the beam search runs at least this many steps
MIN_BEAM_TOKENS = 3        # and its best hypothesis has at least this many tokens
ATTEMPTS = 100
CHECK_MATCH = 1e-9


# ---------------------------------------------------------------------------------------------
# Models

def masked_softmax(scores, mask):
    return scores.masked_fill(mask == 0, float("-inf")).softmax(-1)


def run_rnn(rnn, x, lengths):
    """Packed run of nn.LSTM/nn.GRU over ragged rows: outputs [B, S, dirs*H] (zero where
    padded) and the last layer's final (h, c or None), each [B, dirs*H] as [fwd; bwd]."""
    packed = nn.utils.rnn.pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
    out, state = rnn(packed)
    out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
    dirs = 2 if rnn.bidirectional else 1
    states = state if isinstance(state, tuple) else (state,)
    last = [torch.cat(list(s[-dirs:]), dim=-1) for s in states]
    return out, last[0], (last[1] if len(last) > 1 else None)


class RnnSeq2Seq(nn.Module):
    def __init__(self, c, units):
        super().__init__()
        rnn = nn.LSTM if c["cell"] == "lstm" else nn.GRU
        self.lstm = c["cell"] == "lstm"
        self.kind = c["attention"]
        E, H, Hd = c["embedding"], c["hidden"], c["decoder_hidden"]
        self.dk = (2 if c["bidirectional"] else 1) * H
        dk = self.dk
        self.src_embedding = nn.Embedding(c["src_vocab"], E)
        self.encoder = rnn(E, H, num_layers=c["encoder_layers"], bidirectional=c["bidirectional"],
                           batch_first=True)
        self.bridge_h = nn.Linear(dk, Hd)
        if self.lstm:
            self.bridge_c = nn.Linear(dk, Hd)
        self.tgt_embedding = nn.Embedding(c["tgt_vocab"], E)
        bahdanau = self.kind == "bahdanau"
        self.decoder = rnn(E + dk if bahdanau else E, Hd, num_layers=1, batch_first=True)
        self.attention = nn.Module()
        if self.kind in ("bahdanau", "luong_concat"):
            self.attention.query = nn.Linear(Hd, units, bias=False)
            self.attention.key = nn.Linear(dk, units, bias=True)
            self.attention.energy = nn.Linear(units, 1, bias=False)
        elif self.kind == "luong_general":
            self.attention.W = nn.Linear(dk, Hd, bias=False)
        else:
            assert self.kind == "luong_dot" and dk == Hd, "luong_dot needs dirs * hidden == decoder_hidden"
        if not bahdanau:
            self.combine = nn.Linear(dk + Hd, Hd, bias=False)
        self.output = nn.Linear(Hd + dk if bahdanau else Hd, c["tgt_vocab"])

    # Decoder state: a tuple (h,) or (h, c) of [1, B, Hd] tensors.
    def encode(self, source_ids, source_mask):
        lengths = source_mask.sum(1)
        memory, h_last, c_last = run_rnn(self.encoder, self.src_embedding(source_ids), lengths)
        state = (torch.tanh(self.bridge_h(h_last))[None],)
        if self.lstm:
            state += (torch.tanh(self.bridge_c(c_last))[None],)
        return memory, state

    def scores(self, s, memory):
        """s [B, T, Hd], memory [B, S, Dk] -> [B, T, S]."""
        if self.kind in ("bahdanau", "luong_concat"):
            hidden = torch.tanh(self.attention.query(s)[:, :, None, :] + self.attention.key(memory)[:, None])
            return self.attention.energy(hidden)[..., 0]
        keys = self.attention.W(memory) if self.kind == "luong_general" else memory
        return s @ keys.transpose(1, 2)

    def attend(self, s, memory, source_mask):
        weights = masked_softmax(self.scores(s, memory), source_mask[:, None, :])
        return weights, weights @ memory

    def run_decoder(self, x, state):
        out, new = self.decoder(x, state if self.lstm else state[0])
        return out, (new if self.lstm else (new,))

    def step(self, prev_ids, state, memory, source_mask):
        """One decoder step for prev_ids [B]: logits [B, Vt], new state, attention [B, S]."""
        emb = self.tgt_embedding(prev_ids)[:, None]
        if self.kind == "bahdanau":
            weights, context = self.attend(state[0][0][:, None], memory, source_mask)
            out, state = self.run_decoder(torch.cat([emb, context], -1), state)
            logits = self.output(torch.cat([out, context], -1))
        else:
            out, state = self.run_decoder(emb, state)
            weights, context = self.attend(out, memory, source_mask)
            logits = self.output(torch.tanh(self.combine(torch.cat([context, out], -1))))
        return logits[:, 0], state, weights[:, 0]


class RnnClassifier(nn.Module):
    def __init__(self, c):
        super().__init__()
        E, H, A = c["embedding"], c["hidden"], c["attention_units"]
        self.embedding = nn.Embedding(c["vocab_size"], E)
        self.lstm = nn.LSTM(E, H, bidirectional=True, batch_first=True)
        self.attention = nn.Module()
        self.attention.W = nn.Linear(2 * H, A)
        self.attention.v = nn.Linear(A, 1, bias=False)
        self.classifier = nn.Linear(2 * H, c["num_classes"])

    def forward(self, input_ids, attention_mask):
        states, _, _ = run_rnn(self.lstm, self.embedding(input_ids), attention_mask.sum(1))
        scores = self.attention.v(torch.tanh(self.attention.W(states)))[..., 0]
        weights = masked_softmax(scores, attention_mask)
        logits = self.classifier((weights[..., None] * states).sum(1))
        probs = torch.sigmoid(logits) if logits.shape[-1] == 1 else logits.softmax(-1)
        return {"probabilities": probs, "attention": weights, "logits": logits}


def expected_names(c):
    def rnn(prefix, layers, bidirectional):
        names = []
        for k in range(layers):
            for suffix in ([""] + (["_reverse"] if bidirectional else [])):
                names += [f"{prefix}.{w}_l{k}{suffix}" for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        return names

    names = ["src_embedding.weight", "bridge_h.weight", "bridge_h.bias", "tgt_embedding.weight",
             "output.weight", "output.bias"]
    names += rnn("encoder", c["encoder_layers"], c["bidirectional"]) + rnn("decoder", 1, False)
    if c["cell"] == "lstm":
        names += ["bridge_c.weight", "bridge_c.bias"]
    if c["attention"] in ("bahdanau", "luong_concat"):
        names += ["attention.query.weight", "attention.key.weight", "attention.key.bias",
                  "attention.energy.weight"]
    if c["attention"] == "luong_general":
        names.append("attention.W.weight")
    if c["attention"] != "bahdanau":
        names.append("combine.weight")
    return set(names)


# ---------------------------------------------------------------------------------------------
# Decoding (float64 modules)

def greedy(model64, source_ids, source_mask, steps):
    with torch.no_grad():
        memory, state = model64.encode(source_ids, source_mask)
        prev = torch.full((source_ids.shape[0],), BOS_ID, dtype=torch.int64)
        ids, logits, attention = [], [], []
        for _ in range(steps):
            step_logits, state, weights = model64.step(prev, state, memory, source_mask)
            prev = step_logits.argmax(-1)
            ids.append(prev)
            logits.append(step_logits)
            attention.append(weights)
    logits = torch.stack(logits, 1)
    top = logits.topk(2, dim=-1).values
    return torch.stack(ids, 1), logits, torch.stack(attention, 1), top[..., 0] - top[..., 1]


def beam_search(model64, source_ids, source_mask, width, max_steps, alpha, eos_id):
    """Beam search for one source row (batch 1), in this exact form:
    live = [([], 0.0, encoder state)]; each step expands every live hypothesis by every token
    (score + log_softmax), sorts the candidates by score descending, ties by (hypothesis
    index, token) ascending, and walks them: an eos candidate is finished (normalized score /
    t ** alpha) while fewer than `width` are finished, another token extends a new live
    hypothesis while fewer than `width` are live; the walk stops when `width` are live. The
    search stops once `width` are finished. If none finished, or the search ran all
    max_steps, every live hypothesis is finished too (score / len(tokens) ** alpha). The
    result is the best normalized score, ties to the earliest finished.
    Returns (tokens, normalized score, stats)."""
    with torch.no_grad():
        memory, state = model64.encode(source_ids, source_mask)
        live, finished = [([], 0.0, state)], []
        min_gap, stopped_at = float("inf"), None
        for t in range(1, max_steps + 1):
            prev = torch.tensor([hyp[0][-1] if hyp[0] else BOS_ID for hyp in live])
            states = tuple(torch.cat([hyp[2][i] for hyp in live], dim=1) for i in range(len(state)))
            n = len(live)
            logits, states, _ = model64.step(prev, states, memory.expand(n, -1, -1),
                                             source_mask.expand(n, -1))
            logp = torch.log_softmax(logits, -1)
            candidates = sorted((-(live[i][1] + logp[i, v].item()), i, v)
                                for i in range(n) for v in range(logp.shape[1]))
            new_live, walked = [], 0
            for neg, i, v in candidates:
                walked += 1
                if v == eos_id:
                    if len(finished) < width:
                        finished.append((live[i][0] + [v], -neg / t ** alpha))
                elif len(new_live) < width:
                    new_live.append((live[i][0] + [v], -neg, tuple(s[:, i:i + 1] for s in states)))
                if len(new_live) == width:
                    break
            # Every decision of this step depends only on the order of the walked candidates
            # and the first one after them: keep those well separated.
            head = [-neg for neg, _, _ in candidates[:walked + 1]]
            min_gap = min(min_gap, min(a - b for a, b in zip(head, head[1:])))
            live = new_live
            if len(finished) >= width:
                stopped_at = t
                break
        eos_finished = len(finished)
        if not finished or stopped_at is None:
            finished += [(tokens, score / len(tokens) ** alpha) for tokens, score, _ in live]
    order = sorted(range(len(finished)), key=lambda k: (-finished[k][1], k))
    best = finished[order[0]]
    margin = best[1] - finished[order[1]][1] if len(order) > 1 else float("inf")
    stats = {"eos_finished": eos_finished, "finished": len(finished), "stopped_at": stopped_at,
             "steps": stopped_at or max_steps, "margin": margin, "min_gap": min_gap}
    return best[0], best[1], stats


# ---------------------------------------------------------------------------------------------
# Independent forms for --check

def cell_step(model64, x, state):
    """The decoder cell written out from its weights (PyTorch gate order)."""
    p = {k: v for k, v in model64.decoder.named_parameters()}
    h = state[0][0]
    gi = x @ p["weight_ih_l0"].T + p["bias_ih_l0"]
    gh = h @ p["weight_hh_l0"].T + p["bias_hh_l0"]
    if model64.lstm:
        i, f, g, o = (gi + gh).chunk(4, -1)
        c = torch.sigmoid(f) * state[1][0] + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, (h[None], c[None])
    ri, zi, ni = gi.chunk(3, -1)
    rh, zh, nh = gh.chunk(3, -1)
    r, z = torch.sigmoid(ri + rh), torch.sigmoid(zi + zh)
    h = (1 - z) * torch.tanh(ni + r * nh) + z * h
    return h, (h[None],)


def teacher_forced(model64, source_ids, source_mask, tgt_in):
    """Logits [B, T, Vt] and attention [B, T, S] for decoder inputs tgt_in [B, T]."""
    with torch.no_grad():
        memory, state = model64.encode(source_ids, source_mask)
        emb = model64.tgt_embedding(tgt_in)
        if model64.kind != "bahdanau":
            out, _ = model64.run_decoder(emb, state)          # the whole sequence in one call
            weights, context = model64.attend(out, memory, source_mask)
            return model64.output(torch.tanh(model64.combine(torch.cat([context, out], -1)))), weights
        logits, attention = [], []
        for t in range(tgt_in.shape[1]):
            s = state[0][0]
            keys = model64.attention.key(memory)
            energy = model64.attention.energy(torch.tanh(model64.attention.query(s)[:, None] + keys))[..., 0]
            weights = masked_softmax(energy, source_mask)
            context = torch.einsum("bs,bsd->bd", weights, memory)
            h, state = cell_step(model64, torch.cat([emb[:, t], context], -1), state)
            logits.append(model64.output(torch.cat([h, context], -1)))
            attention.append(weights)
        return torch.stack(logits, 1), torch.stack(attention, 1)


def check_close(what, got, want, tol=CHECK_MATCH):
    err = (got - want).abs().max().item()
    assert err <= tol, f"{what}: differs by {err}"
    return err


def check_encoder(name, rnn, x, mask):
    """Packed batch vs each row alone, unpadded (no packing)."""
    out, h_last, c_last = run_rnn(rnn, x, mask.sum(1))
    dirs = 2 if rnn.bidirectional else 1
    for row, length in enumerate(mask.sum(1).tolist()):
        row_out, state = rnn(x[row:row + 1, :length])
        states = state if isinstance(state, tuple) else (state,)
        check_close(f"{name} row {row} outputs", out[row, :length], row_out[0])
        assert torch.all(out[row, length:] == 0), f"{name} row {row}: padded outputs not zero"
        check_close(f"{name} row {row} h_last", h_last[row], torch.cat(list(states[0][-dirs:, 0]), -1))
        if c_last is not None:
            check_close(f"{name} row {row} c_last", c_last[row], torch.cat(list(states[1][-dirs:, 0]), -1))


def check_seq2seq(name, model, inputs, outputs, beam_tokens, beam_score):
    model64 = copy.deepcopy(model).double()
    src, mask = inputs["source_ids"].long(), inputs["source_mask"].long()
    with torch.no_grad():
        check_encoder(name + " encoder", model64.encoder, model64.src_embedding(src), mask)
    ids = outputs["greedy_ids"].long()
    tgt_in = torch.cat([torch.full((ids.shape[0], 1), BOS_ID), ids[:, :-1]], 1)
    logits, attention = teacher_forced(model64, src, mask, tgt_in)
    check_close(f"{name} teacher-forced logits", logits, outputs["greedy_logits"])
    check_close(f"{name} teacher-forced attention", attention, outputs["greedy_attention"])
    assert torch.equal(logits.argmax(-1), ids), f"{name}: teacher-forced argmax differs"
    # The beam result's raw score is the log-probability of its tokens.
    tokens = torch.tensor([beam_tokens])
    beam_in = torch.cat([torch.tensor([[BOS_ID]]), tokens[:, :-1]], 1)
    beam_logits, _ = teacher_forced(model64, src[:1], mask[:1], beam_in)
    logp = torch.log_softmax(beam_logits, -1)[0].gather(1, tokens[0][:, None]).sum().item()
    err = abs(logp / len(beam_tokens) ** BEAM["alpha"] - beam_score)
    assert err <= CHECK_MATCH, f"{name} beam score: differs by {err}"


def check_classifier(name, model, inputs, outputs):
    model64 = copy.deepcopy(model).double()
    ids, mask = inputs["input_ids"].long(), inputs["attention_mask"].long()
    with torch.no_grad():
        check_encoder(name + " lstm", model64.lstm, model64.embedding(ids), mask)
        for row, length in enumerate(mask.sum(1).tolist()):
            alone = model64(ids[row:row + 1, :length], mask[row:row + 1, :length])
            for key in ("probabilities", "logits"):
                check_close(f"{name} row {row} {key}", alone[key][0], outputs[key][row])
            check_close(f"{name} row {row} attention", alone["attention"][0], outputs["attention"][row, :length])
            assert torch.all(outputs["attention"][row, length:] == 0)


# ---------------------------------------------------------------------------------------------
# Cases

def seq2seq_config(cell, attention, E, H, Hd, L, bidirectional, Vs, Vt):
    return {"cell": cell, "attention": attention, "hidden": H, "decoder_hidden": Hd, "embedding": E,
            "encoder_layers": L, "bidirectional": bidirectional, "src_vocab": Vs, "tgt_vocab": Vt,
            "bos_id": BOS_ID, "eos_id": EOS_ID, "max_src_len": 16, "max_tgt_len": 64}


def classifier_config(E, H, A, C, V, max_len=16):
    return {"embedding": E, "hidden": H, "attention_units": A, "num_classes": C, "vocab_size": V,
            "max_len": max_len}


def draw_seq2seq(c, units, stds, eos_bias, source, mask):
    """One weights draw: the model, its greedy and beam results, and whether they are varied
    and well separated enough for exact token parity."""
    model = RnnSeq2Seq(c, units)
    names = set(model.state_dict())
    assert names == expected_names(c), names ^ expected_names(c)
    ref.randomize(model, stds["default"], stds)
    with torch.no_grad():
        model.output.bias[EOS_ID] += eos_bias     # eos likely enough that some beams finish
    model64 = copy.deepcopy(model).double()
    ids, logits, attention, margins = greedy(model64, source, mask, GREEDY_STEPS)
    distinct = [len(set(row)) for row in ids.tolist()]
    tokens, score, beam = beam_search(model64, source[:1], mask[:1], **BEAM)
    ok = (min(distinct) >= MIN_DISTINCT and margins.min().item() >= MIN_MARGIN
          and beam["eos_finished"] > 0 and beam["margin"] >= MIN_BEAM_MARGIN
          and beam["min_gap"] >= MIN_BEAM_GAP and beam["steps"] >= MIN_BEAM_STEPS
          and len(tokens) >= MIN_BEAM_TOKENS
          # the width-th eos on the very last step would leave it moot whether the search
          # "ran all max_steps" (and adds its live hypotheses): avoid that draw
          and beam["stopped_at"] != BEAM["max_steps"])
    outputs = {"greedy_ids": ids, "greedy_logits": logits, "greedy_attention": attention,
               "greedy_margins": margins, "beam_ids": torch.tensor(tokens),
               "beam_score": torch.tensor([score], dtype=torch.float64)}
    stats = {"distinct": distinct, "min_margin": margins.min().item(), "beam": beam,
             "greedy_eos": int((ids == EOS_ID).sum()),
             "beam_len": len(tokens), "beam_score": score, "beam_ends_eos": tokens[-1] == EOS_ID}
    return ok, model, outputs, stats


def torch_f32_error(model, source, mask, outputs):
    """How far PyTorch itself lands from the float64 reference when it runs in float32
    (teacher-forced on the greedy tokens): the recurrences with these weights amplify
    rounding, so the engine's tolerance is stated relative to this (largest of the
    logits' |got - want| / (|want| + 1) and the attention's |got - want|)."""
    model32 = copy.deepcopy(model).float()
    ids = outputs["greedy_ids"].long()
    tgt_in = torch.cat([torch.full((ids.shape[0], 1), BOS_ID, dtype=torch.int64), ids[:, :-1]], 1)
    logits, attention = teacher_forced(model32, source.long(), mask, tgt_in)
    want_logits = outputs["greedy_logits"].double()
    logit_error = ((logits.double() - want_logits).abs() / (want_logits.abs() + 1)).max().item()
    attention_error = (attention.double() - outputs["greedy_attention"].double()).abs().max().item()
    return max(logit_error, attention_error)


def seq2seq_case(c, units, stds, eos_bias, seq=9, lengths=(9, 6, 3)):
    mask = ref.ragged_mask(BATCH, seq, lengths)
    source = torch.randint(3, c["src_vocab"], (BATCH, seq)) * mask
    for attempt in range(ATTEMPTS):       # re-draw the weights from the same seed stream
        ok, model, outputs, stats = draw_seq2seq(c, units, stds, eos_bias, source, mask)
        if ok:
            break
    else:
        raise RuntimeError(f"no weights draw in {ATTEMPTS} met the greedy and beam conditions")
    # the stored float32 logits still pick the greedy ids
    assert torch.equal(outputs["greedy_logits"].float().argmax(-1), outputs["greedy_ids"])
    extra = {"max_steps": GREEDY_STEPS, "beam": dict(BEAM), "beam_margin": stats["beam"]["margin"],
             "torch_f32_error": torch_f32_error(model, source, mask, outputs)}
    return (model, c, {"source_ids": source, "source_mask": mask}, outputs,
            {**extra, "_stats": {"attempt": attempt, **stats}})


def classifier_case(c, seq, lengths, stds):
    model = RnnClassifier(c)
    ref.randomize(model, stds["default"], stds)
    mask = ref.ragged_mask(BATCH, seq, lengths)
    ids = ref.random_ids(c["vocab_size"], (BATCH, seq), mask)
    with torch.no_grad():
        outputs = copy.deepcopy(model).double()(ids, mask)
    return model, c, {"input_ids": ids, "attention_mask": mask}, outputs, {}


# Weight scales (ref.randomize: first matching name substring, biases 0.1 randn): strong
# embeddings and recurrent weights keep greedy decoding from settling into a short cycle; the
# GRUs' saturated states give larger logits, so their output layer is scaled down.
LSTM_STDS = {"default": 0.4, "weight_hh": 1.0, "embedding": 2.0, "output": 0.8}
GRU_STDS = {"default": 0.4, "weight_hh": 1.0, "embedding": 2.0, "output": 0.5}
EOS_BIAS = 2.0      # added to output.bias[eos_id] so that some beams finish within 20 steps
CLASSIFIER_STDS = {"default": 0.4, "embedding": 1.0, "attention": 0.6, "classifier": 1.0}

# (case name, family, builder, builder arguments)
CASES = [
    ("rnn_bahdanau_lstm_bi_l1_e16_h16_hd24", "rnn-seq2seq", seq2seq_case,
     (seq2seq_config("lstm", "bahdanau", 16, 16, 24, 1, True, 40, 56), 20, LSTM_STDS, EOS_BIAS)),
    ("rnn_bahdanau_gru_bi_l2_e20_h24_hd32", "rnn-seq2seq", seq2seq_case,
     (seq2seq_config("gru", "bahdanau", 20, 24, 32, 2, True, 50, 60), 16, GRU_STDS, EOS_BIAS)),
    ("rnn_luong_general_lstm_bi_l1_e24_h20_hd32", "rnn-seq2seq", seq2seq_case,
     (seq2seq_config("lstm", "luong_general", 24, 20, 32, 1, True, 45, 52), 0, LSTM_STDS, EOS_BIAS)),
    ("rnn_luong_dot_gru_uni_l2_e16_h24_hd24", "rnn-seq2seq", seq2seq_case,
     (seq2seq_config("gru", "luong_dot", 16, 24, 24, 2, False, 42, 58), 0, GRU_STDS, EOS_BIAS)),
    ("rnn_luong_concat_lstm_bi_l2_e18_h16_hd28", "rnn-seq2seq", seq2seq_case,
     (seq2seq_config("lstm", "luong_concat", 18, 16, 28, 2, True, 60, 56), 24, LSTM_STDS, EOS_BIAS)),
    ("rnn_classifier_sigmoid_e16_h16_a12", "rnn-classifier", classifier_case,
     (classifier_config(16, 16, 12, 1, 50), 12, (12, 7, 3), CLASSIFIER_STDS)),
    ("rnn_classifier_softmax4_e24_h20_a16", "rnn-classifier", classifier_case,
     (classifier_config(24, 20, 16, 4, 60), 12, (12, 8, 2), CLASSIFIER_STDS)),
    # Longer than the engine's 16-step blocks of input projections: 3 blocks, ragged rows
    # ending inside the first and second.
    ("rnn_classifier_long40_softmax3_e20_h16_a12", "rnn-classifier", classifier_case,
     (classifier_config(20, 16, 12, 3, 70, max_len=48), 40, (40, 23, 7), CLASSIFIER_STDS)),
    # A keyword-spotting-sized classifier, the Cortex-M example's (targets/cortex-m/examples):
    # 64-step sequences, 1000 words, BiLSTM 2 x 64.
    ("rnn_classifier_kws_softmax4_e64_h64_a32_v1000", "rnn-classifier", classifier_case,
     (classifier_config(64, 64, 32, 4, 1000, max_len=64), 64, (64, 41, 9), CLASSIFIER_STDS)),
]


def describe(name, fmt, built, stats):
    model, config = built[0], built[1]
    line = f"{name}: {fmt}, {sum(p.numel() for p in model.parameters())} params"
    if stats:
        beam = stats["beam"]
        line += (f", weights draw {stats['attempt']}, greedy distinct {stats['distinct']}/{GREEDY_STEPS},"
                 f" min margin {stats['min_margin']:.4g}, {stats['greedy_eos']} greedy eos;\n  beam:"
                 f" {beam['eos_finished']} finished with eos, search "
                 + (f"stopped at step {beam['stopped_at']}" if beam["stopped_at"] else "ran all steps")
                 + f", {beam['finished']} finished in all,"
                 f" best {stats['beam_len']} tokens{' ending in eos' if stats['beam_ends_eos'] else ''}"
                 f" score {stats['beam_score']:.4f}, margin {beam['margin']:.4g}, min gap {beam['min_gap']:.3g}")
    return line + "\n  " + " ".join(f"{k}={v}" for k, v in config.items())


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?")
    parser.add_argument("--check", action="store_true", help="run the self-tests")
    args = parser.parse_args(argv)
    if not args.out_dir and not args.check:
        parser.error("give OUT_DIR, --check or both")
    torch.set_num_threads(min(2, torch.get_num_threads()))
    start = time.time()
    for index, (name, family, builder, builder_args) in enumerate(CASES):
        seed = BASE_SEED + 1000 * index
        torch.manual_seed(seed)
        built = builder(*builder_args)
        model, _, inputs, outputs, extra = built
        fmt = ref.FORMATS[index % len(ref.FORMATS)]
        if args.check:
            if family == "rnn-seq2seq":
                check_seq2seq(name, model, inputs, outputs, outputs["beam_ids"].tolist(),
                              outputs["beam_score"].item())
            else:
                check_classifier(name, model, inputs, outputs)
        if args.out_dir:
            stats = ref.write_case(args.out_dir, name, family, seed, fmt, built)
        else:
            stats = extra.get("_stats")
        print(describe(name, fmt, built, stats), flush=True)
    done = f"{len(CASES)} cases" + (f" written to {args.out_dir}" if args.out_dir else "")
    print(f"{done}{', self-tests passed' if args.check else ''} in {time.time() - start:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
