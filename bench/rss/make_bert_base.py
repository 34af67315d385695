#!/usr/bin/python3
"""Writes a BERT-base-sized checkpoint (random weights) and its config.json for measuring
the converter's peak memory: OUT_DIR/model.safetensors (about 438 MB) and OUT_DIR/config.json.

    /usr/bin/python3 bench/rss/make_bert_base.py OUT_DIR

safetensors is written here directly (the package is not needed): an 8-byte little-endian
header length, a JSON header mapping each name to dtype, shape and [begin, end) data
offsets, then the data. The file is never committed: it is regenerated on demand.
"""
import json
import struct
import sys
from pathlib import Path

import torch

HIDDEN, LAYERS, HEADS, INTERMEDIATE = 768, 12, 12, 3072
VOCAB, MAX_POSITIONS, TYPE_VOCAB = 30522, 512, 2


def bert_shapes():
    """(name, shape) of HuggingFace BertModel's parameters, in its order."""
    h, i = HIDDEN, INTERMEDIATE
    yield "embeddings.word_embeddings.weight", (VOCAB, h)
    yield "embeddings.position_embeddings.weight", (MAX_POSITIONS, h)
    yield "embeddings.token_type_embeddings.weight", (TYPE_VOCAB, h)
    yield "embeddings.LayerNorm.weight", (h,)
    yield "embeddings.LayerNorm.bias", (h,)
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}."
        for proj in ("query", "key", "value"):
            yield p + f"attention.self.{proj}.weight", (h, h)
            yield p + f"attention.self.{proj}.bias", (h,)
        yield p + "attention.output.dense.weight", (h, h)
        yield p + "attention.output.dense.bias", (h,)
        yield p + "attention.output.LayerNorm.weight", (h,)
        yield p + "attention.output.LayerNorm.bias", (h,)
        yield p + "intermediate.dense.weight", (i, h)
        yield p + "intermediate.dense.bias", (i,)
        yield p + "output.dense.weight", (h, i)
        yield p + "output.dense.bias", (h,)
        yield p + "output.LayerNorm.weight", (h,)
        yield p + "output.LayerNorm.bias", (h,)
    yield "pooler.dense.weight", (h, h)
    yield "pooler.dense.bias", (h,)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    tensors = []
    for name, shape in bert_shapes():
        if name.endswith("LayerNorm.weight"):
            value = 1.0 + 0.02 * torch.randn(shape)
        else:
            value = 0.02 * torch.randn(shape)
        tensors.append((name, value.to(torch.float32).contiguous()))
    header, offset = {}, 0
    for name, value in tensors:
        size = value.numel() * 4
        header[name] = {"dtype": "F32", "shape": list(value.shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned, as the safetensors package writes it
    with open(out / "model.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, value in tensors:
            f.write(value.numpy().tobytes())
    config = {"architectures": ["BertModel"], "model_type": "bert", "hidden_size": HIDDEN,
              "num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "intermediate_size": INTERMEDIATE,
              "hidden_act": "gelu", "vocab_size": VOCAB, "max_position_embeddings": MAX_POSITIONS,
              "type_vocab_size": TYPE_VOCAB, "layer_norm_eps": 1e-12, "hidden_dropout_prob": 0.1,
              "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02, "pad_token_id": 0}
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    print(f"{out / 'model.safetensors'}: {offset + 8 + len(text)} bytes, {len(tensors)} tensors")


if __name__ == "__main__":
    main()
