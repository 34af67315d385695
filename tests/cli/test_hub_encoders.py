#!/usr/bin/python3
"""Encoders from a folder as the hub serves it, with text in (issue 33).

Two BERT folders, each written here: config.json with BertModel's real keys at a tiny size
(2 layers, hidden 32, 4 heads), model.safetensors with random weights under BertModel's
names (no prefix, as BertModel.save_pretrained writes them and as BGE and
sentence-transformers folders ship), tokenizer.json, tokenizer_config.json,
special_tokens_map.json and vocab.txt. The tokenizer is tests/tokenizers' BERT-uncased
WordPiece (bert_uncased.tokenizer.json: BertNormalizer, BertPreTokenizer, WordPiece,
BertProcessing over bert_vocab.txt; config.json's vocab_size is its 3717 ids), whose ids
@huggingface/tokenizers gave in bert_expected.json. The second folder adds
sentence-transformers' modules (mean pooling, Normalize).

Each folder converts with `focal convert --hf DIR -o X.focal` and nothing else, then
`focal run X.focal --text TEXT` (and `--text-pair`) must give what the float64 PyTorch
re-implementation (tests/models/make_reference.py's Bert, from transformers' modeling_bert.py)
gives on the reference ids: input_ids with [CLS] and [SEP], attention_mask of ones,
token_type_ids 0 over [CLS] A [SEP] and 1 over B [SEP]. Outputs last_hidden_state,
pooler_output and sentence_embedding within 1e-4, both as --output-dir's .npy files and as
printed without it.
Usage: test_hub_encoders.py FOCAL_BINARY SOURCE_DIR WORK_DIR"""
import copy
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

focal, source, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(source, "tests", "models"))
import make_hf_folder_reference as hub  # noqa: E402
import make_reference as ref  # noqa: E402
from case_files import write_safetensors  # noqa: E402

TOLERANCE = 1e-4
tokenizers = os.path.join(source, "tests", "tokenizers")
expected = json.load(open(os.path.join(tokenizers, "bert_expected.json"), encoding="utf-8"))
corpus = [l.rstrip("\n") for l in open(os.path.join(tokenizers, "real_corpus.txt"), encoding="utf-8")]
texts = corpus + expected["texts"]  # bert_expected.json's ids are over both
uncased = expected["files"]["bert_uncased"]
SINGLE = texts.index("Xin chào, bạn có khỏe không?")
PAIR = (texts.index("Hà Nội là thủ đô của Việt Nam."), texts.index("Добрий вечір, ми з України!"))
CLS, SEP = 2, 3  # bert_vocab.txt's [CLS] and [SEP]
os.makedirs(work, exist_ok=True)


def run(*args):
    return subprocess.run([focal, *args], capture_output=True, text=True, timeout=300)


