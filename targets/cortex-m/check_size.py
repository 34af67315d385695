#!/usr/bin/env python3
"""Flash and RAM of a linked firmware against its budgets (focal_add_firmware's
FLASH_BUDGET, RAM_BUDGET, ENGINE_BUDGET). Prints one table; exits 1 if a budget is
exceeded, so the ctest `<firmware>_size` holds it.

  check_size.py SIZE_TOOL FIRMWARE.elf FIRMWARE.map [--flash N] [--ram N] [--engine N] [--report-only]

flash  = text + data (code, constants, embedded models, .data's initial image)
ram    = data + bss + the reserved stack (the heap takes what is left; the firmware
         itself reports the heap and stack it actually used, targets/cortex-m/memory_usage.h)
engine = code and constants linked from libfocal_engine.a (and a focal_select_ops
         registry), read from the linker map: what the engine costs a firmware.
"""
import argparse
import re
import subprocess
import sys


def berkeley_sizes(size_tool, elf):
    out = subprocess.run([size_tool, elf], check=True, capture_output=True, text=True).stdout
    text, data, bss = (int(v) for v in out.splitlines()[1].split()[:3])
    return text, data, bss


def engine_bytes(linker_map):
    """Bytes of .text*/.rodata* input sections kept from the engine's objects."""
    content = linker_map[linker_map.index("Linker script and memory map"):]
    total = 0
    pending = False  # a long section name sits alone on its line, its numbers on the next
    for line in content.splitlines():
        if re.match(r"^ \.(text|rodata)\S*\s*$", line):
            pending = True
            continue
        m = re.match(r"^ (\.(?:text|rodata)\S*)?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)", line)
        if m and (m.group(1) or pending):
            source = m.group(3)
            if "libfocal_engine.a(" in source or source.endswith("_ops.cpp.obj"):
                total += int(m.group(2), 16)
        pending = False
    return total


def stack_bytes(linker_map):
    m = re.search(r"0x([0-9a-f]+)\s+__stack_size = ", linker_map)
    return int(m.group(1), 16) if m else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("size_tool")
    parser.add_argument("elf")
    parser.add_argument("map")
    for budget in ("flash", "ram", "engine"):
        parser.add_argument(f"--{budget}", type=int, default=0, help="budget in bytes (0: none)")
    parser.add_argument("--report-only", action="store_true", help="print, but exit 0 even if over")
    args = parser.parse_args()

    text, data, bss = berkeley_sizes(args.size_tool, args.elf)
    with open(args.map) as f:
        linker_map = f.read()
    used = {"flash": text + data, "ram": data + bss + stack_bytes(linker_map), "engine": engine_bytes(linker_map)}
    over = []
    name = re.sub(r".*/", "", args.elf)
    print(f"{name}:")
    for key, value in used.items():
        budget = getattr(args, key)
        status = f"budget {budget:>9,} ({100 * value / budget:5.1f}%)" if budget else "no budget"
        print(f"  {key:<7}{value:>10,} B   {status}")
        if budget and value > budget:
            over.append(f"{key} {value:,} > {budget:,}")
    if over:
        print(f"{name}: over budget: {'; '.join(over)}")
        return 0 if args.report_only else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
