#!/usr/bin/python3
"""Writes one random-weight Llama-architecture model twice: for focal and for llama.cpp.

  llama_model.py OUT_DIR [--seed S] [--hidden 768 --layers 12 --heads 12 --kv-heads 4
                 --head-dim 64 --ffn 2048 --vocab 32000] [--ids N] [--gguf-dtype q8_0[,q4_0,f16,f32]]

OUT_DIR/config.json + OUT_DIR/model.safetensors: Hugging Face LlamaForCausalLM names and
config, f32, as focal's llama preset (converter/src/presets/llama.cpp) reads them.
OUT_DIR/model-q8_0.gguf: the same weights as GGUF version 3 for llama.cpp, every matrix
(token embedding and LM head included, as llama.cpp's own converter writes --outtype
q8_0) in Q8_0, norms in f32. --gguf-dtype takes a comma-separated list and writes
model-DTYPE.gguf for each: q8_0; q4_0 (every matrix in Q4_0, as `llama-quantize --pure`
writes it: llama.cpp's default Q4_0 mix keeps the LM head in Q6_K); f16; f32 (every
tensor in f32: for checking that both engines compute the same function, without any
rounding). --ids N also writes OUT_DIR/ids.npy [1, N] int32: the token
ids llama_prefill.c decodes (the same formula), for comparing the two engines' logits.

Default sizes: ~125 M parameters (hidden 768, 12 layers, 12 query / 4 KV heads of 64,
SwiGLU FFN 2048, vocabulary 32000, untied LM head), RMSNorm eps 1e-5, RoPE theta 10000.
Weights of sane scale: every matrix and the embedding N(0, 0.02^2), norm gains
1 + N(0, 0.02^2), from a fixed seed.

The GGUF writer follows the format's specification (ggml's docs/gguf.md and the comment
at the top of gguf.h): header, typed metadata key-value pairs, tensor infos (dimensions
innermost first), then the tensor data, each tensor aligned to general.alignment.
llama.cpp rotates adjacent pairs (x[2i], x[2i+1]) in RoPE where Hugging Face rotates the
two halves of each head (x[i], x[i + d/2]); as llama.cpp's converter does, q_proj and
k_proj rows are permuted within each head (the spec's llama.cpp tensor_data_layout) so both
engines compute the same function. The vocabulary is tokenizer.ggml.model "none" with
llama.vocab_size dummy tokens: llama.cpp then takes ids below that and needs no strings.
"""

import argparse
import json
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "models"))
from case_files import write_safetensors  # noqa: E402  (one safetensors writer for tests and benchmarks)

RMS_EPS = 1e-5
ROPE_THETA = 10000.0
CONTEXT = 2048

# GGUF metadata value types and ggml tensor types (gguf.h, ggml.h).
GGUF_UINT32, GGUF_FLOAT32, GGUF_STRING = 4, 6, 8
GGML_F32, GGML_F16, GGML_Q4_0, GGML_Q8_0 = 0, 1, 2, 8
# general.file_type (llama.h's llama_ftype) and the ggml type of the matrices, per --gguf-dtype.
GGUF_DTYPES = {"f32": (0, GGML_F32), "f16": (1, GGML_F16), "q4_0": (2, GGML_Q4_0), "q8_0": (7, GGML_Q8_0)}
ALIGNMENT = 32
QK = 32  # weights per Q8_0 or Q4_0 block: an f16 scale, then 32 int8 or 32 nibbles


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out_dir")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--gguf-dtype", default="q8_0", type=lambda text: text.split(","),
                   help="comma-separated: " + ", ".join(GGUF_DTYPES))
    for name, value in (("hidden", 768), ("layers", 12), ("heads", 12), ("kv-heads", 4),
                        ("head-dim", 64), ("ffn", 2048), ("vocab", 32000), ("ids", 0)):
        p.add_argument("--" + name, type=int, default=value)
    return p.parse_args()


def random_state_dict(a):
    """HF LlamaForCausalLM names, [out, in] matrices."""
    g = torch.Generator().manual_seed(a.seed)

    def normal(*shape):
        return torch.randn(*shape, generator=g) * 0.02

    def gain(n):
        return 1.0 + normal(n)

    q, kv = a.heads * a.head_dim, a.kv_heads * a.head_dim
    sd = {"model.embed_tokens.weight": normal(a.vocab, a.hidden)}
    for l in range(a.layers):
        p = "model.layers.%d." % l
        sd[p + "input_layernorm.weight"] = gain(a.hidden)
        sd[p + "self_attn.q_proj.weight"] = normal(q, a.hidden)
        sd[p + "self_attn.k_proj.weight"] = normal(kv, a.hidden)
        sd[p + "self_attn.v_proj.weight"] = normal(kv, a.hidden)
        sd[p + "self_attn.o_proj.weight"] = normal(a.hidden, q)
        sd[p + "post_attention_layernorm.weight"] = gain(a.hidden)
        sd[p + "mlp.gate_proj.weight"] = normal(a.ffn, a.hidden)
        sd[p + "mlp.up_proj.weight"] = normal(a.ffn, a.hidden)
        sd[p + "mlp.down_proj.weight"] = normal(a.hidden, a.ffn)
    sd["model.norm.weight"] = gain(a.hidden)
    sd["lm_head.weight"] = normal(a.vocab, a.hidden)
    return sd


