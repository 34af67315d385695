#!/usr/bin/python3
"""Writes hand-forged hostile checkpoints into OUT_DIR (run with Debian's python3-torch),
one per hole found in the readers; tests/test_hostile_checkpoints.cpp expects each
refused with a message naming the problem. All are small (< 100 KB):

  torch_stride_overflow.pt    (3) (shape - 1) * stride overflows int64: the old bounds
                                  check wrapped and the copy read 4 TiB past the storage
  torch_offset_wraps.pt       (3) offset and stride chosen so the old check wrapped and the
                                  copy read 400 bytes from before the storage
  torch_shared_dicts.pt       (6) 1 KB: nested dicts sharing their children, 2^24 paths
  torch_repeated_views.pt     (6) one 4-byte storage viewed as 2^30 elements (stride 0)
  torch_lying_size.pt         (6) a stored member whose zip header claims 2 GiB
  torch_zip_bomb.pt           (6) 64 MiB of zeros deflated to ~64 KB
  torch_many_values.pt        (6) a 4 MB pickle (deflated to ~12 KB) appending 2^21 Nones
  safetensors_duplicate_key   (15) one name twice in the header
  safetensors_overlap         (15) two tensors sharing data bytes
  safetensors_gap             (15) data bytes that belong to no tensor
"""
import collections
import io
import json
import os
import pickle
import struct
import sys
import zipfile

import torch

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


class StorageRef:
    """Pickled as torch.save's persistent id of a storage."""

    def __init__(self, key, numel):
        self.key, self.numel = key, numel


class TensorView:
    """Pickled as torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)."""

    def __init__(self, storage, offset, size, stride):
        self.args = (storage, offset, tuple(size), tuple(stride), False, collections.OrderedDict())

    def __reduce__(self):
        return (torch._utils._rebuild_tensor_v2, self.args)


class TorchPickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, StorageRef):
            return ("storage", torch.FloatStorage, obj.key, "cpu", obj.numel)
        return None


def state_dict_pickle(state):
    buf = io.BytesIO()
    TorchPickler(buf, protocol=2).dump(state)
    return buf.getvalue()


def torch_zip(name, state, storages, compression=zipfile.ZIP_STORED):
    path = os.path.join(out, name)
    with zipfile.ZipFile(path, "w", compression=compression) as z:
        z.writestr("archive/data.pkl", state_dict_pickle(state))
        for key, data in storages.items():
            z.writestr("archive/data/" + key, data)
    return path


floats = struct.pack("<100f", *range(100))

# (3) shape [3], stride [2^62 + 2^40]: 2 * stride overflows int64 to a negative "last".
torch_zip("torch_stride_overflow.pt", {"w": TensorView(StorageRef("0", 100), 0, [3], [(1 << 62) + (1 << 40)])},
          {"0": floats})
# (3) offset 2^62 - 100 with a row stride 2^62 + 100: the old sum wrapped negative, and
# offset * 4 bytes wrapped to 400 bytes before the storage.
torch_zip("torch_offset_wraps.pt",
          {"w": TensorView(StorageRef("0", 100), (1 << 62) - 100, [2, 100], [(1 << 62) + 100, 1])}, {"0": floats})

# (6) 24 levels of {"a": child, "b": child}: pickle memoizes the child, so the file is
# tiny, but walking it names 2^24 tensors.
level = {"w": TensorView(StorageRef("0", 100), 0, [100], [1])}
for _ in range(24):
    level = {"a": level, "b": level}
torch_zip("torch_shared_dicts.pt", level, {"0": floats})

# (6) 2^30 elements (4 GiB) viewed from one float with stride 0.
torch_zip("torch_repeated_views.pt", {"w": TensorView(StorageRef("0", 1), 0, [1 << 30], [0])},
          {"0": struct.pack("<f", 1.0)})

# (6) a stored 4-byte member whose local and central headers claim 2^31 - 4 bytes (and a
# storage of as many elements): the reader allocated 2 GiB before finding the data short.
claimed = (1 << 31) - 4
path = torch_zip("torch_lying_size.pt", {"w": TensorView(StorageRef("0", claimed // 4), 0, [1], [1])},
                 {"0": b"\0\0\0\0"})
raw = bytearray(open(path, "rb").read())
name = b"archive/data/0"
at = 0
while True:
    at = raw.find(b"PK\x03\x04", at)
    if at < 0:
        break
    name_length = struct.unpack_from("<H", raw, at + 26)[0]
    if raw[at + 30: at + 30 + name_length] == name:
        struct.pack_into("<I", raw, at + 22, claimed)  # uncompressed size
    at += 4
at = 0
while True:
    at = raw.find(b"PK\x01\x02", at)
    if at < 0:
        break
    name_length = struct.unpack_from("<H", raw, at + 28)[0]
    if raw[at + 46: at + 46 + name_length] == name:
        struct.pack_into("<I", raw, at + 24, claimed)
    at += 4
open(path, "wb").write(bytes(raw))

# (6) a zip bomb: 64 MiB of zeros, deflated, of which the tensor views one element (so
# only the inflation budget, not the tensor bytes, can refuse it).
zeros = 64 << 20
torch_zip("torch_zip_bomb.pt", {"w": TensorView(StorageRef("0", zeros // 4), 0, [1], [1])},
          {"0": bytes(zeros)}, compression=zipfile.ZIP_DEFLATED)


# (6) a list of 2^21 + 1 Nones, two opcode bytes each: cheap in the file, ~260 bytes each
# as parsed values.
count = (1 << 21) + 1
pickle_bytes = b"\x80\x02}X\x01\x00\x00\x00w]" + b"Na" * count + b"s."
with zipfile.ZipFile(os.path.join(out, "torch_many_values.pt"), "w", compression=zipfile.ZIP_DEFLATED) as z:
    z.writestr("archive/data.pkl", pickle_bytes)


# (15) safetensors headers written as text, so a key can appear twice.
def safetensors(name, header_text, data):
    text = header_text.encode()
    with open(os.path.join(out, name), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


entry = '{"dtype": "F32", "shape": [2], "data_offsets": [%d, %d]}'
safetensors("safetensors_duplicate_key", '{"w": %s, "w": %s}' % (entry % (0, 8), entry % (8, 16)), bytes(16))
safetensors("safetensors_overlap", '{"a": %s, "b": %s}' % (entry % (0, 8), entry % (4, 12)), bytes(12))
safetensors("safetensors_gap", '{"a": %s, "b": %s}' % (entry % (0, 8), entry % (12, 20)), bytes(20))
print("wrote hostile checkpoints to", out)
