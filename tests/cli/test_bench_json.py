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
    assert report["int8_gops"] == 0 and report["int8_peak_fraction"] in (0, None), report
    assert machine["fma_peak_gflops"] > 0 and report["peak_fraction"] > 0, report
    print(f"int8 dot-product peak {machine['int8_peak_gops']:.0f} GOP/s ({machine['int8_peak_isa'] or 'none'}), "
          f"FMA peak {machine['fma_peak_gflops']:.0f} GFLOP/s")


def check_plot(focal, root):
    """--plot FILE.svg: a labelled bar per op kind; anything but .svg is refused up front."""
    import os
    import tempfile
    import xml.etree.ElementTree as ElementTree
    model = f"{root}/tests/goldens/gpt2_l2_d32_h4/model.focal"
    with tempfile.TemporaryDirectory() as scratch:
        plot = os.path.join(scratch, "ops.svg")
        out = subprocess.run([focal, "bench", model, "--json", "--no-peak", "--repeat", "2", "--warmup", "0",
                              "--prompt", "4", "--gen", "4", "--plot", plot], check=True, capture_output=True, text=True)
        kinds = {op["kind"] for op in json.loads(out.stdout)["ops"]}
        texts = [t.text for t in ElementTree.parse(plot).getroot().iter("{http://www.w3.org/2000/svg}text")]
        assert any(t and t.startswith("focal bench: time per op kind") for t in texts), texts
        assert kinds <= set(texts), (kinds, texts)
        assert "ms" in texts, texts
        refused = subprocess.run([focal, "bench", model, "--plot", os.path.join(scratch, "ops.png")],
                                 capture_output=True, text=True)
        assert refused.returncode != 0 and "does not end in .svg" in refused.stderr, refused.stderr
        assert not os.path.exists(os.path.join(scratch, "ops.png"))
    print(f"--plot: {len(kinds)} op kinds drawn")


def main(focal, root):
    schema = json.load(open(f"{root}/docs/bench.schema.json"))
    version = subprocess.run([focal, "--version"], check=True, capture_output=True, text=True).stdout.split()[1]
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
        # What was not measured is null, never a 0 a reader could take for a figure.
        machine = report["machine"]
        assert all(machine[k] is None for k in ("fma_peak_gflops", "fma_peak_isa", "int8_peak_gops",
                                                 "int8_peak_isa")), machine
        assert report["peak_fraction"] is None and report["int8_peak_fraction"] is None, report
        assert (report["time_to_first_token_ms"] is None) == (mode != "decoder"), report
        assert (report["decode_tokens_per_s"] is None) == (mode == "forward"), report
        assert (report["prefill_tokens_per_s"] is None) == (mode == "seq2seq"), report
        assert report["focal_version"] == version, report
        print(f"{name}: {mode}, p50 {lat['p50']:.4f} ms, valid")
    check_int8_peak(focal, root, schema)
    check_plot(focal, root)
    bad = dict(report, mode="sideways")
    try:
        jsonschema.validate(bad, schema)
    except jsonschema.ValidationError:
        print("a wrong mode is refused by the schema")
    else:
        raise SystemExit("the schema accepted mode 'sideways'")


if __name__ == "__main__":
    main(*sys.argv[1:])
