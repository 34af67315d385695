#!/usr/bin/python3
"""bench/peers/run_attention's table (bench/peers/attention_table.py) on Google Benchmark
JSON recorded from focal_bench_attention (tests/bench/data, two cases: prefill n128 full
and decode kv512 f32): one row per case, with the peers' columns, whether the cases ran
once, with --benchmark_repetitions=3 (the median's row), or with
--benchmark_report_aggregates_only as well; and from a JSON without run_name, where only
the _median suffix of a name tells an aggregate.

  test_attention_table.py SOURCE_DIR
"""

import copy
import io
import json
import os
import sys
import contextlib

CASES = ["attention/prefill/b1_h8_d64_n128/full", "attention/decode/h12_d64_kv512/f32"]


def load(data, name):
    with open(os.path.join(data, name)) as f:
        return json.load(f)


def median_ms(focal, case):
    """The recorded median of `case`, in ms (the data is in ms)."""
    for b in focal["benchmarks"]:
        if b.get("aggregate_name") == "median" and b["run_name"].startswith(case + "/"):
            return b["real_time"]
    raise AssertionError("no median of " + case)


def check_rows(table, focal_ms, label):
    names = [row[0] for row in table]
    assert names == CASES, "%s: rows %s" % (label, names)
    for row, ms in zip(table, focal_ms):
        assert row[1] == "%.4g" % ms, "%s: %s shows %s ms, not %.4g" % (label, row[0], row[1], ms)
    prefill = table[0]
    assert prefill[2] == "0.2609" and prefill[4] == "0.2548", "%s: peer columns %s" % (label, prefill)
    assert prefill[3] == "%.2fx" % (0.2609 / focal_ms[0]), "%s: speedup %s" % (label, prefill[3])
    assert prefill[7].endswith("% FMA") and table[1][7].endswith("% DRAM"), "%s: fractions %s" % (label, table)
    assert table[1][2] == "-" and table[1][4] == "-", "%s: decode has no peer: %s" % (label, table[1])


def without_run_names(focal):
    legacy = copy.deepcopy(focal)
    for b in legacy["benchmarks"]:
        for key in ("run_name", "run_type", "aggregate_name"):
            b.pop(key, None)
    return legacy


def main(source):
    sys.path.insert(0, os.path.join(source, "bench", "peers"))
    import attention_table as t  # noqa: E402 (the script's directory, found at run time)

    data = os.path.join(source, "tests", "bench", "data")
    torch_ms, _ = t.read_peer(os.path.join(data, "attention_torch.jsonl"))
    ort_ms, _ = t.read_peer(os.path.join(data, "attention_ort.jsonl"))
    single = load(data, "attention_single.json")
    check_rows(t.table_rows(single, torch_ms, ort_ms), [b["real_time"] for b in single["benchmarks"]], "single run")
    for form in ("repetitions", "aggregates_only"):
        focal = load(data, "attention_%s.json" % form)
        medians = [median_ms(focal, case) for case in CASES]
        check_rows(t.table_rows(focal, torch_ms, ort_ms), medians, form)
        check_rows(t.table_rows(without_run_names(focal), torch_ms, ort_ms), medians, form + " without run_name")
    # The whole script's table step: header, rows and notes on standard output.
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        t.main(os.path.join(data, "attention_repetitions.json"), os.path.join(data, "attention_torch.jsonl"),
               os.path.join(data, "attention_ort.jsonl"))
    lines = out.getvalue().splitlines()
    rows = [line for line in lines if line.startswith("attention/")]
    assert len(rows) == 2, "printed rows: %s" % rows
    # No peer: focal's rows alone.
    table = t.table_rows(single, {}, {})
    assert [row[0] for row in table] == CASES and all(row[2] == "-" for row in table), table
    print("attention_table: single, repetitions, aggregates only, without run_name: 2 rows each")


if __name__ == "__main__":
    main(sys.argv[1])
