#!/usr/bin/python3
"""Writes Hugging Face-layout reference cases of the decoders built like Llama (run with Debian's python3-torch).

Usage: make_decoder_reference.py OUT_DIR

Families (case.json "family" / "preset"): qwen2 / qwen2, qwen3 / qwen3, gemma / gemma, phi3 / phi3, and
llama3 / llama (Llama 3.2 and SmolLM2 style: rope_scaling of rope_type llama3, tied head).
Each case is written as make_reference.py writes its llama cases (weights in all three
formats under the names transformers' save_pretrained gives them, config.json with
model_type and architectures as transformers writes them; a tied head has no
lm_head.weight), with a 24-step greedy continuation and, in expected/all_logits
[P + 23, V], the logits at every position of the prompt followed by the greedy tokens
but the last (what `--logits all` returns for that sequence in one run).

The models are re-implemented here in float64 from transformers' modeling source,
version 4.46.0 (src/transformers/models/<model>/modeling_<model>.py):
  - modeling_llama.py: LlamaRMSNorm, rotate_half / apply_rotary_pos_emb, LlamaAttention
    (repeat_kv for grouped-query, scaling head_dim ** -0.5), LlamaMLP
    down_proj(act_fn(gate_proj(x)) * up_proj(x)), LlamaForCausalLM (lm_head, tied to
    embed_tokens when tie_word_embeddings);
  - modeling_rope_utils.py: _compute_default_rope_parameters
    (1 / base ** (arange(0, dim, 2) / dim)) and _compute_llama3_parameters (factor,
    low_freq_factor, high_freq_factor, original_max_position_embeddings);
  - modeling_qwen2.py: Qwen2Attention with bias=True on q_proj, k_proj, v_proj and no
    o_proj bias; head_dim = hidden_size // num_attention_heads;
  - modeling_qwen3.py (transformers 4.51.0, where Qwen3 first appears): Qwen3Attention
    without q/k/v biases (attention_bias false), head_dim from the config, and
    self.q_norm / self.k_norm = Qwen3RMSNorm(head_dim, eps=rms_norm_eps) (Llama's
    RMSNorm) applied to q_proj(x) and k_proj(x) viewed as [.., heads, head_dim], before
    apply_rotary_pos_emb; the rest is Qwen2's (Qwen3MLP is LlamaMLP);
  - modeling_gemma.py: GemmaRMSNorm (x * rsqrt(mean(x^2) + eps) * (1.0 + weight.float()),
    in f32), GemmaModel's normalizer torch.tensor(hidden_size ** 0.5, dtype=hidden dtype)
    on the embeddings (the tied lm_head reads the unscaled table), GemmaMLP with
    gelu_pytorch_tanh (hidden_activation), head_dim from the config;
  - modeling_phi3.py: Phi3Attention's qkv_proj split at query_pos = heads * head_dim and
    query_pos + kv_heads * head_dim, Phi3MLP gate_up_proj(x).chunk(2) as (gate, up),
    up * act_fn(gate).
Every size is none of the configs' defaults, with head_dim != hidden / heads where the
family allows it, GQA ratios 3 and 2 and multi-query (Gemma).
"""
import copy
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference as ref  # noqa: E402

MAX_NEW = 24
SEED = ref.BASE_SEED + 500000


def default_inv_freq(theta, head_dim):
    return 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))


def llama3_inv_freq(inv_freq, scaling):
    """_compute_llama3_parameters, in float64."""
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old_context = scaling["original_max_position_embeddings"]
    low_freq_wavelen, high_freq_wavelen = old_context / low, old_context / high
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (old_context / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    is_medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium, smoothed, scaled)


def rope_inv_freq(c):
    inv_freq = default_inv_freq(c["rope_theta"], c["head_dim"])
    scaling = c.get("rope_scaling")
    if scaling is None:
        return inv_freq
    assert scaling["rope_type"] == "llama3"
    return llama3_inv_freq(inv_freq, scaling)


