#!/usr/bin/python3
"""`focal bench --json` on the golden models (an encoder, a decoder, a seq2seq model)
validates against docs/bench.schema.json, and its numbers are consistent.
Usage: test_bench_json.py FOCAL SOURCE_DIR"""

import json
import subprocess
import sys

import jsonschema


def expected_int8_isa():
    """The int8 dot-product loop focal bench must pick on this CPU (/proc/cpuinfo flags)."""
    try:
        flags = set(open("/proc/cpuinfo").read().split())
    except OSError:
        return None
    return "avx512vnni" if "avx512_vnni" in flags else "dotprod" if "asimddp" in flags else ""


def check_int8_peak(focal, root, schema):
    """With the peaks measured: the int8 loop this CPU has, a rate that fits it (vpdpbusd does
    four times the work of a 512-bit FMA per instruction), and no int8 work in an f32 model."""
    out = subprocess.run([focal, "bench", f"{root}/tests/goldens/bert_l2_d32_h4/model.focal", "--json",
                          "--repeat", "2", "--warmup", "0", "--seq", "8"], check=True, capture_output=True, text=True)
    report = json.loads(out.stdout)
    jsonschema.validate(report, schema)
    machine = report["machine"]
    expected = expected_int8_isa()
    if expected is not None:
        assert machine["int8_peak_isa"] == expected, (machine, expected)
    assert (machine["int8_peak_gops"] > 0) == (machine["int8_peak_isa"] != ""), machine
    if machine["int8_peak_isa"] == "avx512vnni":
        assert machine["int8_peak_gops"] > 2 * machine["fma_peak_gflops"], machine
    assert report["int8_gops"] == 0 and report["int8_peak_fraction"] == 0, report
    print(f"int8 dot-product peak {machine['int8_peak_gops']:.0f} GOP/s ({machine['int8_peak_isa'] or 'none'}), "
          f"FMA peak {machine['fma_peak_gflops']:.0f} GFLOP/s")


def main(focal, root):
    schema = json.load(open(f"{root}/docs/bench.schema.json"))
    cases = [("bert_l2_d32_h4", ["--seq", "16"], "forward"),
             ("gpt2_l2_d32_h4", ["--prompt", "8", "--gen", "8"], "decoder"),
             ("rnn_bahdanau_lstm_bi_l1_e16_h16_hd24", ["--seq", "9", "--gen", "10"], "seq2seq")]
    for name, args, mode in cases:
        out = subprocess.run([focal, "bench", f"{root}/tests/goldens/{name}/model.focal", "--json", "--no-peak",
                              "--repeat", "3", "--warmup", "1", *args], check=True, capture_output=True, text=True)
        report = json.loads(out.stdout)
        jsonschema.validate(report, schema)
        assert report["mode"] == mode, (name, report["mode"])
        lat = report["latency_ms"]
        assert 0 < lat["p50"] <= lat["p90"] <= lat["p99"], (name, lat)
        assert abs(sum(op["share"] for op in report["ops"]) - 1) < 1e-6, name
        print(f"{name}: {mode}, p50 {lat['p50']:.4f} ms, valid")
    check_int8_peak(focal, root, schema)
    bad = dict(report, mode="sideways")
    try:
        jsonschema.validate(bad, schema)
    except jsonschema.ValidationError:
        print("a wrong mode is refused by the schema")
    else:
        raise SystemExit("the schema accepted mode 'sideways'")


if __name__ == "__main__":
    main(*sys.argv[1:])
