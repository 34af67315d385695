#!/usr/bin/python3
"""Writes focal(1), the manual page Debian's focal package installs, from the tool's own
help: `focal --help` for the command list and `focal COMMAND --help` for each command's
section, so the page says exactly what the tool says. docs/focal.1 is its output, committed;
the test cli_man_page regenerates it and fails when the two differ (then run this script
again), and checks that groff formats it without a warning.

Usage: make_man_page.py FOCAL_BINARY > docs/focal.1
"""
import re
import subprocess
import sys


def help_text(focal, *args):
    return subprocess.run([focal, *args, "--help"], capture_output=True, text=True, check=True).stdout


def troff_line(line):
    """A line of help text as literal troff: backslashes and minus signs escaped, and a
    leading '.' or "'" kept from being read as a request."""
    line = line.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + line if line.startswith((".", "'")) else line


def main():
    focal = sys.argv[1]
    version = subprocess.run([focal, "--version"], capture_output=True, text=True, check=True).stdout.split()[1]
    usage = help_text(focal)
    commands = re.findall(r"^  (\w+)\s+(.*)$", usage, re.MULTILINE)
    out = [f'.TH FOCAL 1 "" "focal {version}" "User Commands"',
           ".SH NAME",
           "focal \\- convert, inspect, run, generate with and benchmark attention models on the edge",
           ".SH SYNOPSIS",
           ".B focal",
           ".I COMMAND",
           "[\\fIARGS\\fR]",
           ".br",
           ".B focal \\-\\-version",
           ".SH DESCRIPTION",
           "A converter turns trained weights (PyTorch, Keras, safetensors, Hugging Face folders) into one",
           ".I .focal",
           "file; an allocation\\-free engine runs it on x86 and ARM. Each command's arguments follow;",
           ".B focal",
           ".I COMMAND",
           ".B \\-\\-help",
           "prints the same text.",
           ".SH COMMANDS"]
    for name, summary in commands:
        out += [f".SS {name}", troff_line(summary), ".PP", ".nf"]
        out += [troff_line(line) for line in help_text(focal, name).rstrip("\n").split("\n")]
        out += [".fi"]
    out += [".SH EXIT STATUS",
            "0 on success, 1 on failure (the reason on standard error), 2 for arguments the command refuses.",
            ".SH SEE ALSO",
            "The README.md of the focal sources, and /usr/share/doc/focal/copyright for the licence (Apache\\-2.0)."]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
