#!/usr/bin/python3
"""Writes PyTorch reference cases for RNN seq2seq models written as tutorials write them
(run with Debian's python3-torch), converted by the rnn-seq2seq preset from their weights
and only what the tensors cannot tell (config.json).

Usage: make_seq2seq_reference.py OUT_DIR

Cases (case.json family "rnn-seq2seq-modules"; inputs, expected and case.json as
make_rnn_reference.py's seq2seq cases, without beam search):
  seq2seq_tutorial_lstm_v37_41_e12_h20
      The "Seq2Seq with Attention for Translation" Encoder and AttentionDecoder, copied as
      the tutorial writes them (only the sizes differ), saved as a user would:
      torch.save({"encoder": encoder.state_dict(), "decoder": decoder.state_dict()}), and
      as flat safetensors / npz. Names: encoder.embedding, encoder.lstm (bidirectional),
      encoder.fc, decoder.embedding, decoder.attention = Linear(3H, 1) over [s_{t-1}; h_j]
      without tanh, decoder.lstm fed [embedded; context] from (s_{t-1}, zero cell),
      decoder.fc_out(s_t). The tutorial has no source mask: every source is full length.
      config.json: bos_token_id, eos_token_id. missing_fc_out.safetensors lacks decoder.fc_out (an error case).
  seq2seq_tutorial_tanh_lstm_v37_41_e12_h20
      The same with the score under tanh: decoder.attention = tanh(Linear(3H, 1)) (a Linear
      subclass, so the names stay). config.json: bos_token_id, eos_token_id, score_activation
      tanh.
  seq2seq_translation_tutorial_gru_h16
      PyTorch's "Translation with a Sequence to Sequence Network and Attention" tutorial:
      EncoderRNN (encoder.embedding, encoder.gru) and AttnDecoderRNN (decoder.embedding,
      decoder.attention = BahdanauAttention: Va(tanh(Wa(s_{t-1}) + Ua(h_j))), decoder.gru
      fed [embedded; context], decoder.out), without dropout, full-length sources (no mask
      there), saved as {"encoder", "decoder"}. config.json: bos_token_id, eos_token_id.
  seq2seq_luong_general_gru_l2 / seq2seq_luong_dot_gru_l2 / seq2seq_luong_concat_gru_l2
      A 2-layer bidirectional GRU encoder and a 2-layer GRU decoder with Luong attention in
      the PyTorch chatbot tutorial's naming (EncoderRNN: embedding, gru; LuongAttnDecoderRNN:
      embedding, gru, attn (its Attn module: attn.attn = Linear(Dk, Hd) for general, no
      weights for dot, attn.attn = Linear(Hd + Dk, Hd) and attn.v [Hd] for concat), concat,
      out), saved as {"en": ..., "de": ...} (.pt) and under a
      DataParallel "module." prefix (safetensors, npz). Decoder layer k starts from the
      encoder's final [h_fwd_k; h_bwd_k]. score_j = s_t . attn(h_j) (general, with the
      Linear's bias), s_t . h_j (dot) or v . tanh(attn([s_t; h_j])) (concat), over the valid positions of a ragged batch;
      h~ = tanh(concat([s_t; c])) (general and concat, the chatbot's order) or
      tanh(concat([c; s_t])) (dot); logits = out(h~) (the chatbot's softmax left out: logits are compared).
      config.json: bos_token_id, eos_token_id, combine_order; dot's gives the start token as
      decoder_start_token_id beside a different bos_token_id (the start token wins) and
      eos_token_id as a list of one, as generation_config.json writes it. Also
      config_no_order.json (no combine_order), config_no_bos.json (no start token),
      config_bos_disagrees.json (bos_token_id and the older bos_id differ),
      config_two_eos.json (eos_token_id lists two ids) and mismatch_layers.safetensors (a
      3-layer encoder with the 2-layer decoder) for the error cases.
  seq2seq_luong_feeding_lstm_l2
      Luong with input feeding (OpenNMT's): 2-layer bidirectional LSTM encoder (en.lstm), a
      2-layer LSTM decoder (de.lstm, carrying its cells from the encoder's per layer) reading
      [embedded; h~_{t-1}] (h~_0 = 0), general scoring, h~ = tanh(concat([c; s_t])); saved as
      {"en", "de"} (.pt) and under "model." (safetensors, npz). The context and h~ are equally
      wide, so config.json says input_feeding: true; config_no_feeding.json leaves it out.
      Its config.json names the tokens by our older keys bos_id, eos_id, still accepted.
"""
import copy
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference as ref  # noqa: E402  (randomize, ragged_mask)
from case_files import save_arrays, save_weights  # noqa: E402

