#!/usr/bin/python3
"""T5 and Marian folders as the hub serves them, from text to text (issue 33).

Each folder is converted with `focal convert --hf DIR -o X.focal` and nothing else; then
`focal generate X.focal --source TEXT` prints text, and with --ids the greedy ids equal
the float64 PyTorch re-implementation's on the source as the family's tokenizer encodes
it (python3-sentencepiece, the reference implementation, then </s> appended).

  t5      tests/models/t5_reference.py's hub folder (T5ForConditionalGeneration's names,
          random weights, d_model 40, vocabulary 1500) with spiece.model =
          tests/tokenizers/nfkc_unigram_spm.model, a SentencePiece unigram model whose
          normalizer is nmt_nfkc (T5's precompiled character map), T5Tokenizer's
          tokenizer_config.json and generation_config.json; a second folder adds the
          tokenizer.json T5TokenizerFast would read (Precompiled normalizer with the same
          map, WhitespaceSplit + Metaspace, Unigram, "$A </s>"), which --hf takes first.
  marian  tests/models/make_marian_reference.py's opus-mt folder (MarianMTModel's names,
          source.spm and target.spm trained with SentencePiece's default nmt_nfkc, the
          joint vocab.json) with MarianTokenizer's tokenizer_config.json and
          generation_config.json.
The source texts hold characters NFKC changes (full-width letters, a ligature, a
no-break space, a run of spaces), so the character map is what makes the ids agree.
Usage: test_hub_seq2seq_text.py FOCAL_BINARY SOURCE_DIR WORK_DIR"""
import base64
import json
import os
import shutil
import subprocess
import sys

import sentencepiece as spm
import torch

focal, source, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(source, "tests", "models"))
sys.path.insert(0, os.path.join(source, "tests", "support"))
import make_marian_reference as marian  # noqa: E402
import protobuf_wire as wire  # noqa: E402
import t5_reference as t5  # noqa: E402

torch.set_num_threads(min(2, torch.get_num_threads()))
os.makedirs(work, exist_ok=True)
STEPS = 12
SPACE = "\u2581"


def run(*args):
    r = subprocess.run([focal, *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (args, r.stderr)
    return r


def write_json(path, content):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(content, f, indent=2, ensure_ascii=False)
        f.write("\n")


def convert(folder, name):
    model = os.path.join(work, name + ".focal")
    r = run("convert", "--hf", folder, "-o", model)
    return model, r.stderr


def generate(model, text):
    """focal generate --source TEXT's text, and its ids (--ids)."""
    out = run("generate", model, "--source", text, "--max-new", str(STEPS)).stdout
    ids = [int(i) for i in run("generate", model, "--source", text, "--max-new", str(STEPS), "--ids").stdout.split()]
    return out.rstrip("\n"), ids


def until_eos(ids, eos):
    return ids[:ids.index(eos)] if eos in ids else ids


# ---------------------------------------------------------------------------------------------
# T5

def precompiled_charsmap(model_path):
    """NormalizerSpec.precompiled_charsmap (ModelProto field 3, its field 2)."""
    with open(model_path, "rb") as f:
        for number, _, value, _ in wire.fields(f.read()):
            if number == 3:
                for inner, _, blob, _ in wire.fields(value):
                    if inner == 2:
                        return blob
    raise ValueError("no precompiled_charsmap")


def t5_tokenizer_json(processor, model_path, eos):
    """T5TokenizerFast's file (convert_slow_tokenizer's T5Converter, as t5-small's reads)."""
    vocab = [[processor.id_to_piece(i), processor.get_score(i)] for i in range(processor.get_piece_size())]
    specials = [{"id": i, "content": processor.id_to_piece(i), "single_word": False, "lstrip": False,
                 "rstrip": False, "normalized": False, "special": True}
                for i in range(processor.get_piece_size()) if processor.is_control(i) or processor.is_unknown(i)]
    charsmap = base64.b64encode(precompiled_charsmap(model_path)).decode()
    metaspace = {"type": "Metaspace", "replacement": SPACE, "add_prefix_space": True}
    end = processor.id_to_piece(eos)
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": specials,
        "normalizer": {"type": "Precompiled", "precompiled_charsmap": charsmap},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": end, "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": end, "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": end, "type_id": 0}}],
            "special_tokens": {end: {"id": end, "ids": [eos], "tokens": [end]}}},
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": processor.unk_id(), "vocab": vocab},
    }


