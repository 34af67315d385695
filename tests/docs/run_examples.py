#!/usr/bin/python3
"""Runs every example of README.md and docs/*.md that a reader would type: each fenced
block tagged ```sh or ```python (issue 34, "Every README and docs example executed by a
test").

The convention (docs/README.md, "Examples"): a ```sh or ```python block must run as
written on the host build; a block that cannot run in a test (it needs a board, sudo, the
network, a hub download, or it rebuilds the project: `cmake --preset`, `./scripts/test`,
`./scripts/demo`) is tagged ```console (```pycon for Python), and output is tagged
```text. C, C++ and CMake blocks are fragments, not run here; the interfaces they show
have tests of their own (tests/c_api, tests/consumers).

Usage: run_examples.py FOCAL SOURCE_DIR WORK_DIR [FILE.md ...]

Every block runs with `bash -euo pipefail` (Python: /usr/bin/python3 with the build's
module on PYTHONPATH; skipped when the build has none) in WORK_DIR (emptied first), in
file order, so a block may use what an earlier block of the same file wrote. WORK_DIR
holds what the examples name: dates.focal and story.focal converted from demo/ as
scripts/demo converts them, a `demo` link to the checkout's demo/ folder, and the build
FOCAL belongs to installed into WORK_DIR/prefix, found through PKG_CONFIG_PATH (and
LD_LIBRARY_PATH). `focal` resolves to FOCAL through PATH, and the prefix
`./build/host/bin/focal` is rewritten to `focal`. A failing block is reported with its
file and line, its output and its exit status.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys

BLOCK_TIMEOUT_S = 60  # the slowest block converts and benches the story model: ~2 s
RUN_TAGS = ("sh", "python")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")


def fenced_blocks(path):
    """Yields (first line number, tag, text) of every fenced block of a Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, tag = opening.group(1), opening.group(2)
        body, j = [], i + 1
        while j < len(lines) and lines[j].strip() != "```":
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        yield i + 1, tag, "\n".join(body) + "\n"
        i = j + 1


def prepare(focal, source, work):
    """Empties WORK and gives it the files and the PATH the examples expect."""
    if work.exists():
        shutil.rmtree(work)
    (work / "bin").mkdir(parents=True)
    (work / "bin" / "focal").symlink_to(focal)
    add_compiler_flags(work / "bin", os.environ.get("FOCAL_EXAMPLE_CFLAGS", ""))
    (work / "demo").symlink_to(source / "demo")
    env = {
        "PATH": f"{work / 'bin'}:/usr/bin:/bin",  # Debian's python3 (numpy) before any other
        "HOME": str(work),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": str(work),
        "FOCAL_SOURCE_DIR": str(source),
    }
    demo = source / "demo"
    conversions = {
        "dates.focal": ["--preset", "rnn-seq2seq", "--weights", demo / "dates/model.pt",
                        "--config", demo / "dates/config.json",
                        "--tokenizer", f"chars:{demo / 'dates/vocab.json'}:source:lowercase",
                        "--target-tokenizer", f"chars:{demo / 'dates/vocab.json'}:target"],
        "story.focal": ["--preset", "gpt2", "--weights", demo / "story/model.safetensors",
                        "--config", demo / "story/config.json",
                        "--tokenizer", f"bpe:{demo / 'story/vocab.json'}:{demo / 'story/merges.txt'}"],
    }
    install_prefix(focal, work, env)
    for name, args in conversions.items():
        done = subprocess.run([str(focal), "convert", *map(str, args), "-o", str(work / name)],
                              env=env, cwd=work, capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S)
        if done.returncode != 0:
            sys.exit(f"run_examples: converting {name} failed:\n{done.stderr}")
    return env


def add_compiler_flags(bin_dir, flags):
    """The examples compile with `cc` against the installed libraries. A sanitizer build's
    libraries need the same -fsanitize flags at link time (tests/CMakeLists.txt passes them
    as FOCAL_EXAMPLE_CFLAGS), so `cc` on the examples' PATH adds them."""
    if not flags:
        return
    for name in ("cc", "c++"):
        wrapper = bin_dir / name
        wrapper.write_text(f"#!/bin/sh\nexec /usr/bin/{name} {flags} \"$@\"\n")
        wrapper.chmod(0o755)


def install_prefix(focal, work, env):
    """Installs the build FOCAL belongs to into WORK/prefix, for the examples that build
    against the library through pkg-config (docs/embedding.md)."""
    build = focal.parent.parent
    prefix = work / "prefix"
    done = subprocess.run(["cmake", "--install", str(build), "--prefix", str(prefix)],
                          env=env, capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S)
    if done.returncode != 0:
        sys.exit(f"run_examples: cmake --install {build} failed:\n{done.stdout}{done.stderr}")
    pc_files = sorted(prefix.glob("**/pkgconfig/focal.pc"))
    if not pc_files:
        sys.exit(f"run_examples: no focal.pc under {prefix}")
    env["PKG_CONFIG_PATH"] = str(pc_files[0].parent)
    env["LD_LIBRARY_PATH"] = str(pc_files[0].parent.parent)  # the shared engine, where built
    env["PYTHONPATH"] = str(focal.parent.parent / "python")  # import focal, from the build tree


def run_block(tag, text, env, work):
    """Runs one block; returns (exit status, combined output)."""
    if tag == "python":
        command = ["/usr/bin/python3", "-c", text]
    else:
        command = ["bash", "-euo", "pipefail", "-c", text.replace("./build/host/bin/focal", "focal")]
    try:
        done = subprocess.run(command, env=env, cwd=work,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=BLOCK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {BLOCK_TIMEOUT_S} s"
    return done.returncode, done.stdout + done.stderr


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    focal = pathlib.Path(sys.argv[1]).resolve()
    source = pathlib.Path(sys.argv[2]).resolve()
    work = pathlib.Path(sys.argv[3]).resolve()
    files = [pathlib.Path(f) for f in sys.argv[4:]] or \
        [source / "README.md", *sorted((source / "docs").glob("*.md"))]
    env = prepare(focal, source, work)
    has_python = (pathlib.Path(env["PYTHONPATH"]) / "focal").is_dir()
    ran, failures = 0, []
    for path in files:
        for line, tag, text in fenced_blocks(path):
            if tag not in RUN_TAGS:
                continue
            if tag == "python" and not has_python:
                print(f"skipped {path.name}:{line} (this build has no Python module)")
                continue
            status, output = run_block(tag, text, env, work)
            ran += 1
            where = f"{path.relative_to(source) if path.is_relative_to(source) else path}:{line}"
            if status == 0:
                print(f"ok      {where}")
                continue
            print(f"FAILED  {where} (exit {status})\n{text}--- output ---\n{output}")
            failures.append(where)
    print(f"{ran} examples run, {len(failures)} failed" + (": " + ", ".join(failures) if failures else ""))
    if ran == 0:
        sys.exit("run_examples: no ```sh block found")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