BASE_SEED = 20261201
BATCH, STEPS = 3, 20
BOS_ID, EOS_ID = 1, 2
MIN_DISTINCT, MIN_MARGIN, ATTEMPTS = 5, 1e-3, 100
STDS = {"default": 0.5, "weight_hh": 1.0, "embedding": 2.0, "fc_out": 0.8, ".out": 0.8}


# ---------------------------------------------------------------------------------------------
# The tutorial's two classes, as written there (sizes are constructor arguments).

class Encoder(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True,
                            bidirectional=True)
        # Project bidirectional output back to hidden_dim
        self.fc = nn.Linear(hidden_dim * 2, hidden_dim)

    def forward(self, src):
        # src: (batch, src_len)
        embedded = self.embedding(src)                   # (batch, src_len, embed_dim)
        outputs, (h, c) = self.lstm(embedded)           # outputs: (batch, src_len, hidden*2)
        # Combine forward and backward final states
        h = torch.tanh(self.fc(torch.cat([h[-2], h[-1]], dim=1)))
        return outputs, h


class AttentionDecoder(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.attention = nn.Linear(hidden_dim * 3, 1)   # Additive attention
        self.lstm = nn.LSTM(embed_dim + hidden_dim * 2, hidden_dim, batch_first=True)
        self.fc_out = nn.Linear(hidden_dim, vocab_size)

    def forward(self, tgt_token, hidden, encoder_outputs):
        embedded = self.embedding(tgt_token.unsqueeze(1))  # (batch, 1, embed_dim)
        src_len = encoder_outputs.size(1)
        h = hidden.squeeze(0).unsqueeze(1).repeat(1, src_len, 1)  # (batch, src_len, hidden)
        energy = self.attention(torch.cat([h, encoder_outputs], dim=2))  # (batch, src_len, 1)
        attn_weights = F.softmax(energy, dim=1)                           # (batch, src_len, 1)
        context = torch.sum(attn_weights * encoder_outputs, dim=1, keepdim=True)  # (batch, 1, hidden*2)
        lstm_input = torch.cat([embedded, context], dim=2)   # (batch, 1, embed + hidden*2)
        output, (hidden, cell) = self.lstm(lstm_input, (hidden, torch.zeros_like(hidden)))
        prediction = self.fc_out(output.squeeze(1))  # (batch, vocab_size)
        return prediction, hidden, attn_weights.squeeze(2)


class TanhLinear(nn.Linear):
    """tanh(Linear(x)): the tutorial's score with a tanh, under the same parameter names."""

    def forward(self, x):
        return torch.tanh(super().forward(x))


class Tutorial(nn.Module):
    """Holds the two modules (state_dict keys encoder.*, decoder.*) and decodes as the
    tutorial's demo does: encoder(src), then decoder(token, hidden, outputs) per step."""

    def __init__(self, vs, vt, e, h, score_tanh=False):
        super().__init__()
        self.encoder, self.decoder = Encoder(vs, e, h), AttentionDecoder(vt, e, h)
        if score_tanh:
            self.decoder.attention = TanhLinear(h * 3, 1)

    def start(self, source_ids, source_mask):
        outputs, h = self.encoder(source_ids)
        return outputs, h.unsqueeze(0)

    def step(self, prev, hidden, memory, source_mask):
        return self.decoder(prev, hidden, memory)


# ---------------------------------------------------------------------------------------------
# PyTorch's "Translation with a Sequence to Sequence Network and Attention" tutorial: GRU
# encoder and AttnDecoderRNN with BahdanauAttention (Wa, Ua, Va), dropout left out (eval).

class EncoderGRU(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)

    def forward(self, input):
        output, hidden = self.gru(self.embedding(input))
        return output, hidden


class BahdanauAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.Wa = nn.Linear(hidden_size, hidden_size)
        self.Ua = nn.Linear(hidden_size, hidden_size)
        self.Va = nn.Linear(hidden_size, 1)

    def forward(self, query, keys):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
        scores = scores.squeeze(2).unsqueeze(1)
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context, weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super().__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = BahdanauAttention(hidden_size)
        self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)

    def forward_step(self, input, hidden, encoder_outputs):
        embedded = self.embedding(input)
        query = hidden.permute(1, 0, 2)
        context, attn_weights = self.attention(query, encoder_outputs)
        input_gru = torch.cat((embedded, context), dim=2)
        output, hidden = self.gru(input_gru, hidden)
        output = self.out(output)
        return output, hidden, attn_weights


