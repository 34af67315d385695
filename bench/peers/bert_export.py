#!/usr/bin/python3
"""Writes models_torch.py's BERT-base (seq 128, the bert_base/seq:128 case's weights and
ids) for the other engines of bench/peers/run_bert_int8, into DIR:
  bert.pt, config.json    the weights under Hugging Face BERT names, for focal convert
                          --preset bert (no pooler: last_hidden_state only)
  input_ids.npy, attention_mask.npy, token_type_ids.npy   int32 [1, 128], for focal run
  bert_f32.onnx, bert_int8.onnx   ONNX forms for ONNX Runtime (bert_onnx.py)
  input_ids.i64           the ids as raw little-endian int64 [128], for bert_ort.mjs
  torch_f32.f32           torch's f32 last hidden state, raw float32 [128, 768]

  bert_export.py DIR
"""

import json
import os
import sys

import numpy as np
import torch

import bert_onnx
from models_torch import BERT_BASE, BERT_POSITIONS, BERT_VOCAB, bert_module_sdpa, make_bert

SEQ = 128
SEED = 1  # models_torch.py's bert_base/seq:128


def hf_state_dict(embeddings, layers):
    """The weights under transformers' BertModel names (contiguous copies)."""
    sd = {
        "embeddings.word_embeddings.weight": embeddings.word.weight,
        "embeddings.position_embeddings.weight": embeddings.position.weight,
        "embeddings.token_type_embeddings.weight": embeddings.token_type.weight,
        "embeddings.LayerNorm.weight": embeddings.norm.weight,
        "embeddings.LayerNorm.bias": embeddings.norm.bias,
    }
    for i, layer in enumerate(layers):
        p = "encoder.layer.%d." % i
        for part, w, b in zip(("query", "key", "value"), layer.qkv.weight.chunk(3), layer.qkv.bias.chunk(3)):
            sd[p + "attention.self.%s.weight" % part] = w
            sd[p + "attention.self.%s.bias" % part] = b
        for name, module in (("attention.output.dense", layer.out), ("attention.output.LayerNorm", layer.norm1),
                             ("intermediate.dense", layer.ffn_in), ("output.dense", layer.ffn_out),
                             ("output.LayerNorm", layer.norm2)):
            sd[p + name + ".weight"] = module.weight
            sd[p + name + ".bias"] = module.bias
    return {name: t.detach().contiguous().clone() for name, t in sd.items()}


def hf_config(d, heads, ffn, layers):
    return {"model_type": "bert", "vocab_size": BERT_VOCAB, "hidden_size": d, "num_hidden_layers": layers,
            "num_attention_heads": heads, "intermediate_size": ffn, "max_position_embeddings": BERT_POSITIONS,
            "type_vocab_size": 2, "hidden_act": "gelu", "layer_norm_eps": 1e-12}


def write_focal_inputs(out, ids):
    np.save(os.path.join(out, "input_ids.npy"), ids.numpy().astype(np.int32)[None])
    np.save(os.path.join(out, "attention_mask.npy"), np.ones((1, SEQ), np.int32))
    np.save(os.path.join(out, "token_type_ids.npy"), np.zeros((1, SEQ), np.int32))


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.set_grad_enabled(False)
    embeddings, _, layers, ids = make_bert(BERT_BASE, SEQ, SEED)
    torch.save(hf_state_dict(embeddings, layers), os.path.join(out, "bert.pt"))
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(hf_config(**BERT_BASE), f, indent=1)
    write_focal_inputs(out, ids)
    ids.numpy().astype("<i8").tofile(os.path.join(out, "input_ids.i64"))
    reference = bert_module_sdpa(embeddings, layers, ids)
    reference.numpy().astype("<f4").tofile(os.path.join(out, "torch_f32.f32"))
    for int8 in (False, True):
        path = os.path.join(out, "bert_int8.onnx" if int8 else "bert_f32.onnx")
        traced = bert_onnx.export(embeddings, layers, ids, int8, path)
        if not int8 and not torch.allclose(traced, reference, atol=1e-4, rtol=1e-4):
            raise SystemExit("bert_export.py: the ONNX form's torch twin disagrees with models_torch.py")
    print("bert_export.py: wrote %s" % out, file=sys.stderr)


if __name__ == "__main__":
    main()
