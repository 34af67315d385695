#!/usr/bin/env python3
"""Runs the example firmware under qemu and checks that the outputs it prints are the
host's: `focal run` on the same model and the same inputs (parsed from the firmware's
own lines, "  input_ids [1, 12]: 7 31 ..."), within TOLERANCE (the firmware prints 5
decimals; int8 kernels on the two sides may round differently in the last bits).

  compare_with_host.py FOCAL_TOOL MODEL.focal TOLERANCE -- QEMU_COMMAND... FIRMWARE.elf
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

LINE = re.compile(r"^  (\w+) \[([\d, ]+)\]:((?: \S+)+)$")


def printed_tensors(text):
    tensors = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            shape = tuple(int(d) for d in m.group(2).split(","))
            tensors[m.group(1)] = (shape, [v for v in m.group(3).split() if v != "..."])
    return tensors


def main():
    focal, model, tolerance = sys.argv[1], sys.argv[2], float(sys.argv[3])
    firmware = subprocess.run(sys.argv[sys.argv.index("--") + 1:], capture_output=True, text=True, timeout=120)
    print(firmware.stdout)
    if firmware.returncode != 0:
        print(f"firmware exited {firmware.returncode}")
        return 1
    printed = printed_tensors(firmware.stdout)
    with tempfile.TemporaryDirectory() as tmp:
        inputs = []
        for name in ("input_ids", "attention_mask"):
            shape, values = printed.pop(name)
            np.save(f"{tmp}/{name}.npy", np.array(values, dtype=np.int32).reshape(shape))
            inputs += ["--input", f"{name}={tmp}/{name}.npy"]
        subprocess.run([focal, "run", model, *inputs, "--output-dir", tmp], check=True)
        worst = 0.0
        for name, (shape, values) in printed.items():
            host = np.load(os.path.join(tmp, f"{name}.npy"))
            if host.shape != shape:
                print(f"{name}: host shape {host.shape}, firmware {shape}")
                return 1
            device = np.array(values, dtype=np.float64)
            error = np.abs(host.reshape(-1)[: device.size] - device).max()
            print(f"{name}: {device.size} values, max |host - device| = {error:.2e}")
            worst = max(worst, error)
    if not printed or worst > tolerance:
        print(f"FAIL: worst difference {worst:.2e} > {tolerance}" if printed else "FAIL: no outputs printed")
        return 1
    print(f"device outputs match the host's within {tolerance}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