def hf_config(a):
    return {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
            "hidden_size": a.hidden, "num_hidden_layers": a.layers,
            "num_attention_heads": a.heads, "num_key_value_heads": a.kv_heads,
            "head_dim": a.head_dim, "intermediate_size": a.ffn, "vocab_size": a.vocab,
            "max_position_embeddings": CONTEXT, "rms_norm_eps": RMS_EPS,
            "rope_theta": ROPE_THETA, "hidden_act": "silu", "tie_word_embeddings": False,
            "attention_bias": False, "torch_dtype": "float32"}


def rope_pairs_layout(w, heads):
    """Rows of each head from halves (i, i + d/2) to adjacent pairs (2i, 2i + 1)."""
    rows, cols = w.shape
    return w.reshape(heads, 2, rows // heads // 2, cols).swapaxes(1, 2).reshape(rows, cols)


def gguf_tensors(sd, a):
    """(GGUF name, f32 array [out, in] or [n]) in llama.cpp's names."""
    yield "token_embd.weight", sd["model.embed_tokens.weight"]
    yield "output_norm.weight", sd["model.norm.weight"]
    yield "output.weight", sd["lm_head.weight"]
    names = (("attn_norm", "input_layernorm"), ("attn_q", "self_attn.q_proj"),
             ("attn_k", "self_attn.k_proj"), ("attn_v", "self_attn.v_proj"),
             ("attn_output", "self_attn.o_proj"), ("ffn_norm", "post_attention_layernorm"),
             ("ffn_gate", "mlp.gate_proj"), ("ffn_up", "mlp.up_proj"), ("ffn_down", "mlp.down_proj"))
    for l in range(a.layers):
        for ours, hf in names:
            w = sd["model.layers.%d.%s.weight" % (l, hf)]
            if ours == "attn_q":
                w = rope_pairs_layout(w, a.heads)
            elif ours == "attn_k":
                w = rope_pairs_layout(w, a.kv_heads)
            yield "blk.%d.%s.weight" % (l, ours), w


def blocks_of(w):
    return np.ascontiguousarray(w, dtype=np.float32).reshape(-1, QK)


def quantize_q8_0(w):
    """Blocks of 32 along each row: scale d = max|x| / 127 as f16, then round(x / d) as int8."""
    blocks = blocks_of(w)
    d = np.abs(blocks).max(axis=1) / np.float32(127.0)
    inverse = np.divide(np.float32(1.0), d, out=np.zeros_like(d), where=d > 0)
    scaled = blocks * inverse[:, None]
    q = np.clip(np.trunc(scaled + np.copysign(0.5, scaled)), -127, 127).astype(np.int8)  # half away from 0
    out = np.empty(len(blocks), dtype=[("d", "<f2"), ("q", "i1", QK)])
    out["d"], out["q"] = d.astype(np.float16), q
    return out.tobytes()


def quantize_q4_0(w):
    """ggml's quantize_row_q4_0_ref: per block of 32, d = (the value of largest |x|) / -8 as
    f16, q = min(15, trunc(x / d + 8.5)) in 0..15 (value (q - 8) * d); byte j of the 16 holds
    element j in its low nibble and element j + 16 in its high one."""
    blocks = blocks_of(w)
    largest = blocks[np.arange(len(blocks)), np.abs(blocks).argmax(axis=1)]  # the first of equal |x|, as ggml
    d = largest / np.float32(-8.0)
    inverse = np.divide(np.float32(1.0), d, out=np.zeros_like(d), where=d != 0)
    q = np.minimum(15, np.trunc(blocks * inverse[:, None] + np.float32(8.5)).astype(np.int8)).astype(np.uint8)
    out = np.empty(len(blocks), dtype=[("d", "<f2"), ("qs", "u1", QK // 2)])
    out["d"], out["qs"] = d.astype(np.float16), q[:, :QK // 2] | (q[:, QK // 2:] << 4)
    return out.tobytes()


# Each --gguf-dtype's matrix encoder; vectors (norm gains) stay f32 in every file.
MATRIX_ENCODERS = {
    "f32": lambda w: np.ascontiguousarray(w, dtype="<f4").tobytes(),
    "f16": lambda w: np.ascontiguousarray(w, dtype="<f2").tobytes(),
    "q8_0": quantize_q8_0,
    "q4_0": quantize_q4_0,
}


def gguf_string(text):
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def gguf_kv(key, kind, value):
    body = {GGUF_UINT32: lambda v: struct.pack("<I", v), GGUF_FLOAT32: lambda v: struct.pack("<f", v),
            GGUF_STRING: gguf_string}[kind](value)
    return gguf_string(key) + struct.pack("<I", kind) + body


def gguf_metadata(a, dtype):
    u32 = GGUF_UINT32
    return [("general.architecture", GGUF_STRING, "llama"),
            ("general.name", GGUF_STRING, "random-llama"),
            ("general.file_type", u32, GGUF_DTYPES[dtype][0]),
            ("general.quantization_version", u32, 2),
            ("general.alignment", u32, ALIGNMENT),
            ("llama.vocab_size", u32, a.vocab),
            ("llama.context_length", u32, CONTEXT),
            ("llama.embedding_length", u32, a.hidden),
            ("llama.block_count", u32, a.layers),
            ("llama.feed_forward_length", u32, a.ffn),
            ("llama.attention.head_count", u32, a.heads),
            ("llama.attention.head_count_kv", u32, a.kv_heads),
            ("llama.attention.key_length", u32, a.head_dim),
            ("llama.attention.value_length", u32, a.head_dim),
            ("llama.attention.layer_norm_rms_epsilon", GGUF_FLOAT32, RMS_EPS),
            ("llama.rope.dimension_count", u32, a.head_dim),
            ("llama.rope.freq_base", GGUF_FLOAT32, ROPE_THETA),
            ("tokenizer.ggml.model", GGUF_STRING, "none")]


def write_gguf(path, sd, a, dtype):
    infos, blobs, offset = [], [], 0
    for name, w in gguf_tensors(sd, a):
        w = w.numpy()
        matrix = w.ndim == 2
        kind = GGUF_DTYPES[dtype][1] if matrix else GGML_F32
        data = MATRIX_ENCODERS[dtype if matrix else "f32"](w)
        dims = list(reversed(w.shape))  # ggml's ne[0] is the contiguous (input) dimension
        infos.append(gguf_string(name) + struct.pack("<I", len(dims)) + struct.pack("<%dQ" % len(dims), *dims)
                     + struct.pack("<IQ", kind, offset))
        padding = -len(data) % ALIGNMENT
        blobs.append(data + b"\0" * padding)
        offset += len(data) + padding
    metadata = gguf_metadata(a, dtype)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(infos), len(metadata))
    head += b"".join(gguf_kv(*kv) for kv in metadata) + b"".join(infos)
    head += b"\0" * (-len(head) % ALIGNMENT)
    with open(path, "wb") as f:
        f.write(head)
        for blob in blobs:
            f.write(blob)


def prompt_ids(count, vocab):
    """llama_prefill.c's prompt: id i = (i * 7919 + 13) mod vocab."""
    return np.array([[(i * 7919 + 13) % vocab for i in range(count)]], dtype=np.int32)


def main():
    a = parse_args()
    if a.heads % a.kv_heads or a.head_dim % 2 or a.hidden % QK or a.ffn % QK:
        sys.exit("llama_model.py: heads must be a multiple of kv-heads, head-dim even, hidden and ffn "
                 "multiples of 32 (Q8_0 and Q4_0 blocks)")
    unknown = [d for d in a.gguf_dtype if d not in GGUF_DTYPES]
    if unknown:
        sys.exit("llama_model.py: --gguf-dtype %s is not one of %s" % (",".join(unknown), ", ".join(GGUF_DTYPES)))
    os.makedirs(a.out_dir, exist_ok=True)
    sd = random_state_dict(a)
    with open(os.path.join(a.out_dir, "config.json"), "w") as f:
        json.dump(hf_config(a), f, indent=1)
    write_safetensors(os.path.join(a.out_dir, "model.safetensors"), sd)
    for dtype in a.gguf_dtype:
        write_gguf(os.path.join(a.out_dir, "model-%s.gguf" % dtype), sd, a, dtype)
    if a.ids > 0:
        np.save(os.path.join(a.out_dir, "ids.npy"), prompt_ids(a.ids, a.vocab))
    print("llama_model.py: %.1f M parameters in %s" % (sum(t.numel() for t in sd.values()) / 1e6, a.out_dir))


if __name__ == "__main__":
    main()
