#!/usr/bin/python3
"""Reference cases for the declarative model spec (converter/README.md): architectures no
preset covers, written in plain PyTorch, with the spec.json that describes them.

Usage: make_spec_reference.py OUT_DIR

Writes OUT_DIR/<case>/ in the layout of make_reference.py (weights.*, inputs/, expected/,
case.json with "family": "spec" and "spec": "spec.json"), for:
  spec_keras_encoder   Keras-style weights [in, out] and 1x1 conv kernels (PyTorch
                       [out, in, 1] and Keras [1, in, out]), embeddings scaled by
                       sqrt(d), concatenated sinusoidal positions (tensor2tensor
                       spacing), head_dim independent of d / heads, bias-free Q/K/V,
                       a width-changing layer with a projected residual, masked mean
                       pooling, a bias-free classifier.
  spec_fused_decoder   a decoder with one fused QKV weight stored in k, v, q order,
                       interleaved RoPE on part of each head, grouped-query attention
                       with a KV cache, RMSNorm and a GEGLU (gelu-tanh) MLP; greedy
                       tokens as for the decoder presets.
  spec_use_encoder     a Universal-Sentence-Encoder-style model: token plus learned
                       position embeddings, a PyTorch nn.TransformerEncoderLayer
                       (fused in_proj, post-LN), masked mean pooling, a projection,
                       F.normalize (L2, eps 1e-12) and a constant logit scale of 20,
                       on a ragged padded batch.
"""

import copy
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference as ref  # noqa: E402  (formats, greedy decoding, writers)

SEED = 7331


def sinusoid_concatenated(positions, dim, min_ts=1.0, max_ts=1.0e4):
    """tensor2tensor's get_timing_signal_1d: sin then cos, spacing log(max/min)/(dim/2 - 1)."""
    half = dim // 2
    log_inc = math.log(max_ts / min_ts) / max(half - 1, 1)
    inv = min_ts ** -1 * torch.exp(torch.arange(half, dtype=torch.float64) * -log_inc)
    # f32 angles, as the frameworks (and the engine's table) compute them
    angle = (torch.arange(positions, dtype=torch.float32)[:, None] * inv.float()[None, :])
    return torch.cat([torch.sin(angle), torch.cos(angle)], dim=1)


