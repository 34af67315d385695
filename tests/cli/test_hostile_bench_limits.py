#!/usr/bin/python3
"""`focal bench` refuses lengths beyond the model's plan instead of clamping them and
reporting tokens/s for tokens that never ran.
Usage: test_hostile_bench_limits.py FOCAL SOURCE_DIR"""
import json
import sys

from cli_support import expect, run

QUICK = ("--no-peak", "--repeat", "1", "--warmup", "0")


def main(focal, root):
    golden = f"{root}/tests/goldens"
    bert = f"{golden}/bert_l2_d32_h4/model.focal"                      # seq <= 16
    seq2seq = f"{golden}/rnn_bahdanau_lstm_bi_l1_e16_h16_hd24/model.focal"  # src_seq <= 16
    gpt2 = f"{golden}/gpt2_l2_d32_h4/model.focal"
    expect(run(focal, "bench", bert, "--seq", "17", *QUICK), 1, "--seq 17 exceeds the model's planned length 16")
    expect(run(focal, "bench", bert, "--seq", "16777216", *QUICK), 1, "exceeds the model's planned length 16")
    expect(run(focal, "bench", seq2seq, "--seq", "17", *QUICK), 1, "--seq 17 exceeds the model's planned length 16")
    expect(run(focal, "bench", gpt2, "--prompt", "100", "--gen", "100", *QUICK), 1, "exceed the planned context")
    at_limit = run(focal, "bench", bert, "--seq", "16", "--json", *QUICK)
    assert at_limit.returncode == 0, at_limit.stderr
    report = json.loads(at_limit.stdout)
    assert report["settings"]["seq"] == 16 and report["mode"] == "forward", report["settings"]
    # tokens/s are the tokens that ran (16) over the median latency.
    expected = 16 / (report["latency_ms"]["p50"] / 1000)
    assert abs(report["prefill_tokens_per_s"] - expected) <= 1e-6 * expected, (report["prefill_tokens_per_s"], expected)
    print("bench: lengths beyond the plan refused; at the plan, tokens/s match the tokens run")


if __name__ == "__main__":
    main(*sys.argv[1:])
