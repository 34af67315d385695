#!/usr/bin/python3
"""The model types the docs say `--hf` / `--preset auto` recognize are the code's.

Usage: check_model_types.py SOURCE_DIR

Reads kConfigAnchors (config.json model_type -> preset) from
converter/src/presets/preset_detection.cpp and checks, both ways, that
docs/converting.md's table lists exactly those pairs, and that converter/README.md's
`--preset auto` paragraph names every model type (issue 34: the list there had gone
stale).
"""

import pathlib
import re
import sys


def code_anchors(source):
    text = (source / "converter/src/presets/preset_detection.cpp").read_text()
    table = re.search(r"kConfigAnchors\[\] = \{(.*?)\n\};", text, re.S)
    if not table:
        sys.exit("check_model_types: kConfigAnchors not found in preset_detection.cpp")
    return {(m.group(2), m.group(1)) for m in re.finditer(r'\{"([^"]+)", "([^"]+)", "[^"]*"\}', table.group(1))}


def docs_table(source):
    """(model_type, preset) pairs of docs/converting.md's `| model_type | preset |` table."""
    pairs = set()
    in_table = False
    for line in (source / "docs/converting.md").read_text().splitlines():
        if line.startswith("| `model_type` | preset |"):
            in_table = True
            continue
        if in_table and not line.startswith("|"):
            break
        if in_table and not line.startswith("|---"):
            types, preset = [cell.strip() for cell in line.strip("|").split("|")]
            for model_type in re.findall(r"`([^`]+)`", types):
                pairs.add((model_type, preset.strip("`")))
    return pairs


def readme_auto_paragraph(source):
    text = (source / "converter/README.md").read_text()
    start = text.find("- **`--preset auto`**")
    end = text.find("\n- **", start + 1)
    return text[start:end] if start >= 0 else ""


def main():
    source = pathlib.Path(sys.argv[1])
    anchors = code_anchors(source)
    table = docs_table(source)
    problems = []
    for model_type, preset in sorted(anchors - table):
        problems.append(f"docs/converting.md's table lacks model_type '{model_type}' -> {preset}")
    for model_type, preset in sorted(table - anchors):
        problems.append(f"docs/converting.md lists model_type '{model_type}' -> {preset}, which the code does not")
    paragraph = readme_auto_paragraph(source)
    for model_type, _ in sorted(anchors):
        if f"`{model_type}`" not in paragraph:
            problems.append(f"converter/README.md's --preset auto paragraph does not name '{model_type}'")
    print("\n".join(problems) or f"{len(anchors)} model types, docs and code agree")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
