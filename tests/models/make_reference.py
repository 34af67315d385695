#!/usr/bin/python3
"""Writes PyTorch reference cases for the engine's model parity tests (run with Debian's python3-torch).

Usage: make_reference.py OUT_DIR [--format pt|safetensors|npz] [--only FAMILY]

Families (case.json "family" and "preset"): bert, torch-encoder, gpt2, llama, torch-transformer.
Every case is a small random-weight model, written as OUT_DIR/<case_name>/:
  weights.<pt|safetensors|npz>  the model's state_dict, float32 tensors under HuggingFace /
                                torch.nn names (listed per family in the model classes below).
                                .pt: torch.save (zip); .npz: numpy.savez {name: array};
                                .safetensors: u64 LE header length, JSON header padded with
                                spaces to a multiple of 8, raw LE data in sorted name order.
                                All three are written; case.json "weights" names the primary
                                one (--format, else pt, safetensors, npz for case i % 3) and
                                "weights_files" lists all.
  config.json                   HF-style config (bert, gpt2, llama) or our own keys (torch-*).
  inputs/<name>.npy             token ids and masks int32, float inputs float32.
  expected/<name>.npy           ids int32, everything else float32.
  case.json                     {"family", "preset", "weights", "inputs": [...], "outputs": [...],
                                 "rtol", "atol", "seed", and per family:
                                 "padded_positions_zeroed" (bert, torch-encoder: expected
                                 last_hidden_state is 0.0 where attention_mask is 0),
                                 "max_new" (gpt2, llama), "causal_tgt" (torch-transformer)}.
Shapes:
  bert:              in input_ids, attention_mask, token_type_ids [B,S] (mask 1s then 0s, ragged);
                     out last_hidden_state [B,S,d], pooler_output [B,d], logits [B,num_labels] if
                     the config has num_labels.
  torch-encoder:     in input_ids, attention_mask [B,S]; out last_hidden_state [B,S,d],
                     logits [B,num_classes]. x = embedding(ids) + pos_embedding(arange(S)) (no
                     sqrt(d) scale), padded keys masked, pooling "mean" over valid positions or
                     "cls" = position 0, then classifier.
  gpt2, llama:       in prompt_ids [1,P]; out prefill_logits [1,V] (last prompt position),
                     greedy_ids [64] (argmax decoding after the prompt), step_logits [64,V] (the
                     logits that chose each greedy id), greedy_margins [64] (best - second best).
  torch-transformer: in src [B,S,d], tgt [B,T,d], src_key_padding_mask [B,S] (1 = pad; src_mask,
                     1 = valid, for goldens converted before); out output [B,T,d]
                     with a causal tgt mask and src_mask as both src and memory key padding mask.
  torch-mha:         in query, key_value, key_padding_mask (1 = pad); out output.
  torch-decoder:     in tgt, memory, memory_key_padding_mask (1 = pad); out output.
References are computed in float64 from the float32 weights and inputs, then stored as float32.
The torch-* expected values come from a functional re-implementation here and are asserted
against torch.nn's own forward; every checkpoint is read back and asserted bit-exact.
"""
import argparse
import copy
import json
import math
import os
import sys
import time
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

BASE_SEED = 20240601
FORMATS = ("pt", "safetensors", "npz")
TOLERANCE = 1e-4
MAX_NEW = 64
MODULE_MATCH = 1e-9           # torch.nn forward vs our functional float64 reference

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Also used through this module by the other reference scripts (ref.save_weights, ...).
from case_files import assert_same_state_dict, load_weights, save_arrays, save_weights  # noqa: E402


# ---------------------------------------------------------------------------------------------
# Shared pieces

