"""Helpers shared by the hostile-input CLI tests (tests/cli/test_hostile_*.py)."""
import json
import os
import shutil
import subprocess

import numpy as np

# A guard, not a measurement: a command that blocks (a FIFO opened for reading) fails
# the test instead of hanging the suite.
HANG_GUARD_SECONDS = 120


def fresh_directory(path):
    """An empty work directory, whatever an earlier run left there."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def run(*command, **kwargs):
    """Runs a command, capturing its output as bytes, with the hang guard."""
    return subprocess.run([str(c) for c in command], capture_output=True, timeout=HANG_GUARD_SECONDS, **kwargs)


def expect(result, code, *texts):
    """The command exited with `code` and its stderr holds every text."""
    stderr = result.stderr.decode("utf-8", "replace")
    # Under host-asan a sanitizer report exits 1 too: it must not pass for a refusal.
    assert "Sanitizer" not in stderr and "runtime error:" not in stderr, (result.args, stderr)
    assert result.returncode == code, (result.args, result.returncode, stderr)
    for text in texts:
        assert text in stderr, (result.args, text, stderr)


def forge_model(tool, path, **names):
    """A one-softmax model with the given names (tests/tools/write_test_model.cpp --named):
    architecture, input_name, output_name, op_name, symbol_name; values may hold \\n, \\e, \\xNN."""
    args = [tool, path, "--named"]
    for key, value in names.items():
        args += ["--" + key.replace("_", "-"), value]
    subprocess.run(args, check=True)
    return path


def write_mha_checkpoint(work, embed_dim=8, num_heads=2):
    """A bare nn.MultiheadAttention checkpoint (.npz) and its config, for focal convert."""
    rng = np.random.default_rng(0)
    e = embed_dim
    weights = os.path.join(work, "mha.npz")
    np.savez(weights, **{"in_proj_weight": rng.standard_normal((3 * e, e)).astype(np.float32),
                         "in_proj_bias": rng.standard_normal(3 * e).astype(np.float32),
                         "out_proj.weight": rng.standard_normal((e, e)).astype(np.float32),
                         "out_proj.bias": rng.standard_normal(e).astype(np.float32)})
    config = os.path.join(work, "mha.json")
    with open(config, "w") as f:
        json.dump({"embed_dim": e, "num_heads": num_heads, "max_len": 8}, f)
    return weights, config


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()