def apply_rope(x, inv_freq):
    """x [B,H,S,hd] at positions 0..S-1, rotate_half layout."""
    freqs = torch.arange(x.shape[2], dtype=torch.float64)[:, None] * inv_freq[None]
    angles = torch.cat([freqs, freqs], dim=-1)
    return x * angles.cos().to(x.dtype) + ref.rotate_half(x) * angles.sin().to(x.dtype)


def gelu_tanh(x):
    return ref.gelu_new(x)  # gelu_pytorch_tanh is the same tanh approximation


class GemmaRMSNorm(nn.Module):
    """Scales by (1 + weight); randomize() draws weight as any weight (std 0.25 about 0)."""

    def __init__(self, dim, eps):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.zeros(dim)), eps

    def forward(self, x):
        scale = (1.0 + self.weight.float()).to(x.dtype)  # computed in f32, as HF does
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * scale


def norm(c, dim):
    return GemmaRMSNorm(dim, c["rms_norm_eps"]) if c["model_type"] == "gemma" else ref.RMSNorm(dim, c["rms_norm_eps"])


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, hd = c["hidden_size"], c["head_dim"]
        self.n_heads, self.n_kv, self.hd = c["num_attention_heads"], c["num_key_value_heads"], hd
        self.fused = c["model_type"] == "phi3"
        if self.fused:
            self.qkv_proj = nn.Linear(d, (self.n_heads + 2 * self.n_kv) * hd, bias=False)
        else:
            bias = c["model_type"] == "qwen2"
            self.q_proj = nn.Linear(d, self.n_heads * hd, bias=bias)
            self.k_proj = nn.Linear(d, self.n_kv * hd, bias=bias)
            self.v_proj = nn.Linear(d, self.n_kv * hd, bias=bias)
        self.qk_norm = c["model_type"] == "qwen3"
        if self.qk_norm:  # over each head's head_dim values (randomize(): 1 + 0.1 randn)
            self.q_norm = ref.RMSNorm(hd, c["rms_norm_eps"])
            self.k_norm = ref.RMSNorm(hd, c["rms_norm_eps"])
        self.o_proj = nn.Linear(self.n_heads * hd, d, bias=False)
        self.register_buffer("inv_freq", rope_inv_freq(c), persistent=False)

    def projections(self, x):
        if not self.fused:
            return self.q_proj(x), self.k_proj(x), self.v_proj(x)
        qkv = self.qkv_proj(x)
        query_pos = self.n_heads * self.hd
        kv = self.n_kv * self.hd
        return qkv[..., :query_pos], qkv[..., query_pos:query_pos + kv], qkv[..., query_pos + kv:]

    def forward(self, x):
        q, k, v = self.projections(x)
        inv_freq = self.inv_freq.double()
        q, k = ref.split_heads(q, self.n_heads), ref.split_heads(k, self.n_kv)  # [B, H, S, hd]
        if self.qk_norm:  # Qwen3: per head, before RoPE
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = apply_rope(q, inv_freq), apply_rope(k, inv_freq)
        v = ref.split_heads(v, self.n_kv)
        groups = self.n_heads // self.n_kv  # repeat_kv: query head h reads kv head h // groups
        k, v = k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
        mask = ref.causal_mask(x.shape[1], x.dtype, torch.finfo(x.dtype).min)
        return self.o_proj(ref.merge_heads(ref.attention(q, k, v, mask)))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, inner = c["hidden_size"], c["intermediate_size"]
        self.fused = c["model_type"] == "phi3"
        self.act = gelu_tanh if c["model_type"] == "gemma" else F.silu
        if self.fused:
            self.gate_up_proj = nn.Linear(d, 2 * inner, bias=False)
        else:
            self.gate_proj = nn.Linear(d, inner, bias=False)
            self.up_proj = nn.Linear(d, inner, bias=False)
        self.down_proj = nn.Linear(inner, d, bias=False)

    def forward(self, x):
        if self.fused:
            gate, up = self.gate_up_proj(x).chunk(2, dim=-1)
        else:
            gate, up = self.gate_proj(x), self.up_proj(x)
        return self.down_proj(self.act(gate) * up)


