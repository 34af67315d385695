#!/usr/bin/python3
"""`focal bench --json` on the golden models (an encoder, a decoder, a seq2seq model)
validates against docs/bench.schema.json, and its numbers are consistent.
Usage: test_bench_json.py FOCAL SOURCE_DIR"""

import json
import subprocess
import sys

import jsonschema


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
    bad = dict(report, mode="sideways")
    try:
        jsonschema.validate(bad, schema)
    except jsonschema.ValidationError:
        print("a wrong mode is refused by the schema")
    else:
        raise SystemExit("the schema accepted mode 'sideways'")


if __name__ == "__main__":
    main(*sys.argv[1:])
