#!/usr/bin/python3
"""Writes the seed corpus of fuzz_keras_h5 (tests/fuzz/corpus/fuzz_keras_h5/): programs in
the harness's format (tests/fuzz/fuzz_keras_h5.cpp) that build the Keras files the
converter reads (the attention classifier of tests/models/keras_seed_files.py as Keras 2
save_weights, Keras 2 model.save with optimizer_weights/, a Keras 3 .keras archive, with
LSTM and GRU cells), and files with each structure the reader must refuse or bound
(external storage, a virtual dataset, the n-bit and scale-offset filters, which are not
among the three the reader takes; a chunk far larger than its dataset, a large declared extent, enum, string, compound,
reference and variable-length types, soft, external and hard links, dense groups,
shared messages, user blocks), and forked runs of the classifier with 1-3 bytes changed.
The values are a fixed pseudo-random pattern (seeded), so the corpus is the same on
every run.

Files named regress_* there are inputs the fuzzer found, kept as regression inputs; this
script leaves them alone.

Usage: tests/fuzz/make_keras_h5_seeds.py (from anywhere; rewrites the other files)
"""
import ast
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "fuzz_keras_h5")


def harness_names():
    """The harness's kNames, in order, read from tests/fuzz/fuzz_keras_h5.cpp itself, so a
    seed's name indices cannot drift from the table they index."""
    with open(os.path.join(HERE, "fuzz_keras_h5.cpp"), encoding="utf-8") as f:
        source = f.read()
    table = re.search(r"kNames\[\] = \{(.*?)\};", source, re.S).group(1)
    return [ast.literal_eval('"' + text + '"').encode("latin-1").decode("utf-8")
            for text in re.findall(r'"((?:[^"\\]|\\.)*)"', table)]


NAMES = harness_names()
ATTRIBUTES = ["layer_names", "weight_names", "backend", "keras_version", "model_config", "training_config",
              "CLASS", "x"]
TEXT_COUNT = 11  # kTexts
TEXT_KERAS2, TEXT_KERAS3, TEXT_TF, TEXT_FUNCTIONAL = 0, 1, 2, 5

# Element types (make_type's cases).
F32, F32BE, F64, F64BE, F16, F16BE, BF16, I8, U8, I16, I16BE, I32, I32BE, I64, I64BE, U64, U32BE, I12, BOOL, \
    FIXED_STRING, VLEN_STRING, COMPLEX, ARRAY, BITFIELD, OPAQUE, REFERENCE, LONG_DOUBLE, VLEN, F24, COMMITTED = range(30)
ELEMENT_BYTES = {F32: 4, F32BE: 4, F64: 8, F64BE: 8, F16: 2, F16BE: 2, BF16: 2, I8: 1, U8: 1, I16: 2, I16BE: 2,
                 I32: 4, I32BE: 4, I64: 8, I64BE: 8, U64: 8, U32BE: 4, I12: 2, BOOL: 1, COMPLEX: 8, BITFIELD: 1,
                 LONG_DOUBLE: 16, F24: 4}
# Entry kinds.
DATASET, GROUP, ATTRIBUTE, SOFT, EXTERNAL_LINK, HARD, COMMIT = 0, 2, 3, 4, 5, 6, 7
COMPACT, CONTIGUOUS, CHUNKED, EXTERNAL, VIRTUAL = range(5)

rng = random.Random(20261205)


def path(*parts):
    out = [len(parts)]
    for part in parts:
        out.append(NAMES.index(part))
    return out


def pattern(count_bytes):
    n = min(32, max(1, count_bytes))
    return [n - 1] + [rng.randrange(256) for _ in range(n)]


def float_pattern():
    """A pattern of whole small float32 values (little-endian), so weights are sane."""
    values = [rng.choice([0x3f800000, 0xbf800000, 0x3e800000, 0xbe000000, 0x3d4ccccd, 0x00000000, 0x3f000000])
              for _ in range(8)]
    data = []
    for v in values:
        data += list(v.to_bytes(4, "little"))
    return [len(data) - 1] + data


def dataset(parts, dims, type_=F32, layout=CONTIGUOUS, chunk=None, filters=0, level=6, fill=0, write=1,
            space=None, extra=()):
    """An entry making a dataset; `space` overrides the space byte (scalar 5, null 6, large 7)."""
    out = [DATASET] + path(*parts) + [type_] + list(extra)
    s = len(dims) if space is None else space
    out.append(s)
    for d in dims:
        if space == 7:
            out += [0, d & 0xff, d >> 8]
        elif d < 24:
            out.append(d)
        else:
            out += [0xF0, (d - 1) & 0xff, (d - 1) >> 8]
    out.append(layout)
    if layout == CHUNKED:
        out += list(chunk)
        out.append(filters)
        if filters & 2:
            out.append(level)
        if filters & 8:
            out += [0, 2]
    elif layout == EXTERNAL:
        out += [0, 0, 0]
    elif layout == VIRTUAL and (space is None or space in (0, 1, 2, 3, 4, 7)):
        out.append(0)
    out.append(fill)
    if fill & 1:
        out += pattern(ELEMENT_BYTES.get(type_, 4))
    out.append(write)
    count = 1
    for d in dims:
        count *= d
    writable = type_ not in (VLEN_STRING, REFERENCE, VLEN) and layout not in (EXTERNAL, VIRTUAL) and count <= 4096
    if writable and count > 0 and space != 6 and write & 3:
        out += float_pattern() if type_ == F32 else pattern(count * ELEMENT_BYTES.get(type_, 4))
    return out


