#!/usr/bin/env python3
"""Writes the engine's Unicode tables (engine/src/apps/tokenizer/unicode_tables.h declares
them) from the Unicode Character Database as Debian's unicode-data package installs it, at
build time, so a board runs the tokenizers with no library and no file of its own.

  general categories   UnicodeData.txt field 2, as ranges ((first << 8) | category),
                       unlisted code points Cn
  White_Space          PropList.txt (what Rust regex's \\s and tokenizers' is_whitespace mean)
  lowercase            UnicodeData.txt's simple mapping (SpecialCasing.txt's one
                       unconditional multi-character lowercase, U+0130 -> i + U+0307, is
                       written out in unicode.cpp)
  canonical decompositions  UnicodeData.txt field 5 without a <tag> (one or two code points)
  canonical combining classes  UnicodeData.txt field 3, as ranges
  primary composites   the indexes of the two-code-point decompositions that are not
                       Full_Composition_Exclusion (DerivedNormalizationProps.txt), ordered
                       by their pair, for NFC's composition step

Usage: make_unicode_tables.py UCD_DIR OUTPUT.cpp
Only the standard library: any python3 runs it.
"""

import os
import re
import sys

CATEGORIES = ["Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi",
              "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"]
MAX_CODE_POINT = 0x10FFFF


def read_unicode_data(ucd):
    """Per code point: category, combining class, decomposition, simple lowercase."""
    category, combining, decomposition, lowercase = {}, {}, {}, {}
    first = None
    with open(os.path.join(ucd, "UnicodeData.txt"), encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split(";")
            cp, name, cat, ccc = int(fields[0], 16), fields[1], fields[2], int(fields[3])
            if name.endswith(", First>"):
                first = cp
                continue
            span = range(first, cp + 1) if name.endswith(", Last>") else range(cp, cp + 1)
            first = None
            for c in span:
                category[c] = cat
                if ccc:
                    combining[c] = ccc
            if fields[5] and not fields[5].startswith("<"):
                decomposition[cp] = [int(x, 16) for x in fields[5].split()]
                assert len(decomposition[cp]) <= 2, "a canonical decomposition of three code points"
            if fields[13]:
                lowercase[cp] = int(fields[13], 16)
    return category, combining, decomposition, lowercase


def read_property(path, wanted):
    """The code points listed with property `wanted` in a UCD property file."""
    points = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            body = line.split("#")[0].strip()
            if not body:
                continue
            span, prop = [x.strip() for x in body.split(";")[:2]]
            if prop != wanted:
                continue
            lo, _, hi = span.partition("..")
            points.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    return points


def ranges(value_of, default):
    """[(first, value)] where the value changes, over every code point."""
    out, previous = [], None
    for c in range(MAX_CODE_POINT + 1):
        v = value_of.get(c, default)
        if v != previous:
            out.append((c, v))
            previous = v
    return out


def version_of(ucd):
    with open(os.path.join(ucd, "DerivedNormalizationProps.txt"), encoding="utf-8") as f:
        match = re.search(r"DerivedNormalizationProps-([0-9.]+)\.txt", f.readline())
    return match.group(1) if match else "unknown"


def words(values, per_line=8):
    items = [f"0x{v:08X}u" for v in values]
    return "\n".join("    " + ", ".join(items[i:i + per_line]) + "," for i in range(0, len(items), per_line))


def main():
    ucd, output = sys.argv[1], sys.argv[2]
    category, combining, decomposition, lowercase = read_unicode_data(ucd)
    white_space = sorted(read_property(os.path.join(ucd, "PropList.txt"), "White_Space"))
    excluded = read_property(os.path.join(ucd, "DerivedNormalizationProps.txt"), "Full_Composition_Exclusion")

    category_ranges = ranges({c: CATEGORIES.index(v) for c, v in category.items()}, CATEGORIES.index("Cn"))
    combining_ranges = ranges(combining, 0)
    decompositions = sorted(decomposition.items())
    composites = [i for _, _, i in sorted((pair[0], pair[1], i) for i, (cp, pair) in enumerate(decompositions)
                                          if len(pair) == 2 and cp not in excluded)]
    lowercase_pairs = sorted(lowercase.items())

    out = [f"// Generated at build time by engine/tools/make_unicode_tables.py from the Unicode",
           f"// Character Database {version_of(ucd)} (Debian's unicode-data). Do not edit.",
           '#include "apps/tokenizer/unicode_tables.h"', "",
           "namespace focal {", "namespace tokenizer {", "namespace unicode_tables {", "",
           f'const char kVersion[] = "{version_of(ucd)}";', "",
           f"const uint32_t kCategoryRanges[] = {{\n{words(f << 8 | v for f, v in category_ranges)}\n}};",
           f"const size_t kCategoryRangeCount = {len(category_ranges)};", "",
           f"const uint32_t kCombiningRanges[] = {{\n{words(f << 8 | v for f, v in combining_ranges)}\n}};",
           f"const size_t kCombiningRangeCount = {len(combining_ranges)};", "",
           f"const uint32_t kWhiteSpace[] = {{\n{words(white_space)}\n}};",
           f"const size_t kWhiteSpaceCount = {len(white_space)};", "",
           f"const uint32_t kLowercase[][2] = {{\n{words(v for pair in lowercase_pairs for v in pair)}\n}};",
           f"const size_t kLowercaseCount = {len(lowercase_pairs)};", "",
           "const uint32_t kDecompositions[][3] = {",
           words(v for cp, pair in decompositions for v in (cp, pair[0], pair[1] if len(pair) > 1 else 0)), "};",
           f"const size_t kDecompositionCount = {len(decompositions)};", "",
           f"const uint16_t kComposites[] = {{\n{words(composites)}\n}};",
           f"const size_t kCompositeCount = {len(composites)};", "",
           "}  // namespace unicode_tables", "}  // namespace tokenizer", "}  // namespace focal", ""]
    temporary = output + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    os.replace(temporary, output)  # never a half-written table


if __name__ == "__main__":
    main()
