#!/usr/bin/python3
"""`pip install .` as docs/python.md tells a user, offline: a snapshot of the checkout
as a fresh clone holds it (the files git tracks or would add, as they are in the working
tree; no build directory), a venv that sees Debian's packages (numpy, setuptools), then
`pip install --no-build-isolation --no-index .` and `pip wheel` of the same tree. The
installed package, run from outside the source tree with no PYTHONPATH, prints
focal.__version__ (CMakeLists.txt's project version), converts the demo story model and
generates text from text, the continuation demo/story/prompts_expected.txt records.

Without pip, venv (ensurepip), setuptools or wheel the test is skipped (exit 77), and
fails under CI=true. The build runs with CMAKE_BUILD_PARALLEL_LEVEL=2 (ccache, when
installed, makes repeated runs quick).
Usage: test_pip_install.py SOURCE_DIR WORK_DIR"""
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile

SOURCE, WORK = sys.argv[1], sys.argv[2]
NEEDED = {"pip": "python3-pip", "ensurepip": "python3-venv", "setuptools": "python3-setuptools",
          "wheel": "python3-wheel"}


def skip_or_fail(message):
    if os.environ.get("CI") == "true":
        sys.exit("FAILED: " + message)
    print("skipped: " + message)
    sys.exit(77)


def snapshot(destination):
    """The checkout's files as a clone would hold them: git's tracked and addable files
    (ignored ones, such as build/, left out), with their working-tree contents."""
    listed = subprocess.run(["git", "-C", SOURCE, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True)
    if listed.returncode != 0:
        skip_or_fail("the source directory is not a git checkout: " + listed.stderr.decode().strip())
    count = 0
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = os.path.join(SOURCE, name)
        if not os.path.isfile(source):  # deleted in the working tree
            continue
        target = os.path.join(destination, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)
        count += 1
    return count


def run(*command, **kwargs):
    started = time.monotonic()
    result = subprocess.run(list(command), capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    return result.stdout, time.monotonic() - started


def project_version():
    text = open(os.path.join(SOURCE, "CMakeLists.txt")).read()
    return re.search(r"project\(\s*focal\s+VERSION\s+([0-9][0-9.]*)", text).group(1)


# What the installed package must do, run by the venv's interpreter from WORK.
USER_SCRIPT = r"""
import json, os, sys
import focal
clone, venv = sys.argv[1], sys.argv[2]
assert os.path.realpath(focal.__file__).startswith(os.path.realpath(venv)), focal.__file__
print(focal.__version__)
story = os.path.join(clone, "demo", "story")
focal.convert("story.focal", preset="gpt2", weights=os.path.join(story, "model.safetensors"),
              config=os.path.join(story, "config.json"),
              tokenizer="bpe:" + os.path.join(story, "vocab.json") + ":" + os.path.join(story, "merges.txt"))
model = focal.load("story.focal")
expected = json.loads(open(os.path.join(story, "prompts_expected.txt")).readline())
text = model.generate(expected["prompt"], max_new_tokens=len(expected["continuation_ids"]), end_id=-1)
assert text == expected["continuation"], (text, expected["continuation"])
print(expected["prompt"] + text)
"""


def main():
    missing = [package for module, package in NEEDED.items() if importlib.util.find_spec(module) is None]
    if missing:
        skip_or_fail("pip install needs Debian's " + " ".join(missing) + " (scripts/bootstrap installs them)")
    shutil.rmtree(WORK, ignore_errors=True)
    clone, venv = os.path.join(WORK, "clone"), os.path.join(WORK, "venv")
    print(f"snapshot: {snapshot(clone)} files")
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    environment.update(CMAKE_BUILD_PARALLEL_LEVEL="2", CCACHE_BASEDIR=clone, PIP_DISABLE_PIP_VERSION_CHECK="1")
    run(sys.executable, "-m", "venv", "--system-site-packages", venv, env=environment)
    pip = [os.path.join(venv, "bin", "python"), "-m", "pip"]
    _, seconds = run(*pip, "install", "--no-build-isolation", "--no-index", clone, env=environment, cwd=WORK)
    print(f"pip install --no-build-isolation --no-index .: {seconds:.1f} s")

    version = project_version()
    shown, _ = run(*pip, "show", "focal", env=environment, cwd=WORK)
    assert f"Version: {version}" in shown and "License: Apache-2.0" in shown, shown

    printed, _ = run(os.path.join(venv, "bin", "python"), "-c", USER_SCRIPT, clone, venv, env=environment, cwd=WORK)
    lines = printed.splitlines()
    assert lines[0] == version, (lines, version)
    print(f"import focal; focal.__version__: {lines[0]}\ngenerated: {lines[-1]!r}")

    dist = os.path.join(WORK, "dist")
    _, seconds = run(*pip, "wheel", "--no-build-isolation", "--no-index", "--no-deps", "-w", dist, clone,
                     env=environment, cwd=WORK)
    wheels = os.listdir(dist)
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert len(wheels) == 1 and wheels[0].startswith(f"focal-{version}-{tag}-{tag}-linux_"), wheels
    names = zipfile.ZipFile(os.path.join(dist, wheels[0])).namelist()
    assert "focal/__init__.py" in names and any(re.fullmatch(r"focal/_focal\..*\.so", n) for n in names), names
    assert any(n.endswith(".dist-info/LICENSE") for n in names), names
    print(f"pip wheel: {wheels[0]} ({len(names)} files, {seconds:.1f} s)")


main()
