#!/usr/bin/python3
"""targets/linux/cli/focal.bash-completion in a real bash: commands complete from
`focal --help`, options from each command's --help (short and long), files elsewhere.
Usage: test_bash_completion.py FOCAL SOURCE_DIR"""

import os
import subprocess
import sys
import tempfile


def complete(focal, script, words, cwd):
    """COMPREPLY for the command line `words` (the last one is being completed)."""
    line = " ".join(words)
    program = f"""
source {script!r}
COMP_WORDS=({" ".join(repr(w) for w in [focal] + words[1:])})
COMP_CWORD={len(words) - 1}
COMP_LINE={line!r}
_focal
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    out = subprocess.run(["bash", "-c", program], check=True, capture_output=True, text=True, cwd=cwd)
    return [w for w in out.stdout.split("\n") if w]


def main(focal, root):
    script = os.path.join(root, "targets/linux/cli/focal.bash-completion")
    with tempfile.TemporaryDirectory() as scratch:
        open(os.path.join(scratch, "story.focal"), "w").close()
        cases = [
            (["focal", "gen"], ["generate"]),
            (["focal", "--ver"], ["--version"]),
            (["focal", "generate", "--max"], ["--max-new"]),
            (["focal", "bench", "--pl"], ["--plot"]),
            (["focal", "serve", "--api"], ["--api-key", "--api-key-file"]),
            (["focal", "tokenize", "--no-"], ["--no-add-special", "--no-parse-special"]),
            (["focal", "generate", "-"], None),  # checked below: short flags are offered too
            (["focal", "generate", "sto"], ["story.focal"]),
        ]
        for words, expected in cases:
            got = complete(focal, script, words, scratch)
            if expected is None:
                assert {"-m", "-p", "-n", "-t", "-s"} <= set(got), got
            else:
                assert sorted(got) == sorted(expected), (words, got, expected)
            print(" ".join(words), "->", " ".join(got[:8]))
        commands = complete(focal, script, ["focal", ""], scratch)
        assert {"convert", "run", "generate", "chat", "bench", "tokenize"} <= set(commands), commands


if __name__ == "__main__":
    main(*sys.argv[1:])