class Translation(nn.Module):
    def __init__(self, vs, vt, h):
        super().__init__()
        self.encoder, self.decoder = EncoderGRU(vs, h), AttnDecoderRNN(h, vt)

    def start(self, source_ids, source_mask):
        return self.encoder(source_ids)

    def step(self, prev, hidden, memory, source_mask):
        output, hidden, weights = self.decoder.forward_step(prev.unsqueeze(1), hidden, memory)
        return output[:, 0], hidden, weights[:, 0]


# ---------------------------------------------------------------------------------------------
# Luong attention in the PyTorch chatbot tutorial's naming (masked, batch_first).

class EncoderRNN(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_size, n_layers, cell="gru"):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        rnn = (nn.GRU if cell == "gru" else nn.LSTM)(embed_dim, hidden_size, n_layers, bidirectional=True,
                                                      batch_first=True)
        self.cell = cell
        setattr(self, cell, rnn)            # named gru (the chatbot's) or lstm

    def forward(self, input_seq, input_lengths):
        embedded = self.embedding(input_seq)
        packed = nn.utils.rnn.pack_padded_sequence(embedded, input_lengths, batch_first=True, enforce_sorted=False)
        outputs, hidden = getattr(self, self.cell)(packed)
        outputs, _ = nn.utils.rnn.pad_packed_sequence(outputs, batch_first=True, total_length=input_seq.shape[1])
        return outputs, hidden


class Attn(nn.Module):
    def __init__(self, method, hidden_size, memory_size):
        super().__init__()
        self.method = method
        if method == "general":
            self.attn = nn.Linear(memory_size, hidden_size)
        elif method == "concat":
            self.attn = nn.Linear(hidden_size + memory_size, hidden_size)
            self.v = nn.Parameter(torch.FloatTensor(hidden_size))

    def forward(self, hidden, encoder_outputs, mask):
        if self.method == "concat":
            both = torch.cat((hidden.expand(-1, encoder_outputs.size(1), -1), encoder_outputs), 2)
            energies = torch.sum(self.v * self.attn(both).tanh(), dim=2)
        else:
            keys = self.attn(encoder_outputs) if self.method == "general" else encoder_outputs
            energies = torch.sum(hidden * keys, dim=2)              # (batch, src_len)
        return energies.masked_fill(mask == 0, float("-inf")).softmax(dim=1).unsqueeze(1)


class LuongAttnDecoderRNN(nn.Module):
    def __init__(self, attn_model, vocab_size, embed_dim, hidden_size, memory_size, n_layers, state_first):
        super().__init__()
        self.state_first = state_first
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.gru = nn.GRU(embed_dim, hidden_size, n_layers, batch_first=True)
        self.concat = nn.Linear(hidden_size + memory_size, hidden_size)
        self.out = nn.Linear(hidden_size, vocab_size)
        self.attn = Attn(attn_model, hidden_size, memory_size)

    def forward(self, input_step, last_hidden, encoder_outputs, mask):
        embedded = self.embedding(input_step).unsqueeze(1)
        rnn_output, hidden = self.gru(embedded, last_hidden)
        attn_weights = self.attn(rnn_output, encoder_outputs, mask)
        context = attn_weights.bmm(encoder_outputs).squeeze(1)
        rnn_output = rnn_output.squeeze(1)
        parts = (rnn_output, context) if self.state_first else (context, rnn_output)
        concat_output = torch.tanh(self.concat(torch.cat(parts, 1)))
        return self.out(concat_output), hidden, attn_weights.squeeze(1)


class Luong(nn.Module):
    def __init__(self, method, vs, vt, e, h, layers, state_first):
        super().__init__()
        self.en = EncoderRNN(vs, e, h, layers)
        self.de = LuongAttnDecoderRNN(method, vt, e, 2 * h, 2 * h, layers, state_first)

    def start(self, source_ids, source_mask):
        outputs, hidden = self.en(source_ids, source_mask.sum(1))
        return outputs, per_layer(hidden)

    def step(self, prev, hidden, memory, source_mask):
        return self.de(prev, hidden, memory, source_mask)


def per_layer(state):
    """Encoder final states [2L, B, H] as decoder states [L, B, 2H]: layer k's [h_fwd; h_bwd]."""
    return torch.cat([state[0::2], state[1::2]], dim=-1)


