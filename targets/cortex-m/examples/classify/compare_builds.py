#!/usr/bin/env python3
"""An example model in its two builds side by side (issue 36): f32 activations
(example_classifier, example_encoder) and static int8 activations (example_classifier_static,
example_encoder_static). Runs both
firmwares under qemu with `-icount shift=0` (counts repeat exactly), reads what each
prints (cycles per inference; static RAM with the arena, heap peak and stack peak, all
measured on the device) and its flash and engine bytes from the ELF and the linker map
(check_size.py's rules), prints one table, and fails when the static int8 build misses a
limit it is given:

  compare_builds.py SIZE_TOOL CHECK_SIZE_DIR [--ram-ratio R] [--count-ratio R]
                    [--engine N] -- F32.elf F32.map INT8.elf INT8.map -- QEMU_COMMAND... -kernel

--ram-ratio: RAM used (static + heap peak + stack peak) at most R times the f32 build's;
--count-ratio: counts per inference at most R times; --engine: engine bytes at most N.
"""
import argparse
import re
import subprocess
import sys

RAM = re.compile(r"^RAM: (\d+) bytes = static (\d+) \(arena (\d+)\) \+ heap peak (\d+) \+ stack peak (\d+)", re.M)
COUNTS = re.compile(r"^inference: (\d+) cycles", re.M)


def run_firmware(qemu, elf):
    """The firmware's own figures, from one run under qemu -icount."""
    command = qemu[:-1] + ["-icount", "shift=0", qemu[-1], elf]  # the command ends with -kernel
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    ram, counts = RAM.search(done.stdout), COUNTS.search(done.stdout)
    if done.returncode != 0 or not ram or not counts:
        sys.exit(f"{elf} exited {done.returncode} without its figures:\n{done.stdout}{done.stderr}")
    used, statics, arena, heap, stack = (int(v) for v in ram.groups())
    return {"ram": used, "static": statics, "arena": arena, "heap": heap, "stack": stack, "counts": int(counts.group(1))}


def linked_sizes(check_size, size_tool, elf, map_file):
    text, data, _ = check_size.berkeley_sizes(size_tool, elf)
    with open(map_file) as f:
        return {"flash": text + data, "engine": check_size.engine_bytes(f.read())}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("size_tool")
    parser.add_argument("check_size_dir")
    parser.add_argument("--ram-ratio", type=float, default=0)
    parser.add_argument("--count-ratio", type=float, default=0)
    parser.add_argument("--engine", type=int, default=0)
    argv = sys.argv[1:]
    first = argv.index("--")
    second = argv.index("--", first + 1)
    args = parser.parse_args(argv[:first])
    f32_elf, f32_map, int8_elf, int8_map = argv[first + 1:second]
    qemu = argv[second + 1:]
    sys.path.insert(0, args.check_size_dir)
    import check_size  # pylint: disable=import-outside-toplevel

    builds = []
    for elf, map_file in ((f32_elf, f32_map), (int8_elf, int8_map)):
        figures = run_firmware(qemu, elf)
        figures.update(linked_sizes(check_size, args.size_tool, elf, map_file))
        builds.append(figures)
    f32, int8 = builds
    rows = [("flash (text + data)", "flash", None), ("static RAM (data + bss)", "static", None),
            ("  of it the arena", "arena", None), ("heap peak (stdio)", "heap", None),
            ("stack peak", "stack", None), ("RAM used (static + heap + stack)", "ram", args.ram_ratio),
            ("counts per inference (-icount)", "counts", args.count_ratio), ("engine code", "engine", None)]
    print(f"{'':<34}{'f32 activations':>16}{'static int8':>13}{'ratio':>8}")
    failures = []
    for label, key, limit in rows:
        ratio = int8[key] / f32[key] if f32[key] else 0.0
        note = ""
        if limit:
            note = f"   at most {limit:.2f}x" + ("" if ratio <= limit else ": OVER")
            if ratio > limit:
                failures.append(f"{label}: {ratio:.3f}x > {limit:.2f}x")
        if key == "engine" and args.engine:
            note = f"   at most {args.engine:,} B" + ("" if int8[key] <= args.engine else ": OVER")
            if int8[key] > args.engine:
                failures.append(f"engine code: {int8[key]:,} > {args.engine:,} B")
        print(f"{label:<34}{f32[key]:>16,}{int8[key]:>13,}{ratio:>8.3f}{note}")
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print("the static int8 build is within its limits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