def attention(q, k, v, heads, kv_heads, head_dim, key_lengths=None, causal=False):
    b, s, _ = q.shape
    t = k.shape[1]
    q = q.view(b, s, heads, head_dim).transpose(1, 2)
    k = k.view(b, t, kv_heads, head_dim).transpose(1, 2).repeat_interleave(heads // kv_heads, dim=1)
    v = v.view(b, t, kv_heads, head_dim).transpose(1, 2).repeat_interleave(heads // kv_heads, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(head_dim)
    if key_lengths is not None:
        keep = torch.arange(t)[None, :] < key_lengths[:, None]
        scores = scores.masked_fill(~keep[:, None, None, :], float("-inf"))
    if causal:
        scores = scores.masked_fill(torch.ones(s, t, dtype=torch.bool).triu(t - s + 1), float("-inf"))
    return (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, heads * head_dim)


class KerasEncoder(torch.nn.Module):
    def __init__(self, V=97, d=32, heads=2, head_dim=24, ff=40, d2=48, classes=3, max_len=16):
        super().__init__()
        self.c = dict(V=V, d=d, heads=heads, head_dim=head_dim, ff=ff, d2=d2, classes=classes, max_len=max_len)
        p = torch.nn.Parameter
        self.emb = p(torch.randn(V, d) * 0.3)
        hd = heads * head_dim
        self.wq, self.wk, self.wv = p(torch.randn(d, hd) * 0.15), p(torch.randn(d, hd) * 0.15), p(torch.randn(d, hd) * 0.15)
        self.wo, self.bo = p(torch.randn(hd, d) * 0.15), p(torch.randn(d) * 0.1)
        self.ln1_g, self.ln1_b = p(1 + 0.1 * torch.randn(d)), p(0.1 * torch.randn(d))
        self.up = p(torch.randn(ff, d, 1) * 0.2)          # PyTorch Conv1d kernel [out, in, 1]
        self.up_b = p(0.1 * torch.randn(ff))
        self.down = p(torch.randn(1, ff, d2) * 0.2)       # Keras Conv1D kernel [1, in, out]
        self.down_b = p(0.1 * torch.randn(d2))
        self.proj = p(torch.randn(d, d2) * 0.2)           # projected residual, [in, out], no bias
        self.ln2_g, self.ln2_b = p(1 + 0.1 * torch.randn(d2)), p(0.1 * torch.randn(d2))
        self.cls = p(torch.randn(d2, classes) * 0.3)      # [in, out], no bias

    def forward(self, ids, mask):
        c = self.c
        s = ids.shape[1]
        x = self.emb[ids] * math.sqrt(c["d"]) + sinusoid_concatenated(s, c["d"]).to(self.emb.dtype)
        lengths = mask.sum(1)
        a = attention(x @ self.wq, x @ self.wk, x @ self.wv, c["heads"], c["heads"], c["head_dim"], lengths)
        h = F.layer_norm(x + a @ self.wo + self.bo, (c["d"],), self.ln1_g, self.ln1_b, 1e-5)
        up = F.relu(h @ self.up[:, :, 0].T + self.up_b)
        down = up @ self.down[0] + self.down_b
        y = F.layer_norm(h @ self.proj + down, (c["d2"],), self.ln2_g, self.ln2_b, 1e-5)
        keep = mask.to(y.dtype)[:, :, None]
        pooled = (y * keep).sum(1) / keep.sum(1)
        return y, pooled @ self.cls


KERAS_SPEC = {
    "name": "keras-style-encoder",
    "symbols": {"seq": 16},
    "weight_layout": "in_out",
    "inputs": [{"name": "input_ids", "dtype": "i32", "shape": ["batch", "seq"]},
               {"name": "attention_mask", "dtype": "i32", "shape": ["batch", "seq"]}],
    "layers": [
        {"op": "embedding", "name": "embed", "input": "input_ids", "table": "emb", "scale": "sqrt_dim",
         "positions": {"sinusoidal": {"layout": "concatenated", "spacing": "tensor2tensor",
                                      "min_timescale": 1.0, "max_timescale": 10000.0}},
         "output": "x"},
        {"op": "attention", "name": "attn", "input": "x", "mask": "attention_mask", "heads": 2, "head_dim": 24,
         "q": "wq", "k": "wk", "v": "wv", "out": {"weight": "wo", "bias": "bo"}, "output": "a"},
        {"op": "add", "name": "res1", "inputs": ["x", "a"]},
        {"op": "layernorm", "name": "ln1", "input": "res1", "weight": "ln1_g", "bias": "ln1_b", "output": "h"},
        {"op": "dense", "name": "up", "input": "h", "weight": "up", "bias": "up_b", "layout": "conv1x1",
         "activation": "relu"},
        {"op": "dense", "name": "down", "input": "up", "weight": "down", "bias": "down_b", "layout": "conv1x1_in_out"},
        {"op": "dense", "name": "proj", "input": "h", "weight": "proj"},
        {"op": "add", "name": "res2", "inputs": ["proj", "down"]},
        {"op": "layernorm", "name": "ln2", "input": "res2", "weight": "ln2_g", "bias": "ln2_b",
         "output": "last_hidden_state"},
        {"op": "pool", "name": "pool", "mode": "mean", "input": "last_hidden_state", "mask": "attention_mask"},
        {"op": "dense", "name": "classifier", "input": "pool", "weight": "cls", "output": "logits"},
    ],
    "outputs": ["last_hidden_state", "logits"],
}


def rope_interleaved(x, heads, head_dim, rotary, theta, offset=0):
    b, s, _ = x.shape
    x = x.view(b, s, heads, head_dim)
    inv = 1.0 / (theta ** (torch.arange(0, rotary, 2, dtype=torch.float32) / rotary))
    angle = (torch.arange(offset, offset + s, dtype=torch.float32)[:, None] * inv[None, :]).to(x.dtype)
    cos, sin = torch.cos(angle)[None, :, None, :], torch.sin(angle)[None, :, None, :]
    even, odd = x[..., 0:rotary:2], x[..., 1:rotary:2]
    rotated = torch.stack([even * cos - odd * sin, odd * cos + even * sin], dim=-1).flatten(-2)
    return torch.cat([rotated, x[..., rotary:]], dim=-1).reshape(b, s, heads * head_dim)


class FusedDecoder(torch.nn.Module):
    def __init__(self, V=120, d=32, heads=4, kv_heads=2, head_dim=12, rotary=8, ff=48, layers=2, theta=1000.0):
        super().__init__()
        self.c = dict(V=V, d=d, heads=heads, kv_heads=kv_heads, head_dim=head_dim, rotary=rotary, ff=ff,
                      layers=layers, theta=theta)
        p = torch.nn.Parameter
        self.emb = p(torch.randn(V, d) * 0.5)
        fused = (heads + 2 * kv_heads) * head_dim
        self.blocks = torch.nn.ModuleList()
        for _ in range(layers):
            blk = torch.nn.Module()
            blk.norm1 = p(1 + 0.1 * torch.randn(d))
            blk.kvq = p(torch.randn(fused, d) * 0.2)             # rows: k, v, q  ([out, in])
            blk.o = p(torch.randn(d, heads * head_dim) * 0.2)
            blk.norm2 = p(1 + 0.1 * torch.randn(d))
            blk.gate_up = p(torch.randn(1, d, 2 * ff) * 0.2)     # Keras Conv1D [1, in, out]: gate, up
            blk.down = p(torch.randn(d, ff) * 0.2)
            self.blocks.append(blk)
        self.norm = p(1 + 0.1 * torch.randn(d))
        self.head = p(torch.randn(V, d) * 0.3)

    def forward(self, ids):
        c = self.c
        x = self.emb[ids]
        kvf = c["kv_heads"] * c["head_dim"]
        for blk in self.blocks:
            h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * blk.norm1
            kvq = h @ blk.kvq.T
            k, v, q = kvq[..., :kvf], kvq[..., kvf:2 * kvf], kvq[..., 2 * kvf:]
            q = rope_interleaved(q, c["heads"], c["head_dim"], c["rotary"], c["theta"])
            k = rope_interleaved(k, c["kv_heads"], c["head_dim"], c["rotary"], c["theta"])
            x = x + attention(q, k, v, c["heads"], c["kv_heads"], c["head_dim"], causal=True) @ blk.o.T
            h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * blk.norm2
            gu = h @ blk.gate_up[0]
            x = x + (F.gelu(gu[..., :c["ff"]], approximate="tanh") * gu[..., c["ff"]:]) @ blk.down.T
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.norm
        return x @ self.head.T


FUSED_SPEC = {
    "name": "fused-qkv-decoder",
    "symbols": {"seq": 80},
    "inputs": [{"name": "input_ids", "dtype": "i32", "shape": ["batch", "seq"]}],
    "layers": [
        {"op": "embedding", "name": "embed", "input": "input_ids", "table": "emb", "output": "x0"},
        {"repeat": 2, "layers": [
            {"op": "rmsnorm", "name": "blocks.{i}.norm1", "input": "x{i}", "weight": "blocks.{i}.norm1"},
            {"op": "attention", "name": "blocks.{i}.attn", "input": "blocks.{i}.norm1", "heads": 4, "kv_heads": 2,
             "head_dim": 12, "causal": True, "kv_cache": True,
             "rope": {"layout": "interleaved", "theta": 1000.0, "rotary_dim": 8},
             "qkv": {"weight": "blocks.{i}.kvq", "order": "kvq"}, "out": "blocks.{i}.o"},
            {"op": "add", "name": "blocks.{i}.res1", "inputs": ["x{i}", "blocks.{i}.attn"]},
            {"op": "rmsnorm", "name": "blocks.{i}.norm2", "input": "blocks.{i}.res1", "weight": "blocks.{i}.norm2"},
            {"op": "dense", "name": "blocks.{i}.gate_up", "input": "blocks.{i}.norm2", "weight": "blocks.{i}.gate_up",
             "layout": "conv1x1_in_out"},
            {"op": "glu", "name": "blocks.{i}.act", "input": "blocks.{i}.gate_up", "activation": "gelu_tanh"},
            {"op": "dense", "name": "blocks.{i}.down", "input": "blocks.{i}.act", "weight": "blocks.{i}.down"},
            {"op": "add", "name": "blocks.{i}.res2", "inputs": ["blocks.{i}.res1", "blocks.{i}.down"],
             "output": "x{i+1}"},
        ]},
        {"op": "pool", "name": "last", "mode": "last", "input": "x2"},
        {"op": "rmsnorm", "name": "norm", "input": "last", "weight": "norm"},
        {"op": "dense", "name": "head", "input": "norm", "weight": "head", "output": "logits"},
    ],
    "outputs": ["logits"],
}


class UseEncoder(torch.nn.Module):
    """A sentence encoder as a user writes it: the checkpoint is its state_dict."""

    def __init__(self, V=89, d=24, heads=3, ff=40, out=20, max_len=16, logit_scale=20.0):
        super().__init__()
        self.logit_scale = logit_scale
        self.embedding = torch.nn.Embedding(V, d)
        self.pos_embedding = torch.nn.Parameter(torch.randn(max_len, d) * 0.3)
        # batch_first=False: torch 1.13's fast path (batch_first, eval) is not taken, so
        # the reference is the plain float64 composition of the layer's modules.
        self.encoder = torch.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0)
        self.proj = torch.nn.Linear(d, out)

    def forward(self, ids, mask):
        x = self.embedding(ids) + self.pos_embedding[: ids.shape[1]]
        h = self.encoder(x.transpose(0, 1), src_key_padding_mask=mask == 0).transpose(0, 1)
        keep = mask.to(h.dtype)[:, :, None]
        pooled = (h * keep).sum(1) / keep.sum(1)
        embedding = F.normalize(self.proj(pooled), p=2.0, dim=-1)  # eps=1e-12, its default
        return embedding, embedding * self.logit_scale


USE_SPEC = {
    "name": "use-style-sentence-encoder",
    "symbols": {"seq": 16},
    "inputs": [{"name": "input_ids", "dtype": "i32", "shape": ["batch", "seq"]},
               {"name": "attention_mask", "dtype": "i32", "shape": ["batch", "seq"]}],
    "layers": [
        {"op": "embedding", "name": "embed", "input": "input_ids", "table": "embedding.weight",
         "positions": {"learned": "pos_embedding"}, "output": "x"},
        {"op": "attention", "name": "attn", "input": "x", "mask": "attention_mask", "heads": 3,
         "qkv": {"weight": "encoder.self_attn.in_proj_weight", "bias": "encoder.self_attn.in_proj_bias",
                 "order": "qkv"},
         "out": {"weight": "encoder.self_attn.out_proj.weight", "bias": "encoder.self_attn.out_proj.bias"},
         "output": "a"},
        {"op": "add", "name": "res1", "inputs": ["x", "a"]},
        {"op": "layernorm", "name": "norm1", "input": "res1", "weight": "encoder.norm1.weight",
         "bias": "encoder.norm1.bias", "output": "h"},
        {"op": "dense", "name": "ff1", "input": "h", "weight": "encoder.linear1.weight",
         "bias": "encoder.linear1.bias", "activation": "relu"},
        {"op": "dense", "name": "ff2", "input": "ff1", "weight": "encoder.linear2.weight",
         "bias": "encoder.linear2.bias"},
        {"op": "add", "name": "res2", "inputs": ["h", "ff2"]},
        {"op": "layernorm", "name": "norm2", "input": "res2", "weight": "encoder.norm2.weight",
         "bias": "encoder.norm2.bias", "output": "hidden"},
        {"op": "pool", "name": "pool", "mode": "mean", "input": "hidden", "mask": "attention_mask"},
        {"op": "dense", "name": "proj", "input": "pool", "weight": "proj.weight", "bias": "proj.bias"},
        {"op": "l2_normalize", "name": "normalize", "input": "proj", "output": "sentence_embedding"},
        {"op": "scale", "name": "logit_scale", "input": "sentence_embedding", "scale": 20.0,
         "output": "scaled_embedding"},
    ],
    "outputs": ["sentence_embedding", "scaled_embedding"],
}


def use_case():
    model = UseEncoder()
    b, s = 4, 12
    ids = torch.randint(0, model.embedding.num_embeddings, (b, s), dtype=torch.int32)
    lengths = torch.tensor([12, 9, 4, 1])
    mask = (torch.arange(s)[None, :] < lengths[:, None]).to(torch.int32)
    reference = copy.deepcopy(model).double().eval()
    with torch.no_grad():
        embedding, scaled = reference(ids.long(), mask)
    outputs = {"sentence_embedding": embedding.float(), "scaled_embedding": scaled.float()}
    return model, USE_SPEC, {"input_ids": ids, "attention_mask": mask}, outputs, {"compared": list(outputs)}


def keras_case():
    model = KerasEncoder()
    b, s = 3, 11
    ids = torch.randint(0, model.c["V"], (b, s), dtype=torch.int32)
    lengths = torch.tensor([11, 7, 2])
    mask = (torch.arange(s)[None, :] < lengths[:, None]).to(torch.int32)
    with torch.no_grad():
        hidden, logits = copy.deepcopy(model).double()(ids.long(), mask)
    hidden = hidden * mask[:, :, None]
    outputs = {"last_hidden_state": hidden.float(), "logits": logits.float()}
    return model, KERAS_SPEC, {"input_ids": ids, "attention_mask": mask}, outputs, {"padded_positions_zeroed": True}


def fused_case():
    # Re-draw (same seed stream) until greedy decoding is varied and well separated, so
    # exact token parity is a fair test.
    for attempt in range(50):
        model = FusedDecoder()
        prompt = torch.randint(0, model.c["V"], (1, 6), dtype=torch.int64)
        ids, logits, margins = ref.greedy(copy.deepcopy(model).double(), prompt, ref.MAX_NEW)
        if len(set(ids.tolist())) >= 8 and margins.min().item() >= 1e-3:
            break
    else:
        raise RuntimeError("no draw gave a varied, well separated greedy sequence")
    print(f"fused decoder: draw {attempt}, {len(set(ids.tolist()))} distinct tokens, margin {margins.min().item():.3g}")
    outputs = {"prefill_logits": logits[:1], "greedy_ids": ids.to(torch.int32), "step_logits": logits,
               "greedy_margins": margins}
    return model, FUSED_SPEC, {"prompt_ids": prompt.to(torch.int32)}, outputs, {"max_new": ref.MAX_NEW}


def write(out_dir, name, family_of_checks, built):
    model, spec, inputs, outputs, extra = built
    compared = extra.pop("compared", [o for o in outputs if o in ("last_hidden_state", "logits")])
    case_dir = os.path.join(out_dir, name)
    os.makedirs(case_dir, exist_ok=True)
    state = {k: v.detach().float().contiguous().clone() for k, v in model.state_dict().items()}
    for fmt in ref.FORMATS:
        path = os.path.join(case_dir, "weights." + fmt)
        ref.save_weights(path, fmt, state)
        ref.assert_same_state_dict(state, ref.load_weights(path, fmt))
    ref.save_arrays(os.path.join(case_dir, "inputs"), inputs)
    ref.save_arrays(os.path.join(case_dir, "expected"), outputs)
    case = {"family": "spec", "checks": family_of_checks, "preset": "", "spec": "spec.json",
            "weights": "weights.safetensors", "weights_files": ["weights." + f for f in ref.FORMATS],
            "inputs": list(inputs), "outputs": compared,
            "rtol": ref.TOLERANCE, "atol": ref.TOLERANCE, **extra}
    for filename, content in (("spec.json", spec), ("case.json", case)):
        with open(os.path.join(case_dir, filename), "w") as f:
            json.dump(content, f, indent=2)
            f.write("\n")
    print(f"{name}: {sum(p.numel() for p in model.parameters())} params")


def main(argv):
    out_dir = argv[0]
    torch.manual_seed(SEED)
    write(out_dir, "spec_keras_encoder", "encoder", keras_case())
    write(out_dir, "spec_fused_decoder", "decoder", fused_case())
    write(out_dir, "spec_use_encoder", "encoder", use_case())


if __name__ == "__main__":
    main(sys.argv[1:])
