#!/usr/bin/python3
"""Builds the WordPiece and unigram test vocabularies from the King James Bible (the
demo's corpus, read by demo/train_story.py) and the expected ids of tests/tokenizers/
corpus.txt from the reference implementations:
  unigram    Debian's python3-sentencepiece (SentencePieceTrainer, model_type unigram,
             identity normalization, dummy prefix, whitespace kept); kjv_unigram.vocab is
             spm's "piece<TAB>score" file; ids from SentencePieceProcessor.encode.
  wordpiece  BERT's published algorithm (BasicTokenizer: control characters dropped,
             whitespace, lowercasing and accent stripping (NFD, marks removed),
             punctuation split; then greedy longest-match-first WordPiece with "##"
             continuations, words over 100 characters [UNK]), written here from that
             description; kjv_wordpiece.txt is a vocab.txt (one token per line) of the
             corpus's frequent words, their frequent suffixes and every character.
Usage: make_references.py   (writes next to itself)
"""

import collections
import importlib.util
import json
import os
import tempfile
import unicodedata

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def kjv_lines():
    spec = importlib.util.spec_from_file_location("train_story", os.path.join(ROOT, "demo", "train_story.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    verses = module.read_kjv()
    return [v if isinstance(v, str) else v[-1] for v in verses]


# ---- WordPiece (BERT) ----------------------------------------------------------------

def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def basic_tokenize(text, lower=True):
    cleaned = []
    for ch in text:
        if ch in "\t\n\r" or unicodedata.category(ch) == "Zs":
            cleaned.append(" ")
        elif ord(ch) == 0 or ord(ch) == 0xFFFD or unicodedata.category(ch).startswith("C"):
            continue
        else:
            cleaned.append(ch)
    words = []
    for word in "".join(cleaned).split():
        if lower:
            word = "".join(c for c in unicodedata.normalize("NFD", word.lower()) if unicodedata.category(c) != "Mn")
        current = ""
        for ch in word:
            if is_punctuation(ch):
                if current:
                    words.append(current)
                words.append(ch)
                current = ""
            else:
                current += ch
        if current:
            words.append(current)
    return words


def wordpiece(words, vocab, unk="[UNK]"):
    ids = []
    for word in words:
        if len(word) > 100:
            ids.append(vocab[unk])
            continue
        pieces, start = [], 0
        while start < len(word):
            end, found = len(word), None
            while start < end:
                piece = ("##" if start > 0 else "") + word[start:end]
                if piece in vocab:
                    found = piece
                    break
                end -= 1
            if found is None:
                pieces = None
                break
            pieces.append(vocab[found])
            start = end
        ids.extend(pieces if pieces is not None else [vocab[unk]])
    return ids


def build_wordpiece_vocab(lines):
    counts = collections.Counter(w for line in lines for w in basic_tokenize(line))
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    chars = sorted({c for w in counts for c in w})
    tokens += chars + ["##" + c for c in chars]
    tokens += [w for w, n in counts.most_common(1200) if w not in tokens]
    suffixes = collections.Counter(w[i:] for w in counts for i in range(2, len(w) - 1))
    tokens += ["##" + s for s, n in suffixes.most_common(600)]
    seen, vocab = set(), []
    for t in tokens:
        if t not in seen:
            seen.add(t)
            vocab.append(t)
    return vocab


def main():
    lines = kjv_lines()
    corpus = [l.rstrip("\n") for l in open(os.path.join(HERE, "corpus.txt"), encoding="utf-8")]
    out = {}

    vocab = build_wordpiece_vocab(lines)
    with open(os.path.join(HERE, "kjv_wordpiece.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(vocab) + "\n")
    index = {t: i for i, t in enumerate(vocab)}
    out["wordpiece"] = {"provenance": "BERT's published BasicTokenizer + WordpieceTokenizer algorithm, "
                                      "tests/tokenizers/make_references.py, lowercase",
                        "cases": [{"text": t, "ids": wordpiece(basic_tokenize(t), index)} for t in corpus]}

    work = tempfile.mkdtemp(prefix="focal_unigram_")
    train = os.path.join(work, "kjv.txt")
    with open(train, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:20000]) + "\n")
    prefix = os.path.join(work, "kjv_unigram")
    spm.SentencePieceTrainer.train(input=train, model_prefix=prefix, vocab_size=800, model_type="unigram",
                                   normalization_rule_name="identity", remove_extra_whitespaces=False,
                                   add_dummy_prefix=True, character_coverage=1.0, seed_sentencepiece_size=100000,
                                   num_threads=1, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
    with open(os.path.join(HERE, "kjv_unigram.vocab"), "w", encoding="utf-8") as f:
        for i in range(sp.get_piece_size()):
            f.write(f"{sp.id_to_piece(i)}\t{sp.get_score(i)}\n")
    out["unigram"] = {"provenance": "python3-sentencepiece " + spm.__version__ + " (Debian), unigram, identity "
                                    "normalization, dummy prefix, whitespace kept",
                      "cases": [{"text": t, "ids": sp.encode(t)} for t in corpus]}
    with open(os.path.join(HERE, "kjv_expected.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
    print(len(vocab), "wordpiece tokens,", sp.get_piece_size(), "unigram pieces")


if __name__ == "__main__":
    main()
