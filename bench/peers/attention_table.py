#!/usr/bin/python3
"""The table of bench/peers/run_attention: focal_bench_attention's Google Benchmark JSON
(--benchmark_out), attention_torch.py's and attention_ort.js's JSON lines, one row per
case: focal ms (the median when run with --benchmark_repetitions), the peers' ms, the
speedups and focal's fraction of the machine's limit.

  attention_table.py FOCAL.json TORCH.jsonl ORT.jsonl
"""

import json
import sys

UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
HEADER = ("case", "focal ms", "torch ms", "speedup", "ort ms", "vs ort", "GFLOP/s", "fraction")


def read_focal(path):
    """focal_bench_attention's JSON, or {} when it wrote none (no case matched)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def read_peer(path):
    """({case name: ms}, context) from a peer's JSON lines (lines with an error are skipped)."""
    ms, context = {}, {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            record = json.loads(line)
            if "context" in record:
                context = record["context"]
            elif "name" in record and "ms" in record:
                ms[record["name"]] = record["ms"]
    return ms, context


AGGREGATES = ("mean", "median", "stddev", "cv")


def base_name(run_name):
    """A focal case's name as the peers spell it: without Google Benchmark's /real_time."""
    return "/".join(part for part in run_name.split("/") if part != "real_time")


def run_kind(b):
    """(case name, aggregate name or None) of one entry of Google Benchmark's JSON. Its
    run_name is the case's name also for the aggregates of --benchmark_repetitions (whose
    names end in _mean, _median, ...); a JSON without run_name has only those names."""
    aggregate = b.get("aggregate_name") if b.get("run_type") == "aggregate" else None
    if "run_name" in b:
        return base_name(b["run_name"]), aggregate
    name = b["name"]
    for suffix in AGGREGATES:
        if aggregate in (None, suffix) and name.endswith("_" + suffix):
            return base_name(name[:-len(suffix) - 1]), suffix
    return base_name(name), aggregate


def focal_rows(focal):
    """(names in run order, {name: the run to show}): the median aggregate when the cases
    ran with repetitions, else the single run."""
    rows, order = {}, []
    for b in focal.get("benchmarks", []):
        name, aggregate = run_kind(b)
        if name not in order:
            order.append(name)
        if aggregate == "median":
            rows[name] = b
        elif aggregate is None and name not in rows:
            rows[name] = b
    return [name for name in order if name in rows], rows


def fraction_cell(b):
    if "peak_fraction" in b:
        return "%.1f%% FMA" % (100.0 * b["peak_fraction"])
    if "bw_fraction" in b:
        return "%.1f%% DRAM" % (100.0 * b["bw_fraction"])
    return "-"


def table_rows(focal, torch_ms, ort_ms):
    """The table's rows (tuples of HEADER's cells), focal's cases first."""
    order, rows = focal_rows(focal)
    table = []
    for name in order:
        b = rows[name]
        if b.get("error_occurred"):
            table.append((name, "error: " + b.get("error_message", "?"), "", "", "", "", "", ""))
            continue
        ms = b["real_time"] * UNIT_MS.get(b.get("time_unit", "ns"), 1e-6)
        peer, ort = torch_ms.get(name), ort_ms.get(name)
        table.append((name, "%.4g" % ms, "%.4g" % peer if peer else "-",
                      "%.2fx" % (peer / ms) if peer else "-", "%.4g" % ort if ort else "-",
                      "%.2fx" % (ort / ms) if ort else "-",
                      "%.1f" % b["GFLOP/s"] if "GFLOP/s" in b else "-", fraction_cell(b)))
    for name, ms in torch_ms.items():
        if name not in rows:
            table.append((name, "-", "%.4g" % ms, "-", "-", "-", "-", "-"))
    return table


def print_table(table):
    widths = [max(len(str(row[i])) for row in table + [HEADER]) for i in range(len(HEADER))]

    def show(row):
        cells = [str(row[0]).ljust(widths[0])] + [str(c).rjust(w) for c, w in zip(row[1:], widths[1:])]
        print("  ".join(cells).rstrip())

    show(HEADER)
    show(tuple("-" * w for w in widths))
    for row in table:
        show(row)


def main(focal_path, torch_path, ort_path):
    focal = read_focal(focal_path)
    if not focal.get("benchmarks"):
        print("run_attention: focal ran no case (does --filter match a focal_bench_attention name?)", file=sys.stderr)
    torch_ms, torch_context = read_peer(torch_path)
    ort_ms, ort_context = read_peer(ort_path)
    context = focal.get("context", {})
    print()
    print("focal attention_isa=%s  FMA peak %s GFLOP/s (%s, one core)  DRAM read %s GB/s (one core)"
          % (context.get("attention_isa", "?"), context.get("fma_peak_gflops", "?"),
             context.get("fma_peak_isa", "?"), context.get("dram_read_gbs", "?")))
    print("torch %s, %s thread(s), OpenBLAS core %s, ATEN_CPU_CAPABILITY=%s"
          % (torch_context.get("torch", "?"), torch_context.get("torch_threads", "?"),
             torch_context.get("openblas_core", "?"), torch_context.get("ATEN_CPU_CAPABILITY")))
    print("onnxruntime %s, 1 thread (com.microsoft MultiHeadAttention; prefill only)"
          % ort_context.get("onnxruntime", "not run"))
    print("speedup = peer ms / focal ms; fraction: prefill of workers x FMA peak, decode of DRAM read")
    print()
    print_table(table_rows(focal, torch_ms, ort_ms))
    print()
    print("threads:2 rows use 2 workers; the peers run one thread, so they have no peer columns.")
    print("ORT's MultiHeadAttention ignores its unidirectional attribute (its output is checked")
    print("against torch's), so causal rows have no ORT column.")
    print("f16 decode has no fair torch peer (torch would compute in f32 on converted data).")


if __name__ == "__main__":
    main(*sys.argv[1:4])
