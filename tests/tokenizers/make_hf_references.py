#!/usr/bin/python3
"""Builds the SentencePiece .model files and Hugging Face tokenizer.json files the converter
reads directly, and their expected ids on tests/tokenizers/corpus.txt (hf_expected.json).

  kjv_unigram.model   SentencePieceTrainer (Debian's python3-sentencepiece), unigram,
                      identity normalization, dummy prefix, remove_extra_whitespaces
  kjv_bpe.model       the same, BPE, whitespace kept, byte_fallback, character coverage
                      0.999 (so the corpus's rarer characters fall back to <0xXX> pieces)
  *.tokenizer.json    the tokenizers format written here from the repository's existing
                      vocabularies (demo/story GPT-2 BPE with RobertaProcessing,
                      kjv_wordpiece.txt with BertNormalizer/BertProcessing) and from the
                      two models above (Unigram T5-style with "$A </s>"; BPE Llama-2 style
                      with Prepend/Replace normalizers, byte fallback and "<s> $A")

Expected ids: for the .model files, SentencePieceProcessor.encode (the reference
implementation). For the tokenizer.json files, npm's @huggingface/tokenizers 0.2.0 (the
tokenizers library's JavaScript port) run offline on the local files by
tests/tokenizers/hf_reference.mjs, once, when this script ran: texts alone, pairs and
texts with special tokens in them, with the post-processor's special tokens. This script
also checks that the JavaScript ids of each text alone (no special tokens added) equal the
first reference's (SentencePiece for the models, story_bpe_expected.json and
kjv_expected.json for the side-file vocabularies), so each case has two references.
Usage: NODE_PATH=<a scratch npm prefix>/node_modules make_hf_references.py
       (npm install --prefix <scratch> @huggingface/tokenizers@0.2.0; not in the checkout)
"""

import json
import os
import subprocess
import tempfile

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SPACE = "\u2581"


def corpus():
    return [l.rstrip("\n") for l in open(os.path.join(HERE, "corpus.txt"), encoding="utf-8")]


def train(lines, name, **options):
    work = tempfile.mkdtemp(prefix="focal_spm_")
    text = os.path.join(work, "kjv.txt")
    with open(text, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:20000]) + "\n")
    prefix = os.path.join(work, name)
    spm.SentencePieceTrainer.train(input=text, model_prefix=prefix, normalization_rule_name="identity",
                                   add_dummy_prefix=True, num_threads=1, minloglevel=2, **options)
    data = open(prefix + ".model", "rb").read()
    with open(os.path.join(HERE, name + ".model"), "wb") as f:
        f.write(data)
    return spm.SentencePieceProcessor(model_file=prefix + ".model")


def added(token_id, content):
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": True}


def template(single, pair, specials):
    def piece(p):
        if p in ("$A", "$B"):
            return {"Sequence": {"id": p[1], "type_id": 0}}
        return {"SpecialToken": {"id": p, "type_id": 0}}
    return {"type": "TemplateProcessing", "single": [piece(p) for p in single], "pair": [piece(p) for p in pair],
            "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in specials.items()}}


def tokenizer_json(model, normalizer, pre_tokenizer, post_processor, added_tokens):
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added_tokens,
            "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "post_processor": post_processor,
            "decoder": None, "model": model}


def story_bpe():
    vocab = json.load(open(os.path.join(ROOT, "demo", "story", "vocab.json"), encoding="utf-8"))
    merges = [l.rstrip("\n") for l in open(os.path.join(ROOT, "demo", "story", "merges.txt"), encoding="utf-8")
              if l.strip() and not l.startswith("#version")]
    eot = vocab["<|endoftext|>"]
    model = {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
             "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": merges}
    pre = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    post = {"type": "RobertaProcessing", "sep": ["<|endoftext|>", eot], "cls": ["<|endoftext|>", eot],
            "trim_offsets": True, "add_prefix_space": False}
    return tokenizer_json(model, None, pre, post, [added(eot, "<|endoftext|>")]), "<|endoftext|>"


def kjv_wordpiece():
    tokens = [l.rstrip("\n") for l in open(os.path.join(HERE, "kjv_wordpiece.txt"), encoding="utf-8")]
    vocab = {t: i for i, t in enumerate(tokens)}
    model = {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
             "max_input_chars_per_word": 100, "vocab": vocab}
    norm = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None,
            "lowercase": True}
    post = {"type": "BertProcessing", "sep": ["[SEP]", vocab["[SEP]"]], "cls": ["[CLS]", vocab["[CLS]"]]}
    specials = [added(vocab[t], t) for t in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]]
    return tokenizer_json(model, norm, {"type": "BertPreTokenizer"}, post, specials), "[SEP]"


