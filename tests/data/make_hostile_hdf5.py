#!/usr/bin/python3
"""Writes hostile HDF5 (Keras .h5 / .keras) files into OUT_DIR with Debian's python3-h5py;
tests/test_hostile_checkpoints.cpp expects each refused by name before libhdf5 reads a
byte of data (issue 32), and the two good files read:

  hdf5_external_absolute.h5   (1) a weight stored in another local file, by absolute path
                                  (libhdf5 read its bytes into the weight)
  hdf5_external_relative.h5   (1) the same by a relative path, '../secret'
  hdf5_external_fifo.h5       (1) external storage naming a FIFO (the read hung)
  hdf5_external.keras         (1) a .keras archive whose model.weights.h5 is the first one
  hdf5_virtual.h5             (1) a virtual dataset mapping hdf5_virtual_source.h5
  hdf5_filter_plugin.h5       (1) an LZF-compressed dataset: LZF is a filter plugin, which
                                  libhdf5 would load from HDF5_PLUGIN_PATH
  hdf5_chunk_bomb.h5          (3) an 8-element dataset in one 2^26-element deflated chunk:
                                  a 260 KB file made libhdf5 allocate and inflate 256 MiB
  hdf5_builtin_filters.h5         chunked, shuffled, deflated, fletcher32-checked: reads
  keras_seed.h5                   a small Keras 2 model.save file (model_weights/ with the
                                  attributes Keras writes, optimizer_weights/): reads; the
                                  seed the mutant test changes 1-3 bytes of
"""
import os
import sys
import zipfile
import zlib

import h5py
import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
kernel_name = "model_weights/dense/dense/kernel:0"


def path(name):
    return os.path.join(out, name)


def fresh(name):
    """The path of `name` in OUT_DIR with any earlier copy removed (h5py, mkfifo)."""
    if os.path.lexists(path(name)):
        os.remove(path(name))
    return path(name)


# (1) external storage: the dataset's bytes are those of another file.
with open(path("secret.bin"), "wb") as f:
    f.write(np.arange(8, dtype="<f4").tobytes())
with h5py.File(fresh("hdf5_external_absolute.h5"), "w") as f:
    f.create_dataset(kernel_name, shape=(8,), dtype="<f4", external=[(os.path.abspath(path("secret.bin")), 0, 32)])
with h5py.File(fresh("hdf5_external_relative.h5"), "w") as f:
    f.create_dataset(kernel_name, shape=(8,), dtype="<f4", external=[("../secret", 0, 32)])
os.mkfifo(fresh("fifo"))
with h5py.File(fresh("hdf5_external_fifo.h5"), "w") as f:
    f.create_dataset(kernel_name, shape=(8,), dtype="<f4", external=[(os.path.abspath(path("fifo")), 0, 32)])
with zipfile.ZipFile(fresh("hdf5_external.keras"), "w") as z:
    z.writestr("config.json", "{}")
    z.writestr("metadata.json", "{}")
    z.write(path("hdf5_external_absolute.h5"), "model.weights.h5")

# (1) a virtual dataset: its elements are mapped from a dataset of another file.
with h5py.File(fresh("hdf5_virtual_source.h5"), "w") as f:
    f.create_dataset("data", data=np.arange(8, dtype="<f4"))
layout = h5py.VirtualLayout(shape=(8,), dtype="<f4")
layout[:] = h5py.VirtualSource(os.path.abspath(path("hdf5_virtual_source.h5")), "data", shape=(8,))
with h5py.File(fresh("hdf5_virtual.h5"), "w") as f:
    f.create_virtual_dataset(kernel_name, layout)

# (1) a filter libhdf5 does not build in (h5py registers LZF in its own process only).
with h5py.File(fresh("hdf5_filter_plugin.h5"), "w") as f:
    f.create_dataset(kernel_name, data=np.arange(8, dtype="<f4"), chunks=(8,), compression="lzf")

# (3) one chunk far larger than its dataset, written pre-deflated so this script stays
# small: 2^26 zero floats (256 MiB) deflate to ~260 KB.
chunk = 1 << 26
deflate = zlib.compressobj(9)
zeros = bytes(1 << 20)
deflated = b"".join(deflate.compress(zeros) for _ in range(chunk * 4 // len(zeros))) + deflate.flush()
with h5py.File(fresh("hdf5_chunk_bomb.h5"), "w") as f:
    bomb = f.create_dataset(kernel_name, shape=(8,), maxshape=(None,), dtype="<f4", chunks=(chunk,),
                            compression="gzip")
    bomb.id.write_direct_chunk((0,), deflated)

# The built-in filters stay readable.
with h5py.File(fresh("hdf5_builtin_filters.h5"), "w") as f:
    f.create_dataset(kernel_name, data=np.arange(64, dtype="<f4").reshape(8, 8), chunks=(4, 8),
                     compression="gzip", shuffle=True, fletcher32=True)

# A Keras 2 model.save("m.h5") of Embedding(16, 4) -> Dense(3), as legacy_h5_format.py
# writes it (tests/models/keras_seed_files.py has the full layout), but for the
# embedding table, stored chunked and deflated as h5py can write it: libhdf5's chunk
# code is where most of the mutants' crashes were.
with h5py.File(fresh("keras_seed.h5"), "w") as f:
    f.attrs["keras_version"] = "2.15.0"
    f.attrs["backend"] = "tensorflow"
    f.attrs["model_config"] = '{"class_name": "Sequential", "config": {"layers": []}}'
    weights = f.create_group("model_weights")
    weights.attrs["layer_names"] = np.array([b"embedding", b"dense"])
    weights.attrs["backend"] = "tensorflow"
    embedding = weights.create_group("embedding")
    embedding.attrs["weight_names"] = np.array([b"embedding/embeddings:0"])
    embedding.create_dataset("embedding/embeddings:0", data=np.arange(64, dtype="<f4").reshape(16, 4), chunks=(4, 4),
                             compression="gzip", shuffle=True)
    dense = weights.create_group("dense")
    dense.attrs["weight_names"] = np.array([b"dense/kernel:0", b"dense/bias:0"])
    dense.create_dataset("dense/kernel:0", data=np.arange(12, dtype="<f4").reshape(4, 3) / 8)
    dense.create_dataset("dense/bias:0", data=np.array([0.5, -0.5, 0.25], dtype="<f4"))
    optimizer = f.create_group("optimizer_weights")
    optimizer.create_dataset("Adam/iter:0", data=np.int64(7))
    optimizer.create_dataset("Adam/dense/kernel/m:0", data=np.zeros((4, 3), dtype="<f4"))
print("wrote hostile HDF5 files to", out)
