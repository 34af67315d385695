#!/usr/bin/python3
"""Builds nfkc_unigram_spm.model, a SentencePiece unigram model whose normalizer is the
built-in nmt_nfkc (its precompiled_charsmap is the table T5's spiece.model carries), and
its expected ids (nfkc_expected.json) on tests/tokenizers/real_corpus.txt plus lines of
characters NFKC and nmt_nfkc change (ligatures, full-width and circled forms, squared
units, Arabic presentation forms, Hangul jamo, Unicode spaces, zero-width characters,
tabs and runs of spaces), read by tests/test_sentencepiece_charsmap.cpp.

Training: Debian's python3-sentencepiece (0.1.97), SentencePieceTrainer on real_corpus.txt,
unigram, 1500 pieces, character coverage 0.98 (so rarer characters are unknown), one
thread, random generator seed 7. Expected ids: SentencePieceProcessor.encode, the
reference implementation, for every line. The same model is also checked as a T5-style
tokenizer.json (Precompiled normalizer, WhitespaceSplit + Metaspace, Unigram) that the
test writes from the .model against the same ids.
Usage: make_nfkc_references.py (writes into tests/tokenizers/)"""

import json
import os

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))

# Lines where normalization matters; each checked with and without leading/trailing space.
NFKC_LINES = [
    "\ufb01nance and \ufb02ow: the \ufb00 \ufb03 \ufb04 ligatures",
    "\uff21\uff22\uff23 \uff11\uff12\uff13 full-width \uff08\uff54\uff45\uff58\uff54\uff09\uff01",
    "\u2460 \u2461 \u2473 circled, \u2474 parenthesized, \u2488 with a stop",
    "\u3392 \u338f \u33af \u3302 squared units and katakana",
    "\ufdfa and \ufdfb and \ufef7 Arabic presentation forms",
    "\u1100\u1161\u11a8 \u1112\u1161\u11ab jamo that compose",
    "e\u0301 a\u0300 o\u0308 combining marks compose: \u00e9 \u00e0 \u00f6",
    "tabs\tand\tnewline\nand\u3000ideographic\u00a0no-break\u2009thin spaces",
    "zero\u200bwidth\u200cnon\u200djoiner\ufeffbom",
    "   leading and trailing   ",
    "runs     of    spaces",
    "\u2126 ohm \u212b angstrom \u212a kelvin \u00b5 micro",
    "superscripts x\u00b2 y\u00b3 \u2075 and fractions \u00bd \u2153",
    "roman \u2160 \u2161 \u2162 \u216b and \u2170\u2171",
    "half-width \uff76\uff80\uff76\uff85 \uff8a\uff9f katakana",
    "\u2028line separator\u2029paragraph separator\u0085next line",
    "\u00a8 \u00af \u00b4 \u00b8 spacing marks",
    "\U0001d400\U0001d401 mathematical bold \U0001d7ce\U0001d7cf",
    "\u3000\u3000",
    "",
    " ",
    "\u2581 a literal lower one eighth block \u2581",
]


def main():
    os.chdir(HERE)
    spm.set_random_generator_seed(7)
    spm.SentencePieceTrainer.train(input="real_corpus.txt", model_prefix="nfkc_unigram_spm", model_type="unigram",
                                   vocab_size=1500, normalization_rule_name="nmt_nfkc", character_coverage=0.98,
                                   num_threads=1, minloglevel=2)
    os.remove("nfkc_unigram_spm.vocab")
    sp = spm.SentencePieceProcessor(model_file="nfkc_unigram_spm.model")
    corpus = [line.rstrip("\n") for line in open("real_corpus.txt", encoding="utf-8")]
    texts = corpus + NFKC_LINES + [" " + t + "  " for t in NFKC_LINES]
    expected = {"texts": texts, "ids": [sp.encode(t) for t in texts]}
    with open("nfkc_expected.json", "w", encoding="utf-8") as f:
        json.dump(expected, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(len(texts), "texts,", sum(len(i) for i in expected["ids"]), "ids,", sp.get_piece_size(), "pieces")


if __name__ == "__main__":
    main()
