"""T5 / Flan-T5 in float64, re-implemented from Hugging Face transformers'
src/transformers/models/t5/modeling_t5.py (v4.x: T5LayerNorm, T5DenseActDense,
T5DenseGatedActDense, T5Attention._relative_position_bucket and compute_bias, T5Block,
T5Stack, T5ForConditionalGeneration.forward), and hub folders of random T5 weights laid
out as save_pretrained writes them (config.json, model.safetensors with HF names).

What the re-implementation keeps from that source:
  - the bucket of a relative position (key - query) is computed with the same torch ops
    in float32 (torch.log of the float32 ratio), as transformers does, so both agree on
    every bucket; everything else is float64;
  - the first block of each stack owns relative_attention_bias [num_buckets, heads],
    and its bias (plus the mask) is added to the unscaled scores of every block;
    cross-attention has no position bias;
  - T5LayerNorm: x * rsqrt(mean(x^2) + eps) * weight (no mean, no bias);
  - feed-forward relu (wi, wo) or gated-gelu (gelu_new(wi_0 x) * wi_1 x, then wo);
  - with tie_word_embeddings the decoder output is scaled by d_model ** -0.5 before
    the head, which is then the shared table; otherwise lm_head.weight.
"""
import json
import math
import os

import torch

import case_files


def relative_position_bucket(relative_position, bidirectional, num_buckets, max_distance):
    buckets = torch.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        buckets += (relative_position > 0).to(torch.long) * num_buckets
        n = torch.abs(relative_position)
    else:
        n = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = n < max_exact
    large = max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, n, large)


def compute_bias(table, q_len, k_len, bidirectional, max_distance, first_query=0):
    """[heads, q_len, k_len]: table[bucket(key - query), head], queries first_query.."""
    context = torch.arange(first_query, first_query + q_len, dtype=torch.long)[:, None]
    memory = torch.arange(k_len, dtype=torch.long)[None, :]
    bucket = relative_position_bucket(memory - context, bidirectional, table.shape[0], max_distance)
    return table[bucket].permute(2, 0, 1)


