#!/usr/bin/python3
"""BERT's text handling over all of Unicode (issue 33): a WordPiece vocabulary covering many
scripts, four tokenizer.json files on it, and their expected ids on real_corpus.txt plus the
lines below (bert_expected.json, read by tests/test_bert_text.cpp).

  bert_vocab.txt      kjv_wordpiece.txt (English, [PAD] [UNK] [CLS] [SEP] [MASK] first),
                      then A-Z, and every character of the corpus in both its uncased
                      (NFD, marks dropped, lowercased) and cased forms, alone and as "##"
                      pieces, and some whole words of other scripts; Thai and emoji are
                      left out so words of them become [UNK]. Derived here, not trained.
  bert_uncased.tokenizer.json        BertNormalizer lowercase true, strip_accents null
  bert_cased.tokenizer.json          lowercase false, strip_accents null (accents kept)
  bert_cased_strip.tokenizer.json    lowercase false, strip_accents true
  bert_lower_keep.tokenizer.json     lowercase true, strip_accents false
Each has BertPreTokenizer, BertProcessing ([CLS] A [SEP]) and the five special tokens as
added tokens (normalized false), as the hub's BERT files do.

Expected ids: npm's @huggingface/tokenizers 0.2.0 (the tokenizers library's JavaScript
port) run offline by hf_reference.mjs: "plain" (add_special_tokens false; special tokens
typed in the text still become their ids) and "ids" (with [CLS] and [SEP]). The test also
runs the vocab.txt path (wordpiece:bert_vocab.txt[:lowercase], transformers' BertTokenizer)
against the uncased and cased references.

Where the JavaScript port differs from the Rust source (tokenizers/src/normalizers/bert.rs),
the engine follows Rust and the corpus avoids the characters: CJK ideographs outside the
Basic Multilingual Plane (the port spaces them by UTF-16 unit, so it misses them), a final
capital sigma (the port's toLowerCase gives ς in context; Rust's char::to_lowercase gives
σ), and characters whose category changed after the Unicode version of Rust's
unicode_categories tables. The port lowercases before stripping accents, Rust after; no
character here decomposes differently for it.
Usage: NODE_PATH=<a scratch npm prefix>/node_modules make_bert_references.py
       (npm install --prefix <scratch> @huggingface/tokenizers@0.2.0; not in the checkout)
"""

import json
import os
import subprocess
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))

# Lines of our own, on top of real_corpus.txt: what BERT's normalizer and pre-tokenizer
# must get right beyond Latin-1.
LINES = [
    "Cửa Việt",
    "Đà Nẵng và Hà Nội, Thành phố Hồ Chí Minh",
    "ПРИВЕТ МИР и Москва, ЖЁЛТЫЙ ЁЖ",
    "ΑΘΗΝΑ ΚΑΙ ΘΕΣΣΑΛΟΝΙΚΗ, Ελληνικά: Η ΓΛΩΣΣΑ ΤΩΝ ΕΛΛΗΝΩΝ",
    "ՀԱՅԱՍՏԱՆ Երևան ԲԱՐԵՎ",
    "İstanbul İZMİR and ISTANBUL",
    "control\x01chars\x07here\x1b[0m and\x7fdel\u0085next",
    "NUL\x00inside and U+FFFD \ufffd replacement\ufffdchar",
    "zero\u200bwidth\u200djoiner\ufeffbom and soft\u00adhyphen\u2060joiner",
    "中文字符测试，日本語のテキスト。한국어 텍스트",
    "Ｆｕｌｌ－ｗｉｄｔｈ！（ＴＥＳＴ）？ａｂｃ",
    "¿Qué tal? «Bonjour» — dit-il… 「引用」。‘quoted’ “twice”",
    "[CLS] text [SEP] more [MASK] and [PAD] [UNK]",
    "[CLS]glued[SEP]words[MASK]",
    "[cls] lowercase is not special [Sep] [ CLS ]",
    "Café naïve résumé coöperate ÅNGSTRÖM Ørsted Straße",
    "e\u0301 decomposed a\u0300 and o\u0308 with marks\u0323\u0302",
    "नमस्ते दुनिया, हिन्दी भाषा।",
    "مرحبا بالعالم، كيف حالك؟ العَرَبِيَّة",
    "\u2028line separator\u2029paragraph\u3000ideographic space\u00a0nbsp\u2003em",
    "tab\tand\rcarriage\vvertical\ffeed\nnewline",
    "private\ue000use and unassigned\u0378here",
    "Ⱥ Ⱦ ȺȺȺȺȺȺȺȺ İİİİ grow when lowercased",
    "Symbols $100 + 5 = <tag> ^caret `tick` |pipe| ~tilde ©®™ €£¥ 2×3÷4 ½",
    "Ǆ ǅ ǆ DŽUNGLA titlecase",
    "ﬁ ligature ﬂow \u2126hm \u212a Kelvin \u212b Angstrom",
    "a" * 101 + " short " + "ж" * 120,
    "",
    "   ",
    "𝐁𝐨𝐥𝐝 math letters and 𝟏𝟐𝟑",
    "Émile ÉCOLE Ünïcödé ÀÉÎÕÜ",
    "ภาษาไทย is Thai",
    "I ❤️ 🍕 and 😀!",
    "Ⓐ circled and ① numbers, ㈱ and ㍿",
    "日本の首都は東京です。Tōkyō!",
]