class FeedingDecoder(nn.Module):
    """Luong with input feeding (as OpenNMT): the LSTM reads [embedded; h~_{t-1}], h~_0 = 0;
    general scoring, h~ = tanh(concat([c; s_t])), logits = out(h~)."""

    def __init__(self, vocab_size, embed_dim, hidden_size, memory_size, n_layers):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim + hidden_size, hidden_size, n_layers, batch_first=True)
        self.attn = Attn("general", hidden_size, memory_size)
        self.concat = nn.Linear(memory_size + hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, vocab_size)

    def forward(self, input_step, state, encoder_outputs, mask):
        hidden, feed = state
        x = torch.cat([self.embedding(input_step), feed], 1).unsqueeze(1)
        rnn_output, hidden = self.lstm(x, hidden)
        attn_weights = self.attn(rnn_output, encoder_outputs, mask)
        context = attn_weights.bmm(encoder_outputs).squeeze(1)
        h_tilde = torch.tanh(self.concat(torch.cat((context, rnn_output.squeeze(1)), 1)))
        return self.out(h_tilde), (hidden, h_tilde), attn_weights.squeeze(1)


class Feeding(nn.Module):
    def __init__(self, vs, vt, e, h, layers):
        super().__init__()
        self.en = EncoderRNN(vs, e, h, layers, cell="lstm")
        self.de = FeedingDecoder(vt, e, 2 * h, 2 * h, layers)

    def start(self, source_ids, source_mask):
        outputs, (h, c) = self.en(source_ids, source_mask.sum(1))
        feed = torch.zeros(source_ids.shape[0], h.shape[-1] * 2, dtype=outputs.dtype)
        return outputs, ((per_layer(h), per_layer(c)), feed)

    def step(self, prev, state, memory, source_mask):
        return self.de(prev, state, memory, source_mask)


# ---------------------------------------------------------------------------------------------

def decode(model, source, mask, forced=None):
    """Greedy from bos (or fed `forced` [B, T]): ids [B, T], logits [B, T, Vt], attention [B, T, S]."""
    with torch.no_grad():
        memory, hidden = model.start(source, mask)
        prev = torch.full((source.shape[0],), BOS_ID, dtype=torch.int64)
        ids, logits, attention = [], [], []
        for t in range(STEPS):
            step_logits, hidden, weights = model.step(prev, hidden, memory, mask)
            prev = step_logits.argmax(-1) if forced is None else forced[:, t]
            ids.append(step_logits.argmax(-1))
            logits.append(step_logits)
            attention.append(weights)
    return torch.stack(ids, 1), torch.stack(logits, 1), torch.stack(attention, 1)


def draw(make, source, mask):
    """Weights drawn until greedy decoding is varied and its choices well separated."""
    for attempt in range(ATTEMPTS):
        model = make()
        ref.randomize(model, STDS["default"], STDS)
        model64 = copy.deepcopy(model).double()
        ids, logits, attention = decode(model64, source, mask)
        top = logits.topk(2, dim=-1).values
        margin = (top[..., 0] - top[..., 1]).min().item()
        if min(len(set(row)) for row in ids.tolist()) >= MIN_DISTINCT and margin >= MIN_MARGIN:
            return model, ids, logits, attention, attempt
    raise RuntimeError(f"no weights draw in {ATTEMPTS} gave varied, well separated greedy tokens")


def torch_f32_error(model, source, mask, ids, logits, attention):
    """How far PyTorch in float32, fed the greedy tokens, lands from the float64 result."""
    _, got_logits, got_attention = decode(copy.deepcopy(model).float(), source, mask, forced=ids)
    logit_error = ((got_logits.double() - logits).abs() / (logits.abs() + 1)).max().item()
    return max(logit_error, (got_attention.double() - attention).abs().max().item())


def write_json(path, content):
    with open(path, "w") as f:
        json.dump(content, f, indent=2)
        f.write("\n")


