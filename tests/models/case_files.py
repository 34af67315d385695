"""Reading and writing the reference cases' files: checkpoints in the three formats
the converter reads (torch.save zip, .npz, and safetensors written here), read back for
exact comparison, and the .npy arrays of inputs and expected outputs. Shared by
make_reference.py and the other reference scripts (through it)."""

import json
import os
import struct

import numpy as np
import torch


# ---------------------------------------------------------------------------------------------
# Checkpoints

def write_safetensors(path, state_dict):
    header, blobs, offset = {}, [], 0
    for name in sorted(state_dict):
        raw = np.ascontiguousarray(state_dict[name].numpy(), dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(state_dict[name].shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack_from("<Q", data, 0)
    assert length % 8 == 0
    header = json.loads(data[8:8 + length])
    body = data[8 + length:]
    tensors, end = {}, 0
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", name
        begin, stop = info["data_offsets"]
        array = np.frombuffer(body[begin:stop], dtype="<f4").reshape(info["shape"])
        tensors[name] = torch.from_numpy(array.astype(np.float32))
        end = max(end, stop)
    assert end == len(body)
    return tensors


def save_weights(path, fmt, state_dict):
    if fmt == "pt":
        torch.save(state_dict, path)
    elif fmt == "npz":
        np.savez(path, **{name: t.numpy() for name, t in state_dict.items()})
    else:
        write_safetensors(path, state_dict)


def load_weights(path, fmt):
    if fmt == "pt":
        return torch.load(path, map_location="cpu")
    if fmt == "npz":
        with np.load(path) as archive:
            return {name: torch.from_numpy(archive[name]) for name in archive.files}
    return read_safetensors(path)


def assert_same_state_dict(expected, loaded):
    assert set(expected) == set(loaded), set(expected) ^ set(loaded)
    for name, t in expected.items():
        got = loaded[name]
        assert got.dtype == torch.float32 and got.shape == t.shape, name
        assert torch.equal(got, t), name


# ---------------------------------------------------------------------------------------------
# Arrays

def to_numpy(t):
    t = t.detach()
    if t.dtype.is_floating_point:
        return t.to(torch.float32).numpy()
    return t.to(torch.int32).numpy()


def save_arrays(directory, arrays):
    os.makedirs(directory, exist_ok=True)
    for name, t in arrays.items():
        np.save(os.path.join(directory, name + ".npy"), to_numpy(t))