def check_t5():
    model_path = os.path.join(source, "tests", "tokenizers", "nfkc_unigram_spm.model")
    processor = spm.SentencePieceProcessor(model_file=model_path)
    eos = processor.eos_id()
    sizes = dict(vocab_size=processor.get_piece_size(), d_model=40, d_kv=12, num_heads=3, d_ff=56, num_layers=2,
                 num_decoder_layers=2, relative_attention_num_buckets=8, relative_attention_max_distance=6,
                 feed_forward_proj="relu", tie_word_embeddings=True, eos_token_id=eos)
    text = "The \uff53\uff4d\uff41\uff4c\uff4c lighthouse keeper\u00a0counted  \ufb01ve gulls."
    folders = []
    for name, with_json in (("t5_spiece", False), ("t5_tokenizer_json", True)):
        folder = os.path.join(work, name)
        shutil.rmtree(folder, ignore_errors=True)
        config, state = t5.write_hub_folder(folder, sizes, seed=11)
        shutil.copy(model_path, os.path.join(folder, "spiece.model"))
        write_json(os.path.join(folder, "tokenizer_config.json"), {
            "additional_special_tokens": [], "clean_up_tokenization_spaces": True, "eos_token": "</s>",
            "extra_ids": 0, "legacy": True, "model_max_length": 512, "pad_token": "<pad>",
            "sp_model_kwargs": {}, "tokenizer_class": "T5Tokenizer", "unk_token": "<unk>"})
        write_json(os.path.join(folder, "generation_config.json"), {
            "_from_model_config": True, "decoder_start_token_id": 0, "eos_token_id": eos, "pad_token_id": 0,
            "transformers_version": "4.36.2"})
        if with_json:
            write_json(os.path.join(folder, "tokenizer.json"), t5_tokenizer_json(processor, model_path, eos))
        folders.append((name, with_json, folder, config, state))
    source_ids = processor.encode(text) + [eos]  # T5Tokenizer ends the source with </s>
    want = None
    for name, with_json, folder, config, state in folders:
        model, log = convert(folder, name)
        assert "preset t5" in log, log
        if want is None:
            ref = t5.T5(config, state)
            want = until_eos(ref.greedy(torch.tensor([source_ids]), STEPS), eos)
        # focal tokenize: the tokenizer the folder gave, by its special tokens (tokenizer.json's
        # post-processor ends the text with </s>, spiece.model adds none).
        tokenized = json.loads(run("tokenize", model, text, "--ids").stdout)
        assert tokenized == (source_ids if with_json else source_ids[:-1]), (name, tokenized, source_ids)
        out, got = generate(model, text)
        assert got[:len(want)] == want and got[len(want):] in ([], [eos]), (name, got, want)
        pieces = [processor.id_to_piece(i) for i in want]
        assert out == processor.decode_pieces(pieces).strip() or out == "".join(pieces).replace(SPACE, " ").strip(), \
            (name, out, pieces)
        print(f"{name}: {len(source_ids)} source ids; focal generate --source -> {out!r}; {len(want)} greedy ids "
              "equal PyTorch float64")


# ---------------------------------------------------------------------------------------------
# Marian

def check_marian():
    folder = os.path.join(work, "marian")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    c, sd, src, tgt, vocab = marian.build(folder)
    for dump in ("source.vocab", "target.vocab"):  # spm_export_vocab's files: not on the hub
        os.remove(os.path.join(folder, dump))
    pad = c["pad_token_id"]
    write_json(os.path.join(folder, "tokenizer_config.json"), {
        "eos_token": "</s>", "model_max_length": 512, "pad_token": "<pad>", "separate_vocabs": False,
        "source_lang": "en", "sp_model_kwargs": {}, "target_lang": "de", "tokenizer_class": "MarianTokenizer",
        "unk_token": "<unk>"})
    write_json(os.path.join(folder, "generation_config.json"), {
        "bad_words_ids": [[pad]], "bos_token_id": 0, "decoder_start_token_id": pad, "eos_token_id": 0,
        "forced_eos_token_id": 0, "max_length": 512, "num_beams": 4, "pad_token_id": pad,
        "transformers_version": "4.36.2"})
    model, log = convert(folder, "marian")
    assert "preset marian" in log, log
    text = "the \uff53\uff4d\uff41\uff4c\uff4c dog  runs to\u00a0the house"
    source_ids = marian.encode_source(src, vocab, text)
    assert source_ids == marian.encode_source(src, vocab, "the small dog runs to the house")  # NFKC's doing
    want, _ = marian.greedy(sd, c, source_ids, STEPS, stop_at_eos=True)
    out, got = generate(model, text)
    assert got[:len(want)] == want and got[len(want):] in ([], [c["eos_token_id"]]), (got, want)
    assert out == marian.decode_target(tgt, vocab, want), (out, marian.decode_target(tgt, vocab, want))
    print(f"marian: focal generate --source {text!r} -> {out!r}; {len(want)} greedy ids equal PyTorch float64")


check_t5()
check_marian()