def write_json(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(content, f, indent=2)
        f.write("\n")


def write_folder(folder, model, c, sentence):
    """The files a hub BERT folder holds (bert-base-uncased's config keys; BertModel's weights)."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    config = {"architectures": ["BertModel"], "attention_probs_dropout_prob": 0.1, "classifier_dropout": None,
              "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": c["hidden_size"],
              "initializer_range": 0.02, "intermediate_size": c["intermediate_size"],
              "layer_norm_eps": 1e-12, "max_position_embeddings": c["max_position_embeddings"],
              "model_type": "bert", "num_attention_heads": c["num_attention_heads"],
              "num_hidden_layers": c["num_hidden_layers"], "pad_token_id": 0,
              "position_embedding_type": "absolute", "torch_dtype": "float32",
              "transformers_version": hub.TRANSFORMERS_VERSION, "type_vocab_size": 2, "use_cache": True,
              "vocab_size": c["vocab_size"]}
    write_json(os.path.join(folder, "config.json"), config)
    write_safetensors(os.path.join(folder, "model.safetensors"), hub.float32_state(model))
    shutil.copy(os.path.join(tokenizers, "bert_uncased.tokenizer.json"), os.path.join(folder, "tokenizer.json"))
    shutil.copy(os.path.join(tokenizers, "bert_vocab.txt"), os.path.join(folder, "vocab.txt"))
    write_json(os.path.join(folder, "tokenizer_config.json"),
               {"clean_up_tokenization_spaces": True, "cls_token": "[CLS]", "do_basic_tokenize": True,
                "do_lower_case": True, "mask_token": "[MASK]", "model_max_length": 512, "never_split": None,
                "pad_token": "[PAD]", "sep_token": "[SEP]", "strip_accents": None, "tokenize_chinese_chars": True,
                "tokenizer_class": "BertTokenizer", "unk_token": "[UNK]"})
    write_json(os.path.join(folder, "special_tokens_map.json"),
               {"cls_token": "[CLS]", "mask_token": "[MASK]", "pad_token": "[PAD]", "sep_token": "[SEP]",
                "unk_token": "[UNK]"})
    if sentence:
        hub.write_sentence_files(folder, c["hidden_size"], "mean", True, c["max_position_embeddings"])


def reference(model, ids, types, sentence):
    """The float64 outputs of the model on one row of ids (no padding: a mask of ones)."""
    ids = torch.tensor([ids])
    mask = torch.ones_like(ids)
    with torch.no_grad():
        out = copy.deepcopy(model).double()(ids, mask, torch.tensor([types]))
    want = {"last_hidden_state": out["last_hidden_state"], "pooler_output": out["pooler_output"]}
    if sentence:
        want["sentence_embedding"] = F.normalize(hub.st_pool(out["last_hidden_state"], mask, "mean"), p=2, dim=1)
    return {k: v.numpy() for k, v in want.items()}


def printed_outputs(stdout):
    """focal run's printed outputs without --output-dir: {name: array} for those with values."""
    values, name = {}, None
    for line in stdout.splitlines():
        if line.startswith("  ") and name is not None:
            values.setdefault(name, []).append([float(v) for v in line.split()])
        elif ": " in line:
            name = line.split(": ")[0]
    return {k: np.array(v) for k, v in values.items()}


def check(name, got, want):
    assert got.shape == want.shape, (name, got.shape, want.shape)
    error = float(np.abs(got.astype(np.float64) - want).max())
    assert error <= TOLERANCE, f"{name}: max error {error} over {TOLERANCE}"
    return error


def check_text(label, model_file, model, args, ids, types, sentence):
    want = reference(model, ids, types, sentence)
    out_dir = os.path.join(work, label + "-out")
    shutil.rmtree(out_dir, ignore_errors=True)
    r = run("run", model_file, *args, "--output-dir", out_dir)
    assert r.returncode == 0, r.stderr
    errors = {}
    for name, value in want.items():
        errors[name] = check(name, np.load(os.path.join(out_dir, name + ".npy")), value)
    # Printed (no --output-dir): rank-2 outputs row by row, last_hidden_state's shape only.
    r = run("run", model_file, *args)
    assert r.returncode == 0, r.stderr
    printed = printed_outputs(r.stdout)
    assert f"last_hidden_state: f32 [1, {len(ids)}, 32] (--output-dir DIR writes it)" in r.stdout, r.stdout
    assert "last_hidden_state" not in printed, r.stdout
    for name in ("pooler_output", "sentence_embedding") if sentence else ("pooler_output",):
        check(name + " (printed)", printed[name], want[name])
    print(f"{label}: {len(ids)} tokens, max errors " + ", ".join(f"{k} {v:.2e}" for k, v in errors.items()))


def main():
    torch.manual_seed(33)
    vocab = open(os.path.join(tokenizers, "bert_vocab.txt"), encoding="utf-8").read().splitlines()
    c = ref.bert_config(len(vocab), 32, 2, 4, 48)
    c["max_position_embeddings"] = 64
    assert c["vocab_size"] == 3717, c["vocab_size"]
    single_ids = uncased["ids"][SINGLE]
    a, b = (uncased["plain"][i] for i in PAIR)
    pair_ids = [CLS, *a, SEP, *b, SEP]  # BertProcessing's pair
    pair_types = [0] * (len(a) + 2) + [1] * (len(b) + 1)
    assert single_ids[0] == CLS and single_ids[-1] == SEP and 1 not in single_ids + pair_ids  # no [UNK]

    for sentence in (False, True):
        model = ref.Bert(c).eval()
        ref.randomize(model, 0.1, {"embeddings": 0.2})
        label = "sentence-bert" if sentence else "bert"
        folder = os.path.join(work, label)
        write_folder(folder, model, c, sentence)
        model_file = os.path.join(work, label + ".focal")
        r = run("convert", "--hf", folder, "-o", model_file)
        assert r.returncode == 0, r.stderr
        assert "--hf: preset bert (config.json model_type 'bert')" in r.stderr, r.stderr
        check_text(label + " text", model_file, model, ["--text", texts[SINGLE]], single_ids,
                   [0] * len(single_ids), sentence)
        check_text(label + " pair", model_file, model, ["--text", texts[PAIR[0]], "--text-pair", texts[PAIR[1]]],
                   pair_ids, pair_types, sentence)

    # Refusals say what to do.
    r = run("run", model_file, "--text-pair", "x")
    assert r.returncode == 2 and "--text-pair needs --text" in r.stderr, r.stderr
    r = run("run", model_file, "--text", "x", "--input", "input_ids=x.npy")
    assert r.returncode == 2 and "--text gives input_ids" in r.stderr, r.stderr
    r = run("run", model_file)
    assert r.returncode == 2 and "--output-dir" in r.stderr, r.stderr


main()
