#!/usr/bin/python3
"""Names from a model file are data: `focal plan` writes them into
the firmware header only escaped, terminals get no control characters, and `focal run`
refuses output names that are not a safe file name, writing nothing.
Usage: test_hostile_names.py FOCAL FOCAL_TEST_MODEL WORK_DIR"""
import os
import shutil
import subprocess
import sys

import numpy as np

from cli_support import expect, forge_model, fresh_directory, run

HEADER_LINE_STARTS = ("//", "#pragma once", "inline constexpr unsigned long evil_", "#define evil_ops ",
                      "#define evil_int8_ops ")


def check_plan_header_holds_no_code(focal, tool, work):
    # A newline then C++, a comment closer, a trigraph and a trailing backslash.
    model = forge_model(tool, os.path.join(work, "code.focal"),
                        architecture=r"x\nint pwned = 1; /* */ ??/ \\")
    header = os.path.join(work, "evil_plan.h")
    expect(run(focal, "plan", model, "--symbol", "evil", "-o", header), 0)
    text = open(header, encoding="ascii").read()
    for line in text.splitlines():
        assert line == "" or line.startswith(HEADER_LINE_STARTS), ("a line of code from the file", line)
    assert "x\\x0aint pwned = 1;" in text, text
    assert "*/" not in text and "??" not in text, text
    # The header compiles, and defines nothing but its constants: a TU defining `pwned`
    # itself still compiles.
    compiler = shutil.which("c++") or shutil.which("g++")
    if compiler:
        unit = os.path.join(work, "uses_plan.cpp")
        with open(unit, "w") as f:
            f.write('#include "evil_plan.h"\nint pwned = 2;\nint main() { return evil_arena_bytes > 0 ? 0 : 1; }\n')
        built = subprocess.run([compiler, "-std=c++17", "-fsyntax-only", unit], capture_output=True, text=True)
        assert built.returncode == 0, built.stderr
    print("plan: the architecture's newline and C++ stay inside the comment, escaped")


def check_terminal_gets_no_control_characters(focal, tool, work):
    model = forge_model(tool, os.path.join(work, "escapes.focal"), architecture=r"a\e]0;owned\x07",
                        input_name=r"x\e[2J", op_name=r"op\xc2\x9b31m", symbol_name=r"seq\e[1m")
    for args in (("inspect", model), ("bench", model, "--no-peak", "--repeat", "1", "--warmup", "0"),
                 ("run", model, "--output-dir", os.path.join(work, "unused"))):
        result = run(focal, *args)
        for stream in (result.stdout, result.stderr):
            controls = [b for b in stream if (b < 0x20 and b not in b"\n\r") or b == 0x7f]
            assert not controls, (args, controls, stream)
            assert b"\xc2\x9b" not in stream, (args, stream)
        if args[0] == "inspect":
            assert b"x\\x1b[2J" in result.stdout, result.stdout
        if args[0] == "run":
            expect(result, 1, "not set")  # the message names the input, escaped
    print("inspect, bench, run: names with escape sequences printed escaped")


def check_run_refuses_unsafe_output_names(focal, tool, work):
    np.save(os.path.join(work, "x.npy"), np.zeros((1, 3, 4), dtype=np.float32))
    nest = os.path.join(work, "nest")
    os.makedirs(nest, exist_ok=True)
    for i, name in enumerate(["../x", "..", "/tmp/focal_abs_x", "a/b", ".hidden", r"y\nz", "a" * 201]):
        model = forge_model(tool, os.path.join(work, f"unsafe{i}.focal"), output_name=name)
        out = os.path.join(nest, f"out{i}")
        result = run(focal, "run", model, "--input", "x=" + os.path.join(work, "x.npy"), "--output-dir", out)
        expect(result, 1, "is not a safe file name", "nothing was written")
        assert not os.path.exists(os.path.join(nest, "x.npy")), name
        assert not os.path.exists("/tmp/focal_abs_x.npy"), name
        assert not os.path.isdir(out) or os.listdir(out) == [], (name, os.listdir(out))
    model = forge_model(tool, os.path.join(work, "safe.focal"), output_name="y.out-1_B")
    out = os.path.join(work, "safe_out")
    expect(run(focal, "run", model, "--input", "x=" + os.path.join(work, "x.npy"), "--output-dir", out), 0)
    assert np.load(os.path.join(out, "y.out-1_B.npy")).shape == (1, 3, 4)
    assert sorted(os.listdir(out)) == ["y.out-1_B.npy"], os.listdir(out)
    print("run: 7 unsafe output names refused with nothing written, a safe one written")


def check_python_describes_names_that_are_not_utf8(focal, tool, work):
    # model.ops raised UnicodeDecodeError for an op name that was not UTF-8: names are the
    # file's bytes, shown with U+FFFD where they are not UTF-8.
    package = os.path.join(os.path.dirname(focal), "..", "python")
    if not os.path.isdir(os.path.join(package, "focal")):
        print("python: no module in this build, names not checked there")
        return
    model = forge_model(tool, os.path.join(work, "latin1.focal"), op_name=r"soft\xffmax", input_name=r"caf\xe9")
    script = ("import focal; m = focal.load(%r); "
              "print(ascii([o.name for o in m.ops]), ascii([t.name for t in m.inputs]), ascii(m.ops[0].inputs))" % model)
    shown = subprocess.run(["/usr/bin/python3", "-c", script], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=package))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == r"['soft\ufffdmax'] ['caf\ufffd'] ['caf\ufffd']", shown.stdout
    print("python: names that are not UTF-8 are described with U+FFFD, not raised")


def main(focal, tool, work):
    fresh_directory(work)
    check_plan_header_holds_no_code(focal, tool, work)
    check_terminal_gets_no_control_characters(focal, tool, work)
    check_run_refuses_unsafe_output_names(focal, tool, work)
    check_python_describes_names_that_are_not_utf8(focal, tool, work)


if __name__ == "__main__":
    main(*sys.argv[1:])