NAMES = {
    "bert_uncased": (True, None),
    "bert_cased": (False, None),
    "bert_cased_strip": (False, True),
    "bert_lower_keep": (True, False),
}


def left_out(c):
    """Characters the vocabulary leaves out on purpose: Thai and emoji become [UNK]."""
    return 0x0E00 <= ord(c) <= 0x0E7F or ord(c) >= 0x1F000 or 0x2600 <= ord(c) <= 0x27BF


def rough_words(text, lowercase, strip):
    """An approximation of BERT's normalizer for choosing vocabulary entries only (the
    expected ids come from the reference, not from this)."""
    text = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf", "Co") or c in "\t\n\r")
    text = "".join(f" {c} " if 0x4E00 <= ord(c) <= 0x9FFF else c for c in text)
    if strip:
        text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    if lowercase:
        text = text.lower()
    words = []
    for word in text.split():
        current = ""
        for c in word:
            if unicodedata.category(c).startswith("P") or (c.isascii() and not c.isalnum()):
                words += [current, c] if current else [c]
                current = ""
            else:
                current += c
        if current:
            words.append(current)
    return words


def vocabulary(lines):
    vocab = [l.rstrip("\n") for l in open(os.path.join(HERE, "kjv_wordpiece.txt"), encoding="utf-8")]
    extra = [chr(c) for c in range(ord("A"), ord("Z") + 1)] + ["##" + chr(c) for c in range(ord("A"), ord("Z") + 1)]
    extra += ["##" + chr(c) for c in range(ord("a"), ord("z") + 1)]
    whole = []
    for line in lines:
        for lowercase, strip in ((True, True), (False, False), (True, False), (False, True)):
            for word in rough_words(line, lowercase, strip):
                for c in word:
                    if not left_out(c):
                        extra += [c, "##" + c]
                if not word.isascii() and 2 <= len(word) <= 6 and not any(left_out(c) for c in word):
                    whole.append(word)
    extra += ["cu", "##a", "viet"] + sorted(set(whole))[::3]
    seen = set(vocab)
    for entry in extra:
        if entry not in seen and entry.strip() and "\n" not in entry:
            seen.add(entry)
            vocab.append(entry)
    return vocab


def tokenizer_json(vocab, lowercase, strip):
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab.index(s), "content": s, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for s in specials],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": strip, "lowercase": lowercase},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", vocab.index("[SEP]")],
                           "cls": ["[CLS]", vocab.index("[CLS]")]},
        "decoder": None,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(vocab)}},
    }


def main():
    corpus = [l.rstrip("\n") for l in open(os.path.join(HERE, "real_corpus.txt"), encoding="utf-8")]
    lines = corpus + LINES
    for line in lines:  # the characters the JavaScript port handles differently (above)
        assert not any(0x20000 <= ord(c) <= 0x2FA1F for c in line), line
        assert not any(c == "Σ" and (i + 1 == len(line) or not line[i + 1].isalpha()) for i, c in enumerate(line))
    vocab = vocabulary(lines)
    with open(os.path.join(HERE, "bert_vocab.txt"), "w", encoding="utf-8") as handle:
        handle.write("".join(t + "\n" for t in vocab))
    jobs = []
    for name, (lowercase, strip) in NAMES.items():
        path = os.path.join(HERE, name + ".tokenizer.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(tokenizer_json(vocab, lowercase, strip), handle, ensure_ascii=False)
        jobs.append({"name": name, "file": path, "cases": [{"text": t} for t in lines]})
    result = subprocess.run(["node", os.path.join(HERE, "hf_reference.mjs")], input=json.dumps(jobs),
                            capture_output=True, text=True, check=True)
    dump = lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    out = ['{"provenance":' + dump("tests/tokenizers/make_bert_references.py: ids from @huggingface/tokenizers "
                                   "0.2.0 (node, offline); the texts are real_corpus.txt's lines then these") + ",",
           '"texts":[', ",\n".join(dump(t) for t in LINES), "],", '"files":{']
    entries = []
    for job in json.loads(result.stdout):
        unk = vocab.index("[UNK]")
        unknown = sum(c["plain"].count(unk) for c in job["cases"])
        total = sum(len(c["plain"]) for c in job["cases"])
        print(f"{job['name']}: {total} tokens, {unknown} [UNK]")
        entries.append(dump(job["name"]) + ':{"plain":[\n' + ",\n".join(dump(c["plain"]) for c in job["cases"]) +
                       '],\n"ids":[\n' + ",\n".join(dump(c["ids"]) for c in job["cases"]) + "]}")
    out.append(",\n".join(entries))
    out.append("}}")
    with open(os.path.join(HERE, "bert_expected.json"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(out) + "\n")
    json.load(open(os.path.join(HERE, "bert_expected.json"), encoding="utf-8"))


if __name__ == "__main__":
    main()