def write_case(out_dir, name, make, source, mask, nested, flat_prefix, config, extra_configs):
    built, ids, logits, attention, attempt = draw(make, source, mask)
    case_dir = os.path.join(out_dir, name)
    os.makedirs(case_dir, exist_ok=True)
    state = {k: v.detach().float().contiguous().clone() for k, v in built.state_dict().items()}
    # .pt as a user saves two modules: a dict of their state_dicts
    torch.save({key: getattr(built, key).state_dict() for key in nested}, os.path.join(case_dir, "weights.pt"))
    flat = {flat_prefix + k: v for k, v in state.items()}
    for fmt in ("safetensors", "npz"):
        save_weights(os.path.join(case_dir, "weights." + fmt), fmt, flat)
    save_arrays(os.path.join(case_dir, "inputs"), {"source_ids": source, "source_mask": mask})
    save_arrays(os.path.join(case_dir, "expected"),
                {"greedy_ids": ids, "greedy_logits": logits, "greedy_attention": attention})
    write_json(os.path.join(case_dir, "config.json"), config)
    for filename, content in extra_configs.items():
        write_json(os.path.join(case_dir, filename), content)
    case = {"family": "rnn-seq2seq-modules", "preset": "rnn-seq2seq",
            "weights_files": ["weights.pt", "weights.safetensors", "weights.npz"],
            "bos_id": BOS_ID, "eos_id": EOS_ID, "max_steps": STEPS, "attempt": attempt,
            "torch_f32_error": torch_f32_error(built, source, mask, ids, logits, attention)}
    write_json(os.path.join(case_dir, "case.json"), case)
    print(f"{name}: weights draw {attempt}, greedy distinct {[len(set(r)) for r in ids.tolist()]}/{STEPS}, "
          f"PyTorch f32 error {case['torch_f32_error']:.3g}", flush=True)
    return case_dir


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    out_dir = argv[0]
    torch.set_num_threads(min(2, torch.get_num_threads()))
    tokens = {"bos_token_id": BOS_ID, "eos_token_id": EOS_ID}  # transformers' names

    full = ref.ragged_mask(BATCH, 8, (8, 8, 8))          # the tutorial has no source mask
    for index, (tag, tanh) in enumerate((("", False), ("tanh_", True))):
        torch.manual_seed(BASE_SEED + 100 * index)
        source = torch.randint(3, 37, (BATCH, 8))
        config = {**tokens, "score_activation": "tanh"} if tanh else tokens
        case_dir = write_case(out_dir, f"seq2seq_tutorial_{tag}lstm_v37_41_e12_h20",
                              lambda: Tutorial(37, 41, 12, 20, tanh), source, full, ("encoder", "decoder"), "",
                              config, {})
        lacking = {k: v.detach().float().contiguous() for k, v in Tutorial(37, 41, 12, 20, tanh).state_dict().items()
                   if not k.startswith("decoder.fc_out.")}
        save_weights(os.path.join(case_dir, "missing_fc_out.safetensors"), "safetensors", lacking)

    torch.manual_seed(BASE_SEED + 500)
    source = torch.randint(3, 37, (BATCH, 8))
    write_case(out_dir, "seq2seq_translation_tutorial_gru_h16", lambda: Translation(37, 41, 16), source, full,
               ("encoder", "decoder"), "", tokens, {})

    mask = ref.ragged_mask(BATCH, 9, (9, 6, 3))
    for index, (method, order) in enumerate((("general", "state_first"), ("dot", "context_first"),
                                             ("concat", "state_first"))):
        torch.manual_seed(BASE_SEED + 1000 * (index + 1))
        source = torch.randint(3, 37, (BATCH, 9)) * mask
        given = {**tokens, "combine_order": order}
        if method == "dot":  # the start token by its own key, beside a different bos_token_id
            given = {"decoder_start_token_id": BOS_ID, "bos_token_id": BOS_ID + 3, "eos_token_id": [EOS_ID],
                     "pad_token_id": 0, "combine_order": order}
        case_dir = write_case(
            out_dir, f"seq2seq_luong_{method}_gru_l2", lambda: Luong(method, 37, 41, 14, 10, 2, order == "state_first"),
            source, mask, ("en", "de"), "module.", given,
            {"config_no_order.json": tokens, "config_no_bos.json": {"eos_token_id": EOS_ID, "combine_order": order},
             "config_bos_disagrees.json": {**tokens, "bos_id": BOS_ID + 1, "combine_order": order},
             "config_two_eos.json": {**tokens, "eos_token_id": [EOS_ID, 3], "combine_order": order}})
        mismatch = Luong(method, 37, 41, 14, 10, 2, True)
        mismatch.en = EncoderRNN(37, 14, 10, 3)
        save_weights(os.path.join(case_dir, "mismatch_layers.safetensors"), "safetensors",
                     {k: v.detach().float().contiguous() for k, v in mismatch.state_dict().items()})

    torch.manual_seed(BASE_SEED + 5000)
    source = torch.randint(3, 37, (BATCH, 9)) * mask
    # our older key names, still accepted
    feeding = {"bos_id": BOS_ID, "eos_id": EOS_ID, "combine_order": "context_first", "input_feeding": True}
    write_case(out_dir, "seq2seq_luong_feeding_lstm_l2", lambda: Feeding(37, 41, 14, 10, 2), source, mask,
               ("en", "de"), "model.", feeding,
               {"config_no_feeding.json": {**tokens, "combine_order": "context_first"}})


if __name__ == "__main__":
    main(sys.argv[1:])
