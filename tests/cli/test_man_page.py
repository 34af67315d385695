#!/usr/bin/python3
"""focal(1), docs/focal.1, is what targets/linux/cli/make_man_page.py writes from the
tool's help today (regenerate it when a command's help changes), names every command of
`focal --help`, and groff formats it without a warning (lintian runs the same check).
Usage: test_man_page.py FOCAL_BINARY SOURCE_DIR"""
import re
import subprocess
import sys

focal, root = sys.argv[1:3]
committed = open(f"{root}/docs/focal.1", encoding="utf-8").read()
fresh = subprocess.run(["/usr/bin/python3", f"{root}/targets/linux/cli/make_man_page.py", focal],
                       capture_output=True, text=True, check=True).stdout
assert fresh == committed, ("docs/focal.1 is out of date: run targets/linux/cli/make_man_page.py "
                            "build/host/bin/focal > docs/focal.1")
usage = subprocess.run([focal, "--help"], capture_output=True, text=True, check=True).stdout
commands = re.findall(r"^  (\w+)\s", usage, re.MULTILINE)
assert len(commands) >= 10, commands
for command in commands:
    assert f"\n.SS {command}\n" in committed, command
check = subprocess.run(["groff", "-man", "-ww", "-z", f"{root}/docs/focal.1"], capture_output=True, text=True)
assert check.returncode == 0 and check.stderr == "", check.stderr
print(f"focal(1): {len(commands)} commands, as the tool's help says, groff without warnings")