class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Conv1D(nn.Module):
    """GPT-2's linear layer: weight [in, out], y = x @ W + b."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias


def split_heads(x, n_heads):
    batch, seq, _ = x.shape
    return x.view(batch, seq, n_heads, -1).transpose(1, 2)


def merge_heads(x):
    batch, _, seq, _ = x.shape
    return x.transpose(1, 2).reshape(batch, seq, -1)


def attention(q, k, v, additive_mask):
    """q [B,H,Sq,hd], k/v [B,H,Sk,hd]; softmax(q k^T / sqrt(hd) + mask) v."""
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if additive_mask is not None:
        scores = scores + additive_mask
    return torch.softmax(scores, dim=-1) @ v


def causal_mask(seq, dtype, fill):
    return torch.full((seq, seq), fill, dtype=dtype).triu(1)


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


def randomize(model, std, stds=None):
    """Norm weights 1 + 0.1 randn, every bias 0.1 randn, other weights std * randn, where
    stds maps a name substring to its own std (first match wins)."""
    stds = stds or {}
    with torch.no_grad():
        for module_name, module in model.named_modules():
            for name, p in module.named_parameters(recurse=False):
                full = f"{module_name}.{name}" if module_name else name
                if isinstance(module, (nn.LayerNorm, RMSNorm)) and name == "weight":
                    p.copy_(1.0 + 0.1 * torch.randn(p.shape))
                elif name.endswith("bias"):
                    p.copy_(0.1 * torch.randn(p.shape))
                else:
                    scale = next((s for key, s in stds.items() if key in full), std)
                    p.copy_(scale * torch.randn(p.shape))


def ragged_mask(batch, seq, lengths):
    mask = torch.zeros(batch, seq, dtype=torch.int64)
    for row, length in enumerate(lengths):
        mask[row, :length] = 1
    return mask


def random_ids(vocab, shape, mask=None):
    ids = torch.randint(1, vocab, shape)
    return ids if mask is None else ids * mask


# ---------------------------------------------------------------------------------------------
# BERT (HF BertModel / BertForSequenceClassification math, no dropout)

class BertEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["hidden_size"]
        self.word_embeddings = nn.Embedding(c["vocab_size"], d)
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], d)
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], d)
        self.LayerNorm = nn.LayerNorm(d, eps=c["layer_norm_eps"])

    def forward(self, input_ids, token_type_ids):
        positions = torch.arange(input_ids.shape[1])
        x = (self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
             + self.position_embeddings(positions)[None])
        return self.LayerNorm(x)


class BertSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["hidden_size"]
        self.n_heads = c["num_attention_heads"]
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, h, additive_mask):
        q, k, v = (split_heads(proj(h), self.n_heads) for proj in (self.query, self.key, self.value))
        return merge_heads(attention(q, k, v, additive_mask))


class BertDenseLayerNorm(nn.Module):
    """BertSelfOutput and BertOutput: LayerNorm(dense(x) + residual)."""

    def __init__(self, n_in, d, eps):
        super().__init__()
        self.dense = nn.Linear(n_in, d)
        self.LayerNorm = nn.LayerNorm(d, eps=eps)

    def forward(self, x, residual):
        return self.LayerNorm(self.dense(x) + residual)


class BertAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = BertSelfAttention(c)
        self.output = BertDenseLayerNorm(c["hidden_size"], c["hidden_size"], c["layer_norm_eps"])

    def forward(self, h, additive_mask):
        return self.output(self.self(h, additive_mask), h)


class BertIntermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["intermediate_size"])

    def forward(self, h):
        return gelu_erf(self.dense(h))


class BertLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = BertAttention(c)
        self.intermediate = BertIntermediate(c)
        self.output = BertDenseLayerNorm(c["intermediate_size"], c["hidden_size"], c["layer_norm_eps"])

    def forward(self, h, additive_mask):
        a = self.attention(h, additive_mask)
        return self.output(self.intermediate(a), a)


class BertEncoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(BertLayer(c) for _ in range(c["num_hidden_layers"]))


class BertPooler(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])

    def forward(self, h):
        return torch.tanh(self.dense(h[:, 0]))


class Bert(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = BertEmbeddings(c)
        self.encoder = BertEncoder(c)
        self.pooler = BertPooler(c)
        labels = c.get("num_labels")
        self.classifier = nn.Linear(c["hidden_size"], labels) if labels else None

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.embeddings(input_ids, token_type_ids)
        dtype = h.dtype
        additive = (1.0 - attention_mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min
        for layer in self.encoder.layer:
            h = layer(h, additive)
        pooled = self.pooler(h)
        out = {"last_hidden_state": h, "pooler_output": pooled}
        if self.classifier is not None:
            out["logits"] = self.classifier(pooled)
        return out


# ---------------------------------------------------------------------------------------------
# GPT-2 (HF GPT2LMHeadModel math, lm head tied to wte)

class GPT2Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["n_embd"]
        self.n_heads = c["n_head"]
        self.c_attn, self.c_proj = Conv1D(d, 3 * d), Conv1D(d, d)

    def forward(self, x):
        q, k, v = (split_heads(t, self.n_heads) for t in self.c_attn(x).split(x.shape[-1], dim=-1))
        mask = causal_mask(x.shape[1], x.dtype, torch.finfo(x.dtype).min)
        return self.c_proj(merge_heads(attention(q, k, v, mask)))


class GPT2MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["n_embd"]
        self.c_fc, self.c_proj = Conv1D(d, 4 * d), Conv1D(4 * d, d)

    def forward(self, x):
        return self.c_proj(gelu_new(self.c_fc(x)))


class GPT2Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, eps = c["n_embd"], c["layer_norm_epsilon"]
        self.ln_1, self.attn = nn.LayerNorm(d, eps=eps), GPT2Attention(c)
        self.ln_2, self.mlp = nn.LayerNorm(d, eps=eps), GPT2MLP(c)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["n_embd"]
        self.wte = nn.Embedding(c["vocab_size"], d)
        self.wpe = nn.Embedding(c["n_positions"], d)
        self.h = nn.ModuleList(GPT2Block(c) for _ in range(c["n_layer"]))
        self.ln_f = nn.LayerNorm(d, eps=c["layer_norm_epsilon"])

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1]))[None]
        for block in self.h:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.T


# ---------------------------------------------------------------------------------------------
# Llama (HF LlamaForCausalLM math: RMSNorm, rotate_half RoPE, GQA, SwiGLU, untied lm_head)

def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def apply_rope(x, theta):
    """x [B,H,S,hd] at positions 0..S-1."""
    head_dim = x.shape[-1]
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    freqs = torch.arange(x.shape[2], dtype=torch.float64)[:, None] * inv_freq[None]
    angles = torch.cat([freqs, freqs], dim=-1)
    return x * angles.cos().to(x.dtype) + rotate_half(x) * angles.sin().to(x.dtype)


class LlamaAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, hd = c["hidden_size"], c["head_dim"]
        self.n_heads, self.n_kv, self.theta = c["num_attention_heads"], c["num_key_value_heads"], c["rope_theta"]
        self.q_proj = nn.Linear(d, self.n_heads * hd, bias=False)
        self.k_proj = nn.Linear(d, self.n_kv * hd, bias=False)
        self.v_proj = nn.Linear(d, self.n_kv * hd, bias=False)
        self.o_proj = nn.Linear(self.n_heads * hd, d, bias=False)

    def forward(self, x):
        q = apply_rope(split_heads(self.q_proj(x), self.n_heads), self.theta)
        k = apply_rope(split_heads(self.k_proj(x), self.n_kv), self.theta)
        v = split_heads(self.v_proj(x), self.n_kv)
        groups = self.n_heads // self.n_kv       # query head h reads kv head h // groups
        k, v = k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
        mask = causal_mask(x.shape[1], x.dtype, torch.finfo(x.dtype).min)
        return self.o_proj(merge_heads(attention(q, k, v, mask)))


class LlamaMLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, inner = c["hidden_size"], c["intermediate_size"]
        self.gate_proj = nn.Linear(d, inner, bias=False)
        self.up_proj = nn.Linear(d, inner, bias=False)
        self.down_proj = nn.Linear(inner, d, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, eps = c["hidden_size"], c["rms_norm_eps"]
        self.self_attn, self.mlp = LlamaAttention(c), LlamaMLP(c)
        self.input_layernorm, self.post_attention_layernorm = RMSNorm(d, eps), RMSNorm(d, eps)

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList(LlamaLayer(c) for _ in range(c["num_hidden_layers"]))
        self.norm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])


class Llama(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.model = LlamaModel(c)
        self.lm_head = nn.Linear(c["hidden_size"], c["vocab_size"], bias=False)

    def forward(self, ids):
        x = self.model.embed_tokens(ids)
        for layer in self.model.layers:
            x = layer(x)
        return self.lm_head(self.model.norm(x))


# ---------------------------------------------------------------------------------------------
# torch.nn wrappers and their functional float64 re-implementation

class EncoderClassifier(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, eps = c["d_model"], c["layer_norm_eps"]
        self.embedding = nn.Embedding(c["vocab_size"], d)
        self.pos_embedding = nn.Embedding(c["max_len"], d)
        layer = nn.TransformerEncoderLayer(d, c["nhead"], c["dim_feedforward"], dropout=0.0,
                                           activation=c["activation"], layer_norm_eps=eps,
                                           batch_first=True, norm_first=c["norm_first"])
        self.encoder = nn.TransformerEncoder(layer, c["num_layers"],
                                             norm=nn.LayerNorm(d, eps=eps) if c["norm_first"] else None)
        self.classifier = nn.Linear(d, c["num_classes"])
        self.pooling = c["pooling"]

    def forward(self, input_ids, attention_mask):
        x = self.embedding(input_ids) + self.pos_embedding(torch.arange(input_ids.shape[1]))[None]
        h = self.encoder(x, src_key_padding_mask=attention_mask == 0)
        return h, self.classifier(pool(h, attention_mask, self.pooling))


class Seq2Seq(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.transformer = nn.Transformer(
            c["d_model"], c["nhead"], c["num_encoder_layers"], c["num_decoder_layers"],
            c["dim_feedforward"], dropout=0.0, activation=c["activation"],
            layer_norm_eps=c["layer_norm_eps"], batch_first=True, norm_first=c["norm_first"])

    def forward(self, src, tgt, src_mask):
        pad = src_mask == 0
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1]).to(tgt.dtype)
        return self.transformer(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=pad,
                                memory_key_padding_mask=pad)


def pool(h, attention_mask, pooling):
    if pooling == "cls":
        return h[:, 0]
    m = attention_mask.to(h.dtype)[..., None]
    return (h * m).sum(1) / m.sum(1)


def ref_linear(x, sd, prefix):
    return x @ sd[prefix + "weight"].T + sd[prefix + "bias"]


def ref_layer_norm(x, sd, prefix, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * sd[prefix + "weight"] + sd[prefix + "bias"]


def ref_mha(sd, prefix, x_q, x_kv, n_heads, key_pad=None, causal=False):
    d = x_q.shape[-1]
    w, b = sd[prefix + "in_proj_weight"], sd[prefix + "in_proj_bias"]
    q = x_q @ w[:d].T + b[:d]
    k = x_kv @ w[d:2 * d].T + b[d:2 * d]
    v = x_kv @ w[2 * d:].T + b[2 * d:]
    mask = torch.zeros(x_q.shape[0], 1, x_q.shape[1], x_kv.shape[1], dtype=x_q.dtype)
    if key_pad is not None:
        mask = mask.masked_fill(key_pad[:, None, None, :], float("-inf"))
    if causal:
        mask = mask + causal_mask(x_q.shape[1], x_q.dtype, float("-inf"))
    out = attention(*(split_heads(t, n_heads) for t in (q, k, v)), mask)
    return ref_linear(merge_heads(out), sd, prefix + "out_proj.")


def ref_feed_forward(sd, prefix, x, activation):
    inner = ref_linear(x, sd, prefix + "linear1.")
    inner = torch.relu(inner) if activation == "relu" else gelu_erf(inner)
    return ref_linear(inner, sd, prefix + "linear2.")


def ref_encoder_layer(sd, p, x, c, key_pad):
    def norm(y, n):
        return ref_layer_norm(y, sd, f"{p}{n}.", c["layer_norm_eps"])

    def self_attn(y):
        return ref_mha(sd, p + "self_attn.", y, y, c["nhead"], key_pad)

    def ff(y):
        return ref_feed_forward(sd, p, y, c["activation"])

    if c["norm_first"]:
        x = x + self_attn(norm(x, "norm1"))
        return x + ff(norm(x, "norm2"))
    x = norm(x + self_attn(x), "norm1")
    return norm(x + ff(x), "norm2")


def ref_decoder_layer(sd, p, x, memory, c, memory_pad):
    def norm(y, n):
        return ref_layer_norm(y, sd, f"{p}{n}.", c["layer_norm_eps"])

    def self_attn(y):
        return ref_mha(sd, p + "self_attn.", y, y, c["nhead"], causal=True)

    def cross_attn(y):
        return ref_mha(sd, p + "multihead_attn.", y, memory, c["nhead"], memory_pad)

    def ff(y):
        return ref_feed_forward(sd, p, y, c["activation"])

    if c["norm_first"]:
        x = x + self_attn(norm(x, "norm1"))
        x = x + cross_attn(norm(x, "norm2"))
        return x + ff(norm(x, "norm3"))
    x = norm(x + self_attn(x), "norm1")
    x = norm(x + cross_attn(x), "norm2")
    return norm(x + ff(x), "norm3")


def ref_encoder(sd, prefix, x, c, n_layers, key_pad):
    for i in range(n_layers):
        x = ref_encoder_layer(sd, f"{prefix}layers.{i}.", x, c, key_pad)
    if prefix + "norm.weight" in sd:
        x = ref_layer_norm(x, sd, prefix + "norm.", c["layer_norm_eps"])
    return x


def ref_decoder(sd, prefix, x, memory, c, n_layers, memory_pad):
    for i in range(n_layers):
        x = ref_decoder_layer(sd, f"{prefix}layers.{i}.", x, memory, c, memory_pad)
    return ref_layer_norm(x, sd, prefix + "norm.", c["layer_norm_eps"])


# ---------------------------------------------------------------------------------------------
# Cases: each builder returns (model float32, config, inputs, outputs, extra case.json keys)

def float64_state(model):
    return {k: v.detach().double() for k, v in model.state_dict().items()}


def zero_padded(h, attention_mask):
    return h * attention_mask[..., None].to(h.dtype)


def assert_close(name, got, want):
    err = (got - want).abs().max().item()
    assert err <= MODULE_MATCH, f"{name}: torch.nn forward differs from the reference by {err}"


def bert_case(c, batch, seq, lengths):
    model = Bert(c)
    randomize(model, 0.1, {"embeddings": 0.2})
    mask = ragged_mask(batch, seq, lengths)
    ids = random_ids(c["vocab_size"], (batch, seq), mask)
    splits = torch.tensor([[int(torch.randint(1, n, ())) if n > 1 else 1] for n in lengths])
    types = (torch.arange(seq)[None] >= splits).long() * mask      # segment A then B in each row
    with torch.no_grad():
        out = copy.deepcopy(model).double()(ids, mask, types)
    out["last_hidden_state"] = zero_padded(out["last_hidden_state"], mask)
    inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
    return model, c, inputs, out, {"padded_positions_zeroed": True}


def torch_encoder_case(c, batch, seq, lengths):
    model = EncoderClassifier(c).eval()
    randomize(model, 0.1, {"embedding": 0.5})
    mask = ragged_mask(batch, seq, lengths)
    ids = random_ids(c["vocab_size"], (batch, seq), mask)
    sd = float64_state(model)
    x = sd["embedding.weight"][ids] + sd["pos_embedding.weight"][:seq][None]
    h = ref_encoder(sd, "encoder.", x, c, c["num_layers"], mask == 0)
    logits = ref_linear(pool(h, mask, c["pooling"]), sd, "classifier.")
    h = zero_padded(h, mask)
    with torch.no_grad():
        module_h, module_logits = copy.deepcopy(model).double()(ids, mask)
    assert_close("last_hidden_state", zero_padded(module_h, mask), h)
    assert_close("logits", module_logits, logits)
    inputs = {"input_ids": ids, "attention_mask": mask}
    return model, c, inputs, {"last_hidden_state": h, "logits": logits}, {"padded_positions_zeroed": True}


def torch_transformer_case(c, batch, src_len, tgt_len, lengths):
    model = Seq2Seq(c).eval()
    randomize(model, 0.1)
    d = c["d_model"]
    src, tgt = torch.randn(batch, src_len, d), torch.randn(batch, tgt_len, d)
    src_mask = ragged_mask(batch, src_len, lengths)
    sd = float64_state(model)
    pad = src_mask == 0
    memory = ref_encoder(sd, "transformer.encoder.", src.double(), c, c["num_encoder_layers"], pad)
    out = ref_decoder(sd, "transformer.decoder.", tgt.double(), memory, c, c["num_decoder_layers"], pad)
    with torch.no_grad():
        module_out = copy.deepcopy(model).double()(src.double(), tgt.double(), src_mask)
    assert_close("output", module_out, out)
    # src_mask (1 = token) for older files; the preset takes PyTorch's src_key_padding_mask (1 = pad)
    inputs = {"src": src, "tgt": tgt, "src_mask": src_mask, "src_key_padding_mask": (src_mask == 0).to(torch.int32)}
    return model, c, inputs, {"output": out}, {"causal_tgt": True}


def greedy(model64, prompt, max_new):
    """Argmax decoding on the full sequence each step; returns ids, logits and margins."""
    seq, logits, margins = prompt, [], []
    with torch.no_grad():
        for _ in range(max_new):
            step = model64(seq)[0, -1]
            top = torch.topk(step, 2).values
            logits.append(step)
            margins.append(top[0] - top[1])
            seq = torch.cat([seq, step.argmax().view(1, 1)], dim=1)
    return seq[0, prompt.shape[1]:], torch.stack(logits), torch.stack(margins)


def decoder_case(make_model, stds, c, prompt_len, min_distinct=8, min_margin=1e-3, attempts=20, max_new=MAX_NEW):
    """Re-draws the weights (same seed stream) until greedy decoding is varied and well separated."""
    for attempt in range(attempts):
        model = make_model(c)
        randomize(model, stds["default"], stds)
        prompt = random_ids(c["vocab_size"], (1, prompt_len))
        ids, logits, margins = greedy(copy.deepcopy(model).double(), prompt, max_new)
        distinct = len(set(ids.tolist()))
        if distinct >= min_distinct and margins.min().item() >= min_margin:
            break
    else:
        raise RuntimeError(f"no attempt gave >= {min_distinct} distinct tokens and margin >= {min_margin}")
    outputs = {"prefill_logits": logits[:1], "greedy_ids": ids, "step_logits": logits,
               "greedy_margins": margins}
    stats = {"distinct": distinct, "min_margin": margins.min().item(), "attempt": attempt}
    return model, c, {"prompt_ids": prompt}, outputs, {"max_new": max_new, "_stats": stats}


def gpt2_case(c, prompt_len):
    stds = {"default": 0.2, "wte": 0.2, "wpe": 0.2}
    return decoder_case(GPT2, stds, c, prompt_len)


def llama_case(c, prompt_len):
    stds = {"default": 0.15, "embed_tokens": 0.2, "lm_head": 0.2}
    return decoder_case(Llama, stds, c, prompt_len)


def bert_config(vocab, d, layers, heads, inner, labels=None):
    c = {"vocab_size": vocab, "hidden_size": d, "num_hidden_layers": layers, "num_attention_heads": heads,
         "intermediate_size": inner, "max_position_embeddings": 32, "type_vocab_size": 2,
         "layer_norm_eps": 1e-12, "hidden_act": "gelu"}
    if labels:
        c["num_labels"] = labels
    return c


def encoder_config(vocab, d, heads, layers, ff, activation, norm_first, pooling, classes):
    return {"vocab_size": vocab, "d_model": d, "nhead": heads, "num_layers": layers, "dim_feedforward": ff,
            "activation": activation, "norm_first": norm_first, "layer_norm_eps": 1e-5, "max_len": 32,
            "pooling": pooling, "num_classes": classes}


def gpt2_config(vocab, d, layers, heads):
    return {"vocab_size": vocab, "n_embd": d, "n_layer": layers, "n_head": heads, "n_positions": 80,
            "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}


def llama_config(vocab, d, inner, layers, heads, kv_heads, head_dim, eps=1e-6, theta=10000.0):
    return {"vocab_size": vocab, "hidden_size": d, "intermediate_size": inner, "num_hidden_layers": layers,
            "num_attention_heads": heads, "num_key_value_heads": kv_heads, "head_dim": head_dim,
            "rms_norm_eps": eps, "rope_theta": theta, "max_position_embeddings": 96,
            "tie_word_embeddings": False}


class MhaModule(nn.Module):
    """A bare nn.MultiheadAttention under `attn` (names attn.in_proj_weight, ...)."""

    def __init__(self, c):
        super().__init__()
        self.attn = nn.MultiheadAttention(c["embed_dim"], c["num_heads"], batch_first=True)


def torch_mha_case(c, batch, q_len, kv_len, lengths):
    model = MhaModule(c).eval()
    randomize(model, 0.2)
    e = c["embed_dim"]
    query, key_value = torch.randn(batch, q_len, e), torch.randn(batch, kv_len, e)
    mask = ragged_mask(batch, kv_len, lengths)
    with torch.no_grad():
        attn = copy.deepcopy(model).double().attn
        out, _ = attn(query.double(), key_value.double(), key_value.double(), key_padding_mask=mask == 0,
                      need_weights=False)
    sd = float64_state(model)
    want = ref_mha(sd, "attn.", query.double(), key_value.double(), c["num_heads"], key_pad=mask == 0)
    assert_close("output", out, want)
    # PyTorch's key_padding_mask (1 = pad), as the preset takes it
    return (model, c, {"query": query, "key_value": key_value, "key_padding_mask": (mask == 0).to(torch.int32)},
            {"output": out}, {})


class DecoderModule(nn.Module):
    """nn.TransformerDecoder (with its final norm) under `decoder`."""

    def __init__(self, c):
        super().__init__()
        layer = nn.TransformerDecoderLayer(c["d_model"], c["nhead"], c["dim_feedforward"], dropout=0.0,
                                           activation=c["activation"], batch_first=True, norm_first=c["norm_first"])
        self.decoder = nn.TransformerDecoder(layer, c["num_layers"], norm=nn.LayerNorm(c["d_model"]))


def torch_decoder_case(c, batch, tgt_len, src_len, lengths):
    model = DecoderModule(c).eval()
    randomize(model, 0.1)
    d = c["d_model"]
    tgt, memory = torch.randn(batch, tgt_len, d), torch.randn(batch, src_len, d)
    memory_mask = ragged_mask(batch, src_len, lengths)
    causal = nn.Transformer.generate_square_subsequent_mask(tgt_len).double()
    with torch.no_grad():
        out = copy.deepcopy(model).double().decoder(tgt.double(), memory.double(), tgt_mask=causal,
                                                    memory_key_padding_mask=memory_mask == 0)
    inputs = {"tgt": tgt, "memory": memory, "memory_key_padding_mask": (memory_mask == 0).to(torch.int32)}
    return model, c, inputs, {"output": out}, {}


def seq2seq_config(d, heads, enc_layers, dec_layers, ff, activation, norm_first):
    return {"d_model": d, "nhead": heads, "num_encoder_layers": enc_layers, "num_decoder_layers": dec_layers,
            "dim_feedforward": ff, "activation": activation, "norm_first": norm_first, "layer_norm_eps": 1e-5}


# (case name, family, builder, builder arguments)
CASES = [
    ("bert_l2_d32_h4", "bert", bert_case,
     (bert_config(100, 32, 2, 4, 64), 3, 9, (9, 6, 1))),
    ("bert_cls3_l3_d48_h6", "bert", bert_case,
     (bert_config(160, 48, 3, 6, 96, labels=3), 4, 12, (12, 9, 1, 5))),
    ("bert_l1_d64_h8", "bert", bert_case,
     (bert_config(64, 64, 1, 8, 128), 2, 7, (7, 4))),
    ("torch_encoder_postln_relu_mean_l2_d32_h4", "torch-encoder", torch_encoder_case,
     (encoder_config(90, 32, 4, 2, 64, "relu", False, "mean", 4), 3, 10, (10, 7, 1))),
    ("torch_encoder_preln_gelu_cls_l3_d48_h6", "torch-encoder", torch_encoder_case,
     (encoder_config(120, 48, 6, 3, 96, "gelu", True, "cls", 5), 4, 8, (8, 5, 1, 7))),
    ("gpt2_l2_d32_h4", "gpt2", gpt2_case, (gpt2_config(128, 32, 2, 4), 7)),
    ("gpt2_l3_d48_h6", "gpt2", gpt2_case, (gpt2_config(256, 48, 3, 6), 8)),
    ("llama_gqa_l2_d64_h8_kv2", "llama", llama_case, (llama_config(200, 64, 128, 2, 8, 2, 8), 7)),
    ("llama_hd16_l2_d48_h4", "llama", llama_case, (llama_config(256, 48, 96, 2, 4, 4, 16), 6)),
    ("llama_mqa_hd16_l3_d32_h4_kv1", "llama", llama_case,
     (llama_config(150, 32, 80, 3, 4, 1, 16, eps=1e-5, theta=500.0), 7)),
    ("torch_transformer_postln_relu_e2_d1_d32_h4", "torch-transformer", torch_transformer_case,
     (seq2seq_config(32, 4, 2, 1, 64, "relu", False), 2, 7, 5, (7, 4))),
    ("torch_transformer_preln_gelu_e1_d2_d48_h6", "torch-transformer", torch_transformer_case,
     (seq2seq_config(48, 6, 1, 2, 96, "gelu", True), 2, 9, 6, (9, 3))),
    ("torch_mha_e32_h4", "torch-mha", torch_mha_case,
     ({"embed_dim": 32, "num_heads": 4, "max_len": 16}, 3, 5, 9, (9, 6, 2))),
    ("torch_mha_e48_h8", "torch-mha", torch_mha_case,
     ({"embed_dim": 48, "num_heads": 8, "max_len": 16}, 2, 7, 4, (4, 3))),
    ("torch_decoder_postln_relu_l2_d32_h4", "torch-decoder", torch_decoder_case,
     ({"d_model": 32, "nhead": 4, "num_layers": 2, "dim_feedforward": 64, "activation": "relu",
       "norm_first": False, "layer_norm_eps": 1e-5, "max_len": 16}, 2, 6, 7, (7, 3))),
    ("torch_decoder_preln_gelu_l1_d48_h6", "torch-decoder", torch_decoder_case,
     ({"d_model": 48, "nhead": 6, "num_layers": 1, "dim_feedforward": 96, "activation": "gelu",
       "norm_first": True, "layer_norm_eps": 1e-5, "max_len": 16}, 3, 5, 8, (8, 8, 2))),
]


# ---------------------------------------------------------------------------------------------
# Writing

def write_case(out_dir, name, family, seed, fmt, built):
    model, config, inputs, outputs, extra = built
    extra = dict(extra)
    stats = extra.pop("_stats", None)
    case_dir = os.path.join(out_dir, name)
    os.makedirs(case_dir, exist_ok=True)
    state = {k: v.detach().to(torch.float32).contiguous().clone() for k, v in model.state_dict().items()}
    # Every format is written (the models are small), so the converter's readers are
    # each exercised on every family; "weights" names the case's primary one.
    for each_fmt in FORMATS:
        weights = os.path.join(case_dir, "weights." + each_fmt)
        save_weights(weights, each_fmt, state)
        assert_same_state_dict(state, load_weights(weights, each_fmt))
    save_arrays(os.path.join(case_dir, "inputs"), inputs)
    save_arrays(os.path.join(case_dir, "expected"), outputs)
    case = {"family": family, "preset": family, "weights": "weights." + fmt,
            "weights_files": ["weights." + f for f in FORMATS], "inputs": list(inputs),
            "outputs": list(outputs), "rtol": TOLERANCE, "atol": TOLERANCE, "seed": seed, **extra}
    for filename, content in (("config.json", config), ("case.json", case)):
        with open(os.path.join(case_dir, filename), "w") as f:
            json.dump(content, f, indent=2)
            f.write("\n")
    return stats


def describe(name, fmt, built, stats):
    config, inputs = built[1], built[2]
    shapes = " ".join(f"{k}{list(v.shape)}" for k, v in inputs.items())
    line = f"{name}: {fmt}, {sum(p.numel() for p in built[0].parameters())} params, {shapes}"
    if stats:
        line += (f", greedy distinct {stats['distinct']}/{MAX_NEW}, min margin {stats['min_margin']:.4g}"
                 f" (weights draw {stats['attempt']})")
    return line + "  " + json.dumps(config, separators=(",", ":"))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--format", choices=FORMATS)
    parser.add_argument("--only", choices=sorted({family for _, family, _, _ in CASES}))
    args = parser.parse_args(argv)
    torch.set_num_threads(min(2, torch.get_num_threads()))
    warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")  # torch.nn fast path
    start, written = time.time(), 0
    for index, (name, family, builder, builder_args) in enumerate(CASES):
        if args.only and family != args.only:
            continue
        seed = BASE_SEED + 1000 * index
        torch.manual_seed(seed)
        built = builder(*builder_args)
        fmt = args.format or FORMATS[index % len(FORMATS)]
        stats = write_case(args.out_dir, name, family, seed, fmt, built)
        print(describe(name, fmt, built, stats), flush=True)
        written += 1
    print(f"wrote {written} cases to {args.out_dir} in {time.time() - start:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