def unigram_json(sp):
    pieces = [[sp.id_to_piece(i), sp.get_score(i)] for i in range(sp.get_piece_size())]
    model = {"type": "Unigram", "unk_id": sp.unk_id(), "vocab": pieces, "byte_fallback": False}
    norm = {"type": "Sequence", "normalizers": [
        {"type": "Strip", "strip_left": True, "strip_right": True, "left": True, "right": True},
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}
    pre = {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": "always", "split": True}
    eos = sp.id_to_piece(sp.eos_id())
    post = template(["$A", eos], ["$A", eos, "$B", eos], {eos: sp.eos_id()})
    specials = [added(i, sp.id_to_piece(i)) for i in (sp.unk_id(), sp.bos_id(), sp.eos_id())]
    return tokenizer_json(model, norm, pre, post, specials), eos


def bpe_json(sp):
    # tokenizers' SentencePiece BPE converter: vocab by id, merges of every split of a piece
    # into two normal pieces, ordered by the merged piece's score (highest first).
    vocab = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
    normal = {sp.id_to_piece(i) for i in range(sp.get_piece_size())
              if not (sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i))}
    merges = []
    for i in sorted(range(sp.get_piece_size()), key=lambda i: -sp.get_score(i)):
        piece = sp.id_to_piece(i)
        if piece not in normal:
            continue
        for cut in range(1, len(piece)):
            if piece[:cut] in normal and piece[cut:] in normal:
                merges.append(piece[:cut] + " " + piece[cut:])
    model = {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
             "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "vocab": vocab, "merges": merges}
    norm = {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": SPACE},
                                                {"type": "Replace", "pattern": {"String": " "}, "content": SPACE}]}
    bos = sp.id_to_piece(sp.bos_id())
    post = template([bos, "$A"], [bos, "$A", bos, "$B"], {bos: sp.bos_id()})
    specials = [added(i, sp.id_to_piece(i)) for i in (sp.unk_id(), sp.bos_id(), sp.eos_id())]
    return tokenizer_json(model, norm, None, post, specials), sp.id_to_piece(sp.eos_id())


def cases(lines, special):
    """Texts alone, pairs of consecutive lines, and lines with a special token inside."""
    out = [{"text": t} for t in lines]
    out += [{"text": lines[i], "pair": lines[i + 1]} for i in range(0, len(lines) - 1, 2)]
    out += [{"text": lines[i] + " " + special + " " + lines[i + 1]} for i in range(1, len(lines) - 1, 3)]
    out += [{"text": special + lines[0] + special}]
    return out


def main():
    from importlib import util
    spec = util.spec_from_file_location("make_references", os.path.join(HERE, "make_references.py"))
    refs = util.module_from_spec(spec)
    spec.loader.exec_module(refs)
    kjv = refs.kjv_lines()
    lines = corpus()
    unigram = train(kjv, "kjv_unigram_spm", vocab_size=800, model_type="unigram", character_coverage=1.0,
                    remove_extra_whitespaces=True, seed_sentencepiece_size=100000)
    bpe = train(kjv, "kjv_bpe_spm", vocab_size=1000, model_type="bpe", character_coverage=0.999,
                remove_extra_whitespaces=False, byte_fallback=True)
    out = {"provenance": "tests/tokenizers/make_hf_references.py: SentencePiece ids from python3-sentencepiece " +
                         spm.__version__ + "; tokenizer.json ids from @huggingface/tokenizers 0.2.0 (node, offline)"}
    for name, sp in (("kjv_unigram_spm", unigram), ("kjv_bpe_spm", bpe)):
        out[name + ".model"] = {"cases": [{"text": t, "ids": sp.encode(t)} for t in lines]}

    side = json.load(open(os.path.join(HERE, "kjv_expected.json"), encoding="utf-8"))
    story = json.load(open(os.path.join(HERE, "story_bpe_expected.json"), encoding="utf-8"))
    first_reference = {
        "story_bpe": {c["text"]: c["ids"] for c in story["cases"]},
        "kjv_wordpiece": {c["text"]: c["ids"] for c in side["wordpiece"]["cases"]},
        "kjv_unigram_spm": {t: unigram.encode(t) for t in lines},
        "kjv_bpe_spm": {t: bpe.encode(t) for t in lines},
    }
    jobs = []
    for name, (tok, special) in (("story_bpe", story_bpe()), ("kjv_wordpiece", kjv_wordpiece()),
                                 ("kjv_unigram_spm", unigram_json(unigram)), ("kjv_bpe_spm", bpe_json(bpe))):
        path = os.path.join(HERE, name + ".tokenizer.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(tok, f, ensure_ascii=False, separators=(",", ":"))
        jobs.append({"name": name, "file": path, "cases": cases(lines, special)})
    result = subprocess.run(["node", os.path.join(HERE, "hf_reference.mjs")], input=json.dumps(jobs),
                            capture_output=True, text=True, check=True)
    for job in json.loads(result.stdout):
        alone = {c["text"]: c["plain"] for c in job["cases"] if "pair" not in c}
        agree = sum(1 for t, ids in first_reference[job["name"]].items() if t in alone and alone[t] == ids)
        print(job["name"], "JavaScript ids equal the first reference on", agree, "of",
              len(first_reference[job["name"]]), "texts")
        for c in job["cases"]:
            del c["plain"]
        out[job["name"] + ".tokenizer.json"] = {"cases": job["cases"]}
    with open(os.path.join(HERE, "hf_expected.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