class Layer(ref.LlamaLayer):
    """make_reference.py's Llama layer (its forward) with this family's attention, MLP and norms."""

    def __init__(self, c):
        super().__init__(c)
        self.self_attn, self.mlp = Attention(c), MLP(c)
        self.input_layernorm = norm(c, c["hidden_size"])
        self.post_attention_layernorm = norm(c, c["hidden_size"])


class Model(ref.LlamaModel):
    def __init__(self, c):
        super().__init__(c)
        self.layers = nn.ModuleList(Layer(c) for _ in range(c["num_hidden_layers"]))
        self.norm = norm(c, c["hidden_size"])


class CausalLM(nn.Module):
    """<Model>ForCausalLM: `model` and, untied, `lm_head` (tied: none, as save_pretrained stores it)."""

    def __init__(self, c):
        super().__init__()
        self.model = Model(c)
        self.tied = c["tie_word_embeddings"]
        self.gemma = c["model_type"] == "gemma"
        self.hidden = c["hidden_size"]
        if not self.tied:
            self.lm_head = nn.Linear(c["hidden_size"], c["vocab_size"], bias=False)

    def forward(self, ids):
        x = self.model.embed_tokens(ids)
        if self.gemma:
            x = x * torch.tensor(self.hidden ** 0.5, dtype=torch.float32).to(x.dtype)
        for layer in self.model.layers:
            x = layer(x)
        x = self.model.norm(x)
        return x @ self.model.embed_tokens.weight.T if self.tied else self.lm_head(x)


def config(model_type, architecture, sizes, **keys):
    """config.json as save_pretrained writes it (sorted keys)."""
    c = dict(sizes, model_type=model_type, architectures=[architecture], torch_dtype="float32",
             transformers_version="4.46.0", use_cache=True, attention_dropout=0.0, **keys)
    return dict(sorted(c.items()))


def sizes(vocab, d, inner, layers, heads, kv_heads, head_dim):
    return {"vocab_size": vocab, "hidden_size": d, "intermediate_size": inner, "num_hidden_layers": layers,
            "num_attention_heads": heads, "num_key_value_heads": kv_heads, "head_dim": head_dim}


def without_head_dim(s):
    """Qwen2 and Phi-3 configs have no head_dim key: hidden_size // num_attention_heads."""
    assert s["head_dim"] == s["hidden_size"] // s["num_attention_heads"]
    return {k: v for k, v in s.items() if k != "head_dim"}


QWEN2 = sizes(180, 48, 112, 2, 6, 2, 8)
GEMMA = sizes(170, 40, 96, 2, 4, 1, 24)
PHI3 = sizes(150, 64, 120, 2, 8, 4, 8)
LLAMA3 = sizes(160, 48, 100, 2, 6, 2, 16)
QWEN3 = sizes(190, 40, 104, 2, 6, 2, 12)  # head_dim 12, not 40 / 6

