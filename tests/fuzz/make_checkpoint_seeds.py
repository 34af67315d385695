#!/usr/bin/python3
"""Writes the seed corpus of fuzz_checkpoint_structured into OUT_DIR (Debian's python3-torch).

Small valid files of every layout the readers take, a few KB each, so the structure-aware
mutator starts from real pickles, zips and headers:
  state_dict.pt      torch.save: f32 Linear/LayerNorm/Embedding, a transposed (strided) view,
                     a slice sharing a storage, f16, bf16, i64
  checkpoint.pt      torch.save of {"model": state_dict, "epoch": 3, "config": {...}}: nested dicts
  state_dict.safetensors, arrays.npz (stored), arrays_compressed.npz (deflated), fortran.npy
"""
import json
import os
import struct
import sys

import numpy as np
import torch

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
np.random.seed(0)


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(5, 3)
        self.proj = torch.nn.Linear(3, 4)
        self.norm = torch.nn.LayerNorm(4)


sd = Small().state_dict()
base = torch.randn(4, 6)
sd["transposed"] = base.t()        # strides (1, 6)
sd["slice"] = base[1:3, 2:5]       # offset 8 into the same storage
sd["half"] = torch.randn(2, 3).half()
sd["bfloat"] = torch.randn(3).bfloat16()
sd["ids"] = torch.tensor([3, -1, 7], dtype=torch.int64)
torch.save(sd, os.path.join(out, "state_dict.pt"))
torch.save({"model": Small().state_dict(), "epoch": 3, "config": {"hidden": 4, "name": "small"}},
           os.path.join(out, "checkpoint.pt"))

# safetensors, from the spec: u64 header length, JSON, data.
names = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.int64: "I64"}
header, blobs, offset = {}, [], 0
for key, t in sd.items():
    t = t.contiguous()
    raw = t.view(torch.uint8).numpy().tobytes() if t.dtype == torch.bfloat16 else t.numpy().tobytes()
    header[key] = {"dtype": names[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
    blobs.append(raw)
    offset += len(raw)
header["__metadata__"] = {"format": "pt"}
text = json.dumps(header).encode()
with open(os.path.join(out, "state_dict.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))

arrays = {"w": np.random.rand(3, 4).astype(np.float32), "b": np.arange(5, dtype=np.int32),
          "h": np.random.rand(2, 2).astype(np.float16), "flag": np.array([True, False])}
np.savez(os.path.join(out, "arrays.npz"), **arrays)
np.savez_compressed(os.path.join(out, "arrays_compressed.npz"), **arrays)
np.save(os.path.join(out, "fortran.npy"), np.asfortranarray(np.arange(12, dtype=np.float64).reshape(3, 4)))