def layer_norm(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class T5:
    """T5ForConditionalGeneration's forward pass, float64, on a state_dict of HF names."""

    def __init__(self, config, state):
        self.c = config
        self.w = {k: v.double() for k, v in state.items()}

    def attention(self, prefix, x, source, bias):
        heads, d_kv = self.c["num_heads"], self.c["d_kv"]
        b, sq, sk = x.shape[0], x.shape[1], source.shape[1]
        q = (x @ self.w[prefix + ".q.weight"].T).view(b, sq, heads, d_kv).transpose(1, 2)
        k = (source @ self.w[prefix + ".k.weight"].T).view(b, sk, heads, d_kv).transpose(1, 2)
        v = (source @ self.w[prefix + ".v.weight"].T).view(b, sk, heads, d_kv).transpose(1, 2)
        scores = q @ k.transpose(3, 2) + bias  # no 1/sqrt(d_kv)
        context = torch.softmax(scores, dim=-1) @ v
        return context.transpose(1, 2).reshape(b, sq, heads * d_kv) @ self.w[prefix + ".o.weight"].T

    def feed_forward(self, prefix, x):
        p = prefix + ".DenseReluDense"
        if self.c["feed_forward_proj"] == "gated-gelu":
            hidden = gelu_new(x @ self.w[p + ".wi_0.weight"].T) * (x @ self.w[p + ".wi_1.weight"].T)
        else:
            hidden = torch.relu(x @ self.w[p + ".wi.weight"].T)
        return hidden @ self.w[p + ".wo.weight"].T

    def norm(self, name, x):
        return layer_norm(x, self.w[name + ".weight"], self.c["layer_norm_epsilon"])

    def encode(self, ids, mask):
        """ids, mask [B, S] -> encoder_last_hidden_state [B, S, d_model]."""
        c = self.c
        h = self.w["shared.weight"][ids]
        table = self.w["encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
        s = ids.shape[1]
        bias = compute_bias(table, s, s, True, c["relative_attention_max_distance"])[None]
        bias = bias + (1.0 - mask[:, None, None, :].double()) * torch.finfo(torch.float64).min
        for i in range(c["num_layers"]):
            p = f"encoder.block.{i}.layer."
            n = self.norm(p + "0.layer_norm", h)
            h = h + self.attention(p + "0.SelfAttention", n, n, bias)
            h = h + self.feed_forward(p + "1", self.norm(p + "1.layer_norm", h))
        return self.norm("encoder.final_layer_norm", h)

    def decode(self, memory, mask, prev):
        """Teacher-forced decoder over prev [B, T] (decoder inputs, starting with the
        decoder start token) -> logits [B, T, vocab]."""
        c = self.c
        h = self.w["shared.weight"][prev]
        t = prev.shape[1]
        table = self.w["decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
        causal = torch.triu(torch.full((t, t), torch.finfo(torch.float64).min, dtype=torch.float64), 1)
        self_bias = (compute_bias(table, t, t, False, c["relative_attention_max_distance"]) + causal)[None]
        cross_bias = (1.0 - mask[:, None, None, :].double()) * torch.finfo(torch.float64).min
        for i in range(c["num_decoder_layers"]):
            p = f"decoder.block.{i}.layer."
            n = self.norm(p + "0.layer_norm", h)
            h = h + self.attention(p + "0.SelfAttention", n, n, self_bias)
            h = h + self.attention(p + "1.EncDecAttention", self.norm(p + "1.layer_norm", h), memory, cross_bias)
            h = h + self.feed_forward(p + "2", self.norm(p + "2.layer_norm", h))
        out = self.norm("decoder.final_layer_norm", h)
        if c["tie_word_embeddings"]:
            return (out * c["d_model"] ** -0.5) @ self.w["shared.weight"].T
        return out @ self.w["lm_head.weight"].T

    def greedy(self, ids, steps):
        """Greedy tokens of one source [1, S] over `steps` steps (no stop at eos)."""
        memory = self.encode(ids, torch.ones_like(ids))
        prev = torch.tensor([[self.c["decoder_start_token_id"]]])
        for _ in range(steps):
            logits = self.decode(memory, torch.ones_like(ids), prev)[0, -1]
            prev = torch.cat([prev, logits.argmax().view(1, 1)], dim=1)
        return prev[0, 1:].tolist()


def hub_config(sizes):
    """config.json as T5Config.save_pretrained writes it (sorted keys), with these sizes."""
    gated = sizes["feed_forward_proj"].startswith("gated-")
    config = {
        "architectures": ["T5ForConditionalGeneration"], "classifier_dropout": 0.0, "d_ff": sizes["d_ff"],
        "d_kv": sizes["d_kv"], "d_model": sizes["d_model"], "decoder_start_token_id": 0,
        "dense_act_fn": "gelu_new" if gated else "relu", "dropout_rate": 0.1, "eos_token_id": sizes["eos_token_id"],
        "feed_forward_proj": sizes["feed_forward_proj"], "initializer_factor": 1.0, "is_encoder_decoder": True,
        "is_gated_act": gated, "layer_norm_epsilon": 1e-06, "model_type": "t5",
        "num_decoder_layers": sizes["num_decoder_layers"], "num_heads": sizes["num_heads"],
        "num_layers": sizes["num_layers"], "pad_token_id": 0,
        "relative_attention_max_distance": sizes["relative_attention_max_distance"],
        "relative_attention_num_buckets": sizes["relative_attention_num_buckets"],
        "tie_word_embeddings": sizes["tie_word_embeddings"], "torch_dtype": "float32",
        "transformers_version": "4.36.2", "use_cache": True, "vocab_size": sizes["vocab_size"],
    }
    return dict(sorted(config.items()))


def random_state(c, seed):
    """Random weights under HF names; scales keep scores, residuals and logits O(1)."""
    g = torch.Generator().manual_seed(seed)

    def normal(*shape, std=1.0):
        return torch.randn(*shape, generator=g) * std

    d, inner, ff = c["d_model"], c["num_heads"] * c["d_kv"], c["d_ff"]
    # A tied table much smaller than the blocks' outputs: else the residual stream's own
    # embedding dominates the tied head and greedy decoding repeats its input token.
    s = {"shared.weight": normal(c["vocab_size"], d, std=0.15 if c["tie_word_embeddings"] else 1.0)}
    gated = c["feed_forward_proj"] == "gated-gelu"
    for stack, layers in (("encoder", c["num_layers"]), ("decoder", c["num_decoder_layers"])):
        for i in range(layers):
            p = f"{stack}.block.{i}.layer."
            kinds = ["SelfAttention"] + (["EncDecAttention"] if stack == "decoder" else [])
            for n, kind in enumerate(kinds):
                for part in "qkv":
                    s[f"{p}{n}.{kind}.{part}.weight"] = normal(inner, d, std=0.6 / math.sqrt(d))
                s[f"{p}{n}.{kind}.o.weight"] = normal(d, inner, std=3.0 / math.sqrt(inner))
                s[f"{p}{n}.layer_norm.weight"] = 1.0 + normal(d, std=0.2)
            f = f"{p}{len(kinds)}"
            if gated:
                s[f + ".DenseReluDense.wi_0.weight"] = normal(ff, d, std=1.0 / math.sqrt(d))
                s[f + ".DenseReluDense.wi_1.weight"] = normal(ff, d, std=1.0 / math.sqrt(d))
            else:
                s[f + ".DenseReluDense.wi.weight"] = normal(ff, d, std=1.0 / math.sqrt(d))
            s[f + ".DenseReluDense.wo.weight"] = normal(d, ff, std=3.0 / math.sqrt(ff))
            s[f + ".layer_norm.weight"] = 1.0 + normal(d, std=0.2)
        s[f"{stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight"] = normal(
            c["relative_attention_num_buckets"], c["num_heads"], std=1.5)
        s[f"{stack}.final_layer_norm.weight"] = 1.0 + normal(d, std=0.2)
    if not c["tie_word_embeddings"]:
        s["lm_head.weight"] = normal(c["vocab_size"], d, std=2.0 / math.sqrt(d))
    return s


def write_hub_folder(folder, sizes, seed):
    """config.json and model.safetensors as the hub serves them; returns (config, state)."""
    os.makedirs(folder, exist_ok=True)
    config = hub_config(sizes)
    state = random_state(config, seed)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    case_files.write_safetensors(os.path.join(folder, "model.safetensors"), state)
    return config, state
