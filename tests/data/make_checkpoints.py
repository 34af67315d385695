#!/usr/bin/python3
"""Writes the checkpoint reader test corpus into OUT_DIR (run with Debian's python3-torch).

Good files, each with OUT_DIR/<name>.expected.txt listing every tensor as
"name dtype dims... : values..." (written from Python, an independent path):
  state_dict.pt          torch.save of a state_dict: f32 Linear/LayerNorm/Embedding, a
                         transposed (strided) view, a slice sharing a storage, f16, bf16, i64
  state_dict.safetensors written here byte by byte from the spec (no safetensors package)
  arrays.npz, arrays_compressed.npz, fortran.npy
Hostile files, each must be refused cleanly:
  pickle_os_system.pt, pickle_eval.pt, pickle_cycle.pt, legacy.pt, truncated.pt,
  safetensors_huge_header, safetensors_bad_dtype, safetensors_shape_mismatch,
  safetensors_out_of_range, npy_bad_shape.npy, npz_truncated.npz
"""
import io
import json
import os
import pickle
import struct
import sys
import zipfile

import numpy as np
import torch

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)


def expected(name, tensors):
    with open(os.path.join(out, name + ".expected.txt"), "w") as f:
        for key, t in tensors.items():
            values = t.detach().to(torch.float64).reshape(-1).tolist()
            dims = " ".join(str(d) for d in t.shape)
            f.write(f"{key} {str(t.dtype).replace('torch.', '')} {dims} : " + " ".join(repr(v) for v in values) + "\n")


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(5, 3)
        self.proj = torch.nn.Linear(3, 4)
        self.norm = torch.nn.LayerNorm(4)


sd = Small().state_dict()
base = torch.randn(4, 6)
sd["transposed"] = base.t()                      # strides (1, 6)
sd["slice"] = base[1:3, 2:5]                     # offset 8 into the same storage
sd["half"] = torch.randn(2, 3).half()
sd["bfloat"] = torch.randn(3).bfloat16()
sd["ids"] = torch.tensor([3, -1, 7], dtype=torch.int64)
torch.save(sd, os.path.join(out, "state_dict.pt"))
expected("state_dict.pt", sd)

# safetensors, from the spec: u64 header length, JSON, data.
names = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.int64: "I64"}
header, blobs, offset = {}, [], 0
safe = {k: v.contiguous() for k, v in sd.items()}
for key, t in safe.items():
    raw = t.view(torch.uint8).numpy().tobytes() if t.dtype == torch.bfloat16 else t.numpy().tobytes()
    header[key] = {"dtype": names[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
    blobs.append(raw)
    offset += len(raw)
header["__metadata__"] = {"format": "pt"}
text = json.dumps(header).encode()
with open(os.path.join(out, "state_dict.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
expected("state_dict.safetensors", safe)

arrays = {"w": np.random.rand(3, 4).astype(np.float32), "b": np.arange(5, dtype=np.int32),
          "h": np.random.rand(2, 2).astype(np.float16), "flag": np.array([True, False])}
np.savez(os.path.join(out, "arrays.npz"), **arrays)
np.savez_compressed(os.path.join(out, "arrays_compressed.npz"), **arrays)
for name in ("arrays.npz", "arrays_compressed.npz"):
    expected(name, {k: torch.from_numpy(v.astype(np.float64)).to({np.float32: torch.float32, np.int32: torch.int32, np.float16: torch.float16, np.bool_: torch.bool}[v.dtype.type]) for k, v in arrays.items()})
fortran = np.asfortranarray(np.arange(12, dtype=np.float64).reshape(3, 4))
np.save(os.path.join(out, "fortran.npy"), fortran)
expected("fortran.npy", {"fortran": torch.from_numpy(np.ascontiguousarray(fortran))})

# ---- hostile ----------------------------------------------------------------------


def torch_zip(name, pickle_bytes, extra=None):
    with zipfile.ZipFile(os.path.join(out, name), "w") as z:
        z.writestr("archive/data.pkl", pickle_bytes)
        for member, data in (extra or {}).items():
            z.writestr(member, data)


class CallsSystem:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


class CallsEval:
    def __reduce__(self):
        return (eval, ("1+1",))


torch_zip("pickle_os_system.pt", pickle.dumps({"w": CallsSystem()}, protocol=2))
torch_zip("pickle_eval.pt", pickle.dumps({"w": CallsEval()}, protocol=2))
cycle = []
cycle.append(cycle)
torch_zip("pickle_cycle.pt", pickle.dumps({"w": cycle}, protocol=2))
torch.save({"w": torch.ones(2)}, os.path.join(out, "legacy.pt"), _use_new_zipfile_serialization=False)
good = open(os.path.join(out, "state_dict.pt"), "rb").read()
open(os.path.join(out, "truncated.pt"), "wb").write(good[: len(good) // 2])


def safetensors(name, header_obj, data, length=None):
    text = json.dumps(header_obj).encode()
    with open(os.path.join(out, name), "wb") as f:
        f.write(struct.pack("<Q", len(text) if length is None else length) + text + data)


safetensors("safetensors_huge_header", {"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4, length=1 << 60)
safetensors("safetensors_bad_dtype", {"w": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, b"\0" * 8)
safetensors("safetensors_shape_mismatch", {"w": {"dtype": "F32", "shape": [3, 3], "data_offsets": [0, 16]}}, b"\0" * 16)
safetensors("safetensors_out_of_range", {"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8)
buf = io.BytesIO()
np.save(buf, np.zeros((2, 3), dtype=np.float32))
raw = buf.getvalue().replace(b"(2, 3)", b"(9, 3)")
open(os.path.join(out, "npy_bad_shape.npy"), "wb").write(raw)
npz = open(os.path.join(out, "arrays_compressed.npz"), "rb").read()
open(os.path.join(out, "npz_truncated.npz"), "wb").write(npz[: len(npz) - 40])
print("wrote", len(os.listdir(out)), "files to", out)