def attribute(parts, name, kind, *values):
    """kind 0: fixed string, 1: array of fixed strings, 2: vlen string (values: text ids)."""
    out = [ATTRIBUTE] + path(*parts) + [ATTRIBUTES.index(name), kind]
    if kind == 1:
        out.append(len(values))
    for v in values:
        out.append(v if isinstance(v, int) else TEXT_COUNT + NAMES.index(v))
    return out


def program(mode, entries, libver=2, smallk=(), after=()):
    out = [mode, libver] + list(smallk) + [0, len(entries)]
    for entry in entries:
        out += entry
    return bytes(out + list(after))


def classifier(cell, keras3=False, whole_model=False, gate_hidden=4, embed=8, vocab=20, units=6, classes=2,
               layout=CONTIGUOUS, filters=0):
    """The attention classifier's weights in Keras 2 (save_weights or model.save) or 3 names."""
    g = 4 if cell == "lstm" else 3
    h = gate_hidden
    chunk = lambda dims: [min(d, 4) for d in dims]
    def ds(parts, dims):
        return dataset(parts, dims, layout=layout, chunk=chunk(dims), filters=filters)
    bias = [g * h] if cell == "lstm" else [2, g * h]
    entries = []
    if keras3:
        for direction in ("forward_layer", "backward_layer"):
            base = ("layers", "bidirectional", direction, "cell", "vars")
            entries += [ds(base + ("0",), [embed, g * h]), ds(base + ("1",), [h, g * h]), ds(base + ("2",), bias)]
        entries += [ds(("layers", "embedding", "vars", "0"), [vocab, embed]),
                    ds(("layers", "bahdanau_attention", "W", "vars", "0"), [2 * h, units]),
                    ds(("layers", "bahdanau_attention", "W", "vars", "1"), [units]),
                    ds(("layers", "bahdanau_attention", "V", "vars", "0"), [units, 1]),
                    ds(("layers", "bahdanau_attention", "V", "vars", "1"), [1]),
                    ds(("layers", "dense", "vars", "0"), [2 * h, classes]),
                    ds(("layers", "dense", "vars", "1"), [classes]),
                    [GROUP] + path("layers", "dropout", "vars") + [0],
                    dataset(("optimizer", "vars", "0"), [], type_=I64, space=5)]
        return entries
    root = ("model_weights",) if whole_model else ()
    forward, backward = (f"forward_{cell}", f"backward_{cell}")
    cells = (f"{cell}_cell_1", f"{cell}_cell_2")
    if whole_model:
        entries.append(attribute((), "model_config", 0, TEXT_FUNCTIONAL))
        entries.append(attribute((), "keras_version", 0, TEXT_KERAS2))
    entries.append(attribute(root, "layer_names", 1, "input_1", "embedding", "bidirectional", "bahdanau_attention",
                             "dropout", "dense_2"))
    entries.append(attribute(root, "backend", 0, TEXT_TF))
    entries.append(ds(root + ("embedding", "embedding", "embeddings:0"), [vocab, embed]))
    entries.append(attribute(root + ("embedding",), "weight_names", 1, "embeddings:0"))
    for direction, cell_name in zip((forward, backward), cells):
        base = root + ("bidirectional", "bidirectional", direction, cell_name)
        entries += [ds(base + ("kernel:0",), [embed, g * h]), ds(base + ("recurrent_kernel:0",), [h, g * h]),
                    ds(base + ("bias:0",), bias)]
    entries += [ds(root + ("bahdanau_attention", "bahdanau_attention", "dense", "kernel:0"), [2 * h, units]),
                ds(root + ("bahdanau_attention", "bahdanau_attention", "dense", "bias:0"), [units]),
                ds(root + ("bahdanau_attention", "bahdanau_attention", "dense_1", "kernel:0"), [units, 1]),
                ds(root + ("bahdanau_attention", "bahdanau_attention", "dense_1", "bias:0"), [1]),
                ds(root + ("dense_2", "dense_2", "kernel:0"), [2 * h, classes]),
                ds(root + ("dense_2", "dense_2", "bias:0"), [classes]),
                [GROUP] + path(*(root + ("dropout",))) + [0]]
    if whole_model:
        entries.append(dataset(("optimizer_weights", "Adam", "iter:0"), [], type_=I64, space=5))
        entries.append(dataset(("optimizer_weights", "Adam", "dense_2", "m:0"), [2 * h, classes]))
    return entries


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if not name.startswith("regress_"):
            os.remove(os.path.join(OUT, name))
    seeds = {}
    H5, KERAS, FORKED = 0, 3, 0x0c
    seeds["keras2_save_weights_lstm"] = program(H5, classifier("lstm"))
    seeds["keras2_save_weights_gru"] = program(H5, classifier("gru"), libver=0)
    seeds["keras2_model_save_lstm"] = program(H5, classifier("lstm", whole_model=True), libver=1)
    seeds["keras3_archive_lstm"] = program(KERAS, classifier("lstm", keras3=True), after=[1])
    seeds["keras3_archive_gru_stored"] = program(KERAS, classifier("gru", keras3=True), after=[0])
    seeds["keras2_chunked_filters"] = program(H5, classifier("lstm", layout=CHUNKED, filters=0x83))
    seeds["keras2_compact_smallk"] = program(0x20, classifier("gru", layout=COMPACT), smallk=[1, 1, 2])
    seeds["keras2_shared_messages_sizes4"] = program(0xC0, classifier("lstm"))
    # Forked, through the real isolation, with 1-3 bytes changed (offset u16, xor).
    for i in range(3):
        patches = [1 + i] + [b for _ in range(1 + i) for b in (rng.randrange(256), rng.randrange(8), rng.randrange(256))]
        seeds[f"forked_mutant_{i}"] = program(FORKED, classifier("lstm", whole_model=(i == 1)), after=patches)
    seeds["forked_keras3_clean"] = program(KERAS | FORKED, classifier("gru", keras3=True), after=[0, 1])
    # Structures the reader must refuse or bound.
    w = ("model_weights", "dense", "dense", "kernel:0")
    seeds["external_storage"] = program(H5, [dataset(w, [4, 2], layout=EXTERNAL)])
    seeds["virtual_dataset"] = program(H5, [dataset(w, [4, 2], layout=VIRTUAL)])
    seeds["nbit_scaleoffset"] = program(H5, [dataset(w, [4, 2], type_=I32, layout=CHUNKED, chunk=[2, 2], filters=4),
                                             dataset(("dense", "dense", "bias:0"), [4], layout=CHUNKED, chunk=[2],
                                                     filters=8)])
    seeds["chunk_bomb"] = program(H5, [dataset(w, [8], space=8 | 1, layout=CHUNKED, chunk=[0xFF], filters=2, write=0, fill=1)])
    seeds["large_declared"] = program(H5, [dataset(w, [4000], space=7, layout=CHUNKED, chunk=[0x85], write=0,
                                                   fill=1)])
    seeds["unlimited_partial_write"] = program(H5, [dataset(w, [6, 3], space=8 | 2, layout=CHUNKED, chunk=[2, 3],
                                                            write=3)])
    # Every element type, one file each (the first refused dataset ends a file's read).
    extras = {FIXED_STRING: [7], ARRAY: [1], OPAQUE: [3]}
    for t in range(COMMITTED):
        seeds[f"type_{t:02d}"] = program(H5, [dataset(("dense", "dense", "kernel:0"), [3, 2], type_=t,
                                                      extra=extras.get(t, ())),
                                              dataset(("layers", "dense", "vars", "0"), [2], type_=t,
                                                      extra=extras.get(t, ()), layout=CHUNKED, chunk=[1],
                                                      filters=3)])
    seeds["links"] = program(H5, [dataset(w, [2, 2]),
                                  [SOFT] + path("dense") + path("model_weights", "dense"),
                                  [EXTERNAL_LINK] + path("layers", "dense") + [0],
                                  [HARD] + path("optimizer", "0") + path(*w),
                                  [HARD] + path("dense_1") + path("model_weights")])
    seeds["dense_groups_attributes"] = program(H5, [[GROUP] + path("model_weights") + [0x1f, 4, 4],
                                                    [COMMIT] + path("x:0") + [F16],
                                                    dataset(("model_weights", "embedding", "embeddings:0"), [5, 3],
                                                            type_=COMMITTED),
                                                    attribute(("model_weights",), "model_config", 2, 8),
                                                    [ATTRIBUTE] + path("model_weights") + [4, 4, 0x10, 0x80, 1, 7]])
    seeds["userblock_keras"] = program(KERAS | 0x10, classifier("lstm", keras3=True), after=[1])
    seeds["scalar_null_spaces"] = program(H5, [dataset(("0",), [], space=5), dataset(("1",), [], space=6),
                                               dataset(("2",), [0, 5]), dataset(("3",), [], layout=VIRTUAL,
                                                                                  space=6)])
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
