#!/usr/bin/python3
"""Reference byte-level BPE (GPT-2's algorithm as published with the GPT-2 release in
encoder.py: bytes_to_unicode, the pre-tokenization regex with \\p{L}/\\p{N} classes from
the `regex` module, and the ranked-merge loop), written here from that description, to
produce the expected token ids the engine's tokenizer is tested against.

Usage: bpe_reference.py VOCAB.json MERGES.txt CORPUS.txt OUT.json
Writes {"provenance": ..., "cases": [{"text": line, "ids": [...]}, ...]} for every line of
the corpus (a line's text includes no newline; a few cases join lines with "\\n").
"""

import json
import sys

import regex

PATTERN = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def bytes_to_unicode():
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars = printable[:]
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return dict(zip(printable, map(chr, chars)))


def bpe(word, ranks):
    parts = list(word)
    while len(parts) > 1:
        pairs = [(ranks.get((a, b), float("inf")), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
        rank, i = min(pairs)
        if rank == float("inf"):
            break
        parts = parts[:i] + [parts[i] + parts[i + 1]] + parts[i + 2:]
    return parts


def encode(text, vocab, ranks, byte_map):
    ids = []
    for piece in PATTERN.findall(text):
        word = "".join(byte_map[b] for b in piece.encode("utf-8"))
        ids.extend(vocab[p] for p in bpe(word, ranks))
    return ids


def main(vocab_path, merges_path, corpus_path, out_path):
    vocab = json.load(open(vocab_path, encoding="utf-8"))
    lines = [l.rstrip("\n") for l in open(merges_path, encoding="utf-8") if l.strip() and not l.startswith("#version")]
    ranks = {tuple(l.split(" ")): i for i, l in reversed(list(enumerate(lines)))}
    byte_map = bytes_to_unicode()
    corpus = [l.rstrip("\n") for l in open(corpus_path, encoding="utf-8")]
    texts = corpus + ["\n".join(corpus[:3]), corpus[0] + "\n\n  " + corpus[1]]
    cases = [{"text": t, "ids": encode(t, vocab, ranks, byte_map)} for t in texts]
    out = {"provenance": "tests/tokenizers/bpe_reference.py (GPT-2's published algorithm, regex "
                         + regex.__version__ + ") on " + corpus_path + " with " + vocab_path,
           "cases": cases}
    json.dump(out, open(out_path, "w"), indent=1, ensure_ascii=False)
    print(f"{len(cases)} cases, {sum(len(c['ids']) for c in cases)} tokens")


if __name__ == "__main__":
    main(*sys.argv[1:])
