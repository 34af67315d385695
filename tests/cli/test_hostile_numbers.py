#!/usr/bin/python3
"""Numbers on the command line are parsed strictly, in one helper: the
whole text is the number, within the option's range, and the error names the option and
the range; an unknown option is named. Each refusal exits 2 before anything runs.
Usage: test_hostile_numbers.py FOCAL SOURCE_DIR WORK_DIR"""
import os
import sys

from cli_support import expect, fresh_directory, run


def main(focal, root, work):
    fresh_directory(work)
    gpt2 = f"{root}/tests/goldens/gpt2_l2_d32_h4/model.focal"
    bert = f"{root}/tests/goldens/bert_l2_d32_h4/model.focal"
    out = os.path.join(work, "never.focal")
    convert = ["convert", "--preset", "bert", "--weights", "none.safetensors"]
    generate = ["generate", gpt2, "--prompt-ids", "1,2,3"]
    refusals = [
        (generate + ["--max-new", "1e12"], "--max-new: '1e12' is not an integer in [1, 16777216]"),
        (generate + ["--max-new", "12abc"], "--max-new: '12abc' is not an integer"),
        (generate + ["--max-new", "-1"], "--max-new: '-1' is not an integer in [1,"),
        (generate + ["--max-new", " 5"], "--max-new: ' 5' is not an integer"),
        (generate + ["--max-new", "99999999999999999999"], "--max-new: '99999999999999999999' is not an integer"),
        (generate + ["--temperature", "nan"], "--temperature: 'nan' is not a number in [0, 100]"),
        (generate + ["--top-p", "0"], "--top-p: '0' is not a number in (0, 1]"),
        (generate + ["--seed", "-3"], "--seed: '-3' is not an integer"),
        (["generate", gpt2, "--prompt-ids", "1,,2"], "--prompt-ids: '' is not an integer"),
        (["generate", gpt2, "--prompt-ids", "1,-2"], "--prompt-ids: '-2' is not an integer in [0, 2147483647]"),
        (convert + ["--max-seq", "1e12", "-o", out], "--max-seq: '1e12' is not an integer in [1, 16777216]"),
        (convert + ["--max-batch", "0", "-o", out], "--max-batch: '0' is not an integer in [1, 65536]"),
        (convert + ["--self-test-tolerance", "0", "-o", out], "--self-test-tolerance: '0' is not a number in (0, 1]"),
        (convert + ["--self-test-tolerance", "nan", "-o", out], "--self-test-tolerance: 'nan' is not a number"),
        (convert + ["--self-test-tolerance", "-1", "-o", out], "--self-test-tolerance: '-1' is not a number"),
        (convert + ["--dtype", "f64", "-o", out], "unsupported --dtype 'f64'"),
        (["bench", bert, "--repeat", "2147483647"], "--repeat: '2147483647' is not an integer in [1, 1000000]"),
        (["bench", bert, "--warmup", "-1"], "--warmup: '-1' is not an integer in [0, 1000000]"),
        (["bench", bert, "--seq", "0x10"], "--seq: '0x10' is not an integer"),
        (["run", bert, "--threads", "0", "--output-dir", work], "--threads: '0' is not an integer in [1, 256]"),
        (["run", bert, "--foo", "--output-dir", work], "unknown option '--foo'"),
        (["attention", bert, "--layer", "-1", "--svg", "a.svg"], "--layer: '-1' is not an integer"),
        (["inspect", bert, "--jsno"], "unknown option '--jsno'"),
        (["plan", bert, "--symbol"], "option '--symbol' needs a value"),
        (["verify", bert, "extra"], "unexpected argument 'extra'"),
    ]
    for args, message in refusals:
        expect(run(focal, *args), 2, message)
    assert not os.path.exists(out)
    good = run(focal, *generate, "--max-new", "3", "--ids")
    assert good.returncode == 0 and len(good.stdout.split()) == 3, (good.stdout, good.stderr)
    print(f"{len(refusals)} bad numbers and options refused by name; a good one runs")


if __name__ == "__main__":
    main(*sys.argv[1:])