# (case name, family, preset, the model's config as the reference reads it, config.json, prompt length)
CASES = [
    ("qwen2_tied_gqa3_l2_d48_h6_kv2", "qwen2", "qwen2",
     dict(QWEN2, model_type="qwen2", rms_norm_eps=1e-6, rope_theta=1000000.0, tie_word_embeddings=True),
     config("qwen2", "Qwen2ForCausalLM", without_head_dim(QWEN2), hidden_act="silu", max_position_embeddings=128,
            max_window_layers=2, rms_norm_eps=1e-6, rope_scaling=None, rope_theta=1000000.0, sliding_window=128,
            tie_word_embeddings=True, use_sliding_window=False, bos_token_id=1, eos_token_id=2), 7),
    ("gemma_mqa_hd24_l2_d40_h4", "gemma", "gemma",
     dict(GEMMA, model_type="gemma", rms_norm_eps=1e-6, rope_theta=10000.0, tie_word_embeddings=True),
     config("gemma", "GemmaForCausalLM", GEMMA, hidden_act="gelu", hidden_activation="gelu_pytorch_tanh",
            max_position_embeddings=128, rms_norm_eps=1e-6, rope_theta=10000.0, attention_bias=False,
            bos_token_id=2, eos_token_id=1, pad_token_id=0), 6),
    ("phi3_fused_l2_d64_h8_kv4", "phi3", "phi3",
     dict(PHI3, model_type="phi3", rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=False),
     config("phi3", "Phi3ForCausalLM", without_head_dim(PHI3), hidden_act="silu", max_position_embeddings=96,
            original_max_position_embeddings=96, rms_norm_eps=1e-5, rope_scaling=None, rope_theta=10000.0,
            sliding_window=40, tie_word_embeddings=False, resid_pdrop=0.0, embd_pdrop=0.0,
            bos_token_id=1, eos_token_id=32000, pad_token_id=32000), 8),
    # Llama 3.2 / SmolLM2 layout, small: original_max_position_embeddings 64 puts pair 0 in
    # the kept band (wavelength 6.3 < 64 / 4), pairs 1 and 2 in the smoothed one and the
    # rest in the band slowed by `factor`.
    ("llama3_rope_tied_l2_d48_h6_kv2", "llama3", "llama",
     dict(LLAMA3, model_type="llama", rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=True,
          rope_scaling={"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                        "original_max_position_embeddings": 64, "rope_type": "llama3"}),
     config("llama", "LlamaForCausalLM", LLAMA3, hidden_act="silu", max_position_embeddings=512,
            mlp_bias=False, attention_bias=False, pretraining_tp=1, rms_norm_eps=1e-5, rope_theta=10000.0,
            rope_scaling={"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                          "original_max_position_embeddings": 64, "rope_type": "llama3"},
            tie_word_embeddings=True, bos_token_id=128000, eos_token_id=128001), 7),
    # Last, so the cases above keep their seeds. Untied, as Qwen3-8B; GQA 3.
    ("qwen3_qknorm_hd12_l2_d40_h6_kv2", "qwen3", "qwen3",
     dict(QWEN3, model_type="qwen3", rms_norm_eps=1e-6, rope_theta=1000000.0, tie_word_embeddings=False),
     dict(config("qwen3", "Qwen3ForCausalLM", QWEN3, hidden_act="silu", max_position_embeddings=160,
                 max_window_layers=2, rms_norm_eps=1e-6, rope_scaling=None, rope_theta=1000000.0,
                 sliding_window=None, tie_word_embeddings=False, use_sliding_window=False, attention_bias=False,
                 bos_token_id=151643, eos_token_id=151645), transformers_version="4.51.0"), 5),
]


def build(model_config, prompt_len):
    # Stronger layers than make_reference.py's llama cases: with a tied head (and Gemma's
    # scaled embeddings) weaker ones leave each token's own embedding dominant and greedy
    # decoding repeats it.
    stds = {"default": 0.25, "embed_tokens": 0.2, "lm_head": 0.2}
    model, _, inputs, outputs, extra = ref.decoder_case(CausalLM, stds, model_config, prompt_len, min_margin=5e-3,
                                                        max_new=MAX_NEW)
    sequence = torch.cat([inputs["prompt_ids"], outputs["greedy_ids"][None, :-1]], dim=1)
    with torch.no_grad():
        outputs["all_logits"] = copy.deepcopy(model).double()(sequence)[0]
    return model, inputs, outputs, extra


def main(argv):
    out_dir = argv[0]
    torch.set_num_threads(min(2, torch.get_num_threads()))
    start = time.time()
    for index, (name, family, preset, model_config, config_json, prompt_len) in enumerate(CASES):
        seed = SEED + 1000 * index
        torch.manual_seed(seed)
        model, inputs, outputs, extra = build(model_config, prompt_len)
        extra["preset"] = preset
        stats = ref.write_case(out_dir, name, family, seed, "safetensors",
                               (model, config_json, inputs, outputs, extra))
        print(f"{name}: {sum(p.numel() for p in model.parameters())} params, prompt {prompt_len}, greedy distinct "
              f"{stats['distinct']}/{MAX_NEW}, min margin {stats['min_margin']:.4g} (weights draw {stats['attempt']})",
              flush=True)
    print(f"wrote {len(CASES)} cases to {out_dir} in {time.time() - start:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
