#!/usr/bin/python3
"""The table of bench/peers/run_bert_int8: reads its JSON lines (focal bench --json
reports named focal_f32 / focal_int8, bert_int8_torch.py's and bert_ort.js's lines, and
{"name", "error"} for a form that could not be built) and the focal outputs in WORK_DIR
(focal_*.out/last_hidden_state.npy, torch_f32.f32), and prints ms per forward, the
speedups of focal int8, and each int8 form's cosine to its engine's f32.

  bert_int8_table.py RESULTS.jsonl WORK_DIR
"""

import json
import os
import sys

import numpy as np

FORMS = ("focal_f32", "focal_int8", "torch_f32", "torch_int8", "ort_f32", "ort_int8")
HIDDEN = 768


def read(path):
    rows, contexts, errors, focal_machine = {}, [], {}, {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if "context" in r:
                contexts.append(r["context"])
            elif "error" in r:
                errors[r["name"]] = r["error"]
            elif r.get("schema") == "focal-bench/1":  # focal bench --json
                threads = r["machine"]["threads"]
                rows[(r["name"], threads)] = r["latency_ms"]["p50"]
                if (r["machine"].get("fma_peak_gflops") or 0) > 0:  # null with --no-peak
                    focal_machine = r["machine"]
                if (r.get("int8_gops") or 0) > 0:
                    rows[(r["name"] + "_gops", threads)] = r["int8_gops"]
            else:
                rows[(r["name"], r["threads"])] = r["ms"]
                if "cosine_min" in r:
                    rows[(r["name"] + "_cosine", r["threads"])] = (r["cosine_min"], r["cosine_mean"])
    return rows, contexts, errors, focal_machine


def focal_cosines(work):
    """focal int8 vs focal f32 per position (min, mean), and focal f32 vs torch f32 max |d|."""
    def hidden(name):
        path = os.path.join(work, name + ".out", "last_hidden_state.npy")
        return np.load(path).reshape(-1, HIDDEN).astype(np.float64) if os.path.exists(path) else None
    f32, int8 = hidden("focal_f32"), hidden("focal_int8")
    torch_f32 = np.fromfile(os.path.join(work, "torch_f32.f32"), "<f4").reshape(-1, HIDDEN)
    diff = float(np.abs(f32 - torch_f32).max()) if f32 is not None else None
    if f32 is None or int8 is None:
        return None, diff
    cos = (f32 * int8).sum(1) / np.sqrt((f32 * f32).sum(1) * (int8 * int8).sum(1))
    return (float(cos.min()), float(cos.mean())), diff


def ratio(rows, a, b, n):
    return "%.2fx" % (rows[(b, n)] / rows[(a, n)]) if (a, n) in rows and (b, n) in rows else "-"


def main(results, work):
    rows, contexts, errors, machine = read(results)
    threads = sorted({n for (_, n) in rows})
    for c in contexts:
        print("context: " + json.dumps(c))
    if machine:
        print("focal machine: FMA peak %.1f GFLOP/s (%s), int8 dot peak %s GOP/s (%s), gemm %s, int8 gemm %s"
              % (machine["fma_peak_gflops"], machine["fma_peak_isa"], machine.get("int8_peak_gops", "-"),
                 machine.get("int8_peak_isa", "-"), machine["gemm_isa"], machine.get("gemm_int8_isa", "-")))
    for name, error in errors.items():
        print("%s: not built: %s" % (name, error))
    print("\nBERT-base seq 128, batch 1: ms per forward (median; focal: p50)")
    header = ("threads",) + FORMS + ("int8/f32 focal", "vs torch int8", "vs ORT int8", "focal int8 GOP/s")
    table = [header]
    for n in threads:
        cells = [str(n)] + ["%.1f" % rows[(f, n)] if (f, n) in rows else "-" for f in FORMS]
        cells += [ratio(rows, "focal_int8", "focal_f32", n), ratio(rows, "focal_int8", "torch_int8", n),
                  ratio(rows, "focal_int8", "ort_int8", n)]
        gops = rows.get(("focal_int8_gops", n))
        cells.append("%.0f" % gops if gops else "-")
        table.append(cells)
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))
    print("speedups: the other form's ms / focal int8's ms (> 1: focal int8 faster)")
    print("\ncosine of int8 to its engine's f32 last_hidden_state, per position (min, mean):")
    focal_cos, focal_diff = focal_cosines(work)
    if focal_diff is not None:
        print("  focal f32 vs torch f32: max |difference| %.3g" % focal_diff)
    print("  focal int8: %s" % ("%.6f, %.6f" % focal_cos if focal_cos else "-"))
    for form in ("torch_int8", "ort_int8"):
        cos = next((rows[(form + "_cosine", n)] for n in threads if (form + "_cosine", n) in rows), None)
        print("  %s: %s" % (form.replace("_", " "), "%.6f, %.6f" % cos if cos else "-"))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
