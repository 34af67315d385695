#!/usr/bin/python3
"""Writes a Marian / opus-mt reference case in the Hugging Face hub's layout (run with Debian's
python3-torch and python3-sentencepiece).

Usage: make_marian_reference.py OUT_DIR

OUT_DIR/marian_hub_e2_d3_d40/ holds what a user downloads from the hub for an opus-mt model:
  config.json        as transformers writes MarianConfig (sorted keys, model_type "marian",
                     architectures ["MarianMTModel"]), at none of its default sizes: d_model 40,
                     encoder 2 layers of 5 heads with ffn 72, decoder 3 layers of 4 heads with ffn 56,
                     swish, scale_embedding true, 64 positions;
  model.safetensors  MarianMTModel's state_dict as save_pretrained stores it: model.shared.weight
                     once (encoder/decoder embed_tokens and lm_head are tied to it and left out),
                     both embed_positions (Marian's sinusoids), final_logits_bias [1, vocab];
  source.spm, target.spm   SentencePiece unigram models trained here (spm.SentencePieceTrainer) on
                     two small corpora; source.vocab / target.vocab are their "piece<TAB>score"
                     dumps (what focal's unigram: reader takes);
  vocab.json         the joint {piece: id}: </s> 0, <unk> 1, both models' pieces shuffled, <pad> last
                     (pad = decoder_start_token_id), so ids differ from either model's own.
The weights are random. final_logits_bias is random, minus 30 for ids no target piece owns
(source-only pieces, <unk>, <pad>), so the model emits target text as a trained one does.
Expected values come from the float64 re-implementation below, written from transformers'
src/transformers/models/marian/modeling_marian.py (4.5x: MarianSinusoidalPositionalEmbedding,
MarianAttention, MarianEncoderLayer, MarianDecoderLayer, MarianMTModel.forward):
  inputs/source_ids, source_mask [3, 9]  a ragged batch (lengths 9, 5, 2; padded with pad);
  inputs/prev_ids [3, 7]                 decoder_start then random target ids (teacher forcing);
  expected/encoder_last_hidden_state [3, 9, 40]  (valid positions only are compared);
  expected/logits [3, 7, vocab]                  the decoder's logits at every position;
  inputs/text_ids [n]                    TEXT through source.spm and vocab.json, </s> appended
                                         (MarianTokenizer's encoding);
  expected/greedy_ids [24]               argmax decoding from decoder_start for 24 steps (eos
                                         does not stop it); greedy_margins [24] best - second;
  expected/translation_ids [m]           the same, stopped at eos (eos excluded);
case.json also holds "text" and "translation" (translation_ids through target.spm's decoder,
as MarianTokenizer.decode(skip_special_tokens=True) gives it).
"""
import json
import math
import os
import random
import sys

import numpy as np
import sentencepiece as spm
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_files import save_arrays, write_safetensors, read_safetensors, assert_same_state_dict  # noqa: E402

NAME = "marian_hub_e2_d3_d40"
SEED = 20251202
TEXT = "the small dog runs to the house"
STEPS = 24
MIN_MARGIN = 1e-3
SHARED_STD = 0.3   # the token table (times sqrt(d_model) = 1.9 in the embeddings)
GAIN = 3.0         # self-attention's out_proj, and CROSS cross-attention's: with the tied table a
CROSS = 0.2        # random decoder copies its input or its memory to the logits, one token forever
SIZES = {"d_model": 40, "encoder_layers": 2, "encoder_attention_heads": 5, "encoder_ffn_dim": 72,
         "decoder_layers": 3, "decoder_attention_heads": 4, "decoder_ffn_dim": 56,
         "max_position_embeddings": 64}

SOURCE_CORPUS = [
    "the dog runs to the house", "a small cat sleeps in the garden", "the house is big and old",
    "we walk to the station every morning", "the children play with a red ball",
    "my brother reads a book about birds", "the weather is cold in winter", "she drinks tea with milk",
    "the train leaves at seven", "they live in a small town near the river",
]
TARGET_CORPUS = [
    "der hund rennt zum haus", "eine kleine katze schlaeft im garten", "das haus ist gross und alt",
    "wir gehen jeden morgen zum bahnhof", "die kinder spielen mit einem roten ball",
    "mein bruder liest ein buch ueber voegel", "das wetter ist kalt im winter", "sie trinkt tee mit milch",
    "der zug faehrt um sieben", "sie wohnen in einer kleinen stadt am fluss",
]


# ---------------------------------------------------------------------------------------------
# Tokenizers

def train_spm(directory, name, corpus, vocab_size):
    text = os.path.join(directory, name + ".txt")
    with open(text, "w") as f:
        f.write("\n".join(corpus * 3) + "\n")
    prefix = os.path.join(directory, name)
    spm.SentencePieceTrainer.train(input=text, model_prefix=prefix, vocab_size=vocab_size, model_type="unigram",
                                   character_coverage=1.0, bos_id=-1, eos_id=1, unk_id=0, pad_id=-1,
                                   minloglevel=2)
    os.remove(text)
    os.replace(prefix + ".model", os.path.join(directory, name + ".spm"))
    return spm.SentencePieceProcessor(model_file=os.path.join(directory, name + ".spm"))


def pieces_of(processor):
    return [processor.id_to_piece(i) for i in range(processor.get_piece_size())]


def joint_vocab(source, target, rng):
    specials = {"</s>", "<unk>", "<s>", "<pad>"}
    pieces = sorted(set(pieces_of(source)) | set(pieces_of(target)) - specials)
    pieces = [p for p in pieces if p not in specials]
    rng.shuffle(pieces)
    vocab = {"</s>": 0, "<unk>": 1}
    for p in pieces:
        vocab[p] = len(vocab)
    vocab["<pad>"] = len(vocab)
    return vocab


def encode_source(processor, vocab, text):
    """MarianTokenizer: source.spm pieces, looked up in vocab.json (unk when absent), then </s>."""
    return [vocab.get(p, vocab["<unk>"]) for p in processor.encode(text, out_type=str)] + [vocab["</s>"]]


def decode_target(processor, vocab, ids):
    by_id = {i: p for p, i in vocab.items()}
    pieces = [by_id[i] for i in ids if by_id[i] not in ("</s>", "<unk>", "<pad>")]
    return processor.decode_pieces(pieces)


# ---------------------------------------------------------------------------------------------
# MarianMTModel in float64 (modeling_marian.py; dropout is identity in eval)

def sinusoids(positions, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight: sin in the first half, cos in the second."""
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(positions)])
    out = torch.empty(positions, dim)
    sentinel = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out[:, :sentinel] = torch.FloatTensor(np.sin(enc[:, 0::2]))
    out[:, sentinel:] = torch.FloatTensor(np.cos(enc[:, 1::2]))
    return out


def linear(sd, prefix, x):
    return x @ sd[prefix + ".weight"].T + sd[prefix + ".bias"]


def layer_norm(sd, prefix, x):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], sd[prefix + ".weight"], sd[prefix + ".bias"], 1e-5)


def marian_attention(sd, prefix, x, kv, heads, additive_mask):
    """MarianAttention: q scaled by head_dim^-0.5, softmax over keys plus the additive mask."""
    batch, q_len, d = x.shape
    head_dim = d // heads
    split = lambda t: t.view(batch, -1, heads, head_dim).transpose(1, 2)  # noqa: E731
    q = split(linear(sd, prefix + ".q_proj", x)) * head_dim ** -0.5
    k, v = split(linear(sd, prefix + ".k_proj", kv)), split(linear(sd, prefix + ".v_proj", kv))
    weights = torch.softmax(q @ k.transpose(-1, -2) + additive_mask, dim=-1)
    out = (weights @ v).transpose(1, 2).reshape(batch, q_len, d)
    return linear(sd, prefix + ".out_proj", out)


def swish(x):
    return x * torch.sigmoid(x)


def padding_mask(mask):
    """[B, S] 1 = token -> additive [B, 1, 1, S] (_prepare_4d_attention_mask)."""
    return (1.0 - mask[:, None, None, :].double()) * torch.finfo(torch.float64).min


def encoder(sd, c, ids, mask):
    d = c["d_model"]
    scale = math.sqrt(d) if c["scale_embedding"] else 1.0
    h = sd["model.shared.weight"][ids] * scale + sd["model.encoder.embed_positions.weight"][:ids.shape[1]]
    keys = padding_mask(mask)
    for layer in range(c["encoder_layers"]):
        p = f"model.encoder.layers.{layer}"
        h = layer_norm(sd, p + ".self_attn_layer_norm", h + marian_attention(sd, p + ".self_attn", h, h,
                                                                             c["encoder_attention_heads"], keys))
        ff = linear(sd, p + ".fc2", swish(linear(sd, p + ".fc1", h)))
        h = layer_norm(sd, p + ".final_layer_norm", h + ff)
    return h


def decoder_logits(sd, c, prev_ids, memory, mask):
    d, seq = c["d_model"], prev_ids.shape[1]
    scale = math.sqrt(d) if c["scale_embedding"] else 1.0
    h = sd["model.shared.weight"][prev_ids] * scale + sd["model.decoder.embed_positions.weight"][:seq]
    causal = torch.full((seq, seq), torch.finfo(torch.float64).min, dtype=torch.float64).triu(1)
    keys = padding_mask(mask)
    heads = c["decoder_attention_heads"]
    for layer in range(c["decoder_layers"]):
        p = f"model.decoder.layers.{layer}"
        h = layer_norm(sd, p + ".self_attn_layer_norm", h + marian_attention(sd, p + ".self_attn", h, h, heads, causal))
        h = layer_norm(sd, p + ".encoder_attn_layer_norm",
                       h + marian_attention(sd, p + ".encoder_attn", h, memory, heads, keys))
        ff = linear(sd, p + ".fc2", swish(linear(sd, p + ".fc1", h)))
        h = layer_norm(sd, p + ".final_layer_norm", h + ff)
    return h @ sd["model.shared.weight"].T + sd["final_logits_bias"]  # lm_head tied to model.shared


def greedy(sd, c, source_ids, steps, stop_at_eos):
    ids = torch.tensor([source_ids])
    mask = torch.ones_like(ids)
    memory = encoder(sd, c, ids, mask)
    prev, tokens, margins = [c["decoder_start_token_id"]], [], []
    for _ in range(steps):
        logits = decoder_logits(sd, c, torch.tensor([prev]), memory, mask)[0, -1]
        top = torch.topk(logits, 2)
        token = int(top.indices[0])
        if stop_at_eos and token == c["eos_token_id"]:
            break
        tokens.append(token)
        margins.append(float(top.values[0] - top.values[1]))
        prev.append(token)
    return tokens, margins


# ---------------------------------------------------------------------------------------------
# The hub folder

def config_json(vocab):
    c = dict(SIZES)
    c.update({
        "_name_or_path": "focal-tests/opus-mt-tiny", "activation_dropout": 0.0, "activation_function": "swish",
        "architectures": ["MarianMTModel"], "attention_dropout": 0.0, "bad_words_ids": [[len(vocab) - 1]],
        "bos_token_id": 0, "classif_dropout": 0.0, "classifier_dropout": 0.0, "decoder_layerdrop": 0.0,
        "decoder_start_token_id": len(vocab) - 1, "decoder_vocab_size": len(vocab), "dropout": 0.1,
        "encoder_layerdrop": 0.0, "eos_token_id": 0, "forced_eos_token_id": 0, "init_std": 0.02,
        "is_encoder_decoder": True, "max_length": 512, "model_type": "marian", "normalize_embedding": False,
        "num_beams": 4, "num_hidden_layers": SIZES["encoder_layers"], "pad_token_id": len(vocab) - 1,
        "scale_embedding": True, "share_encoder_decoder_embeddings": True, "static_position_embeddings": True,
        "torch_dtype": "float32", "transformers_version": "4.36.2", "use_cache": True, "vocab_size": len(vocab)})
    return dict(sorted(c.items()))


def random_state(c, target_ids, rng):
    d, vocab = c["d_model"], c["vocab_size"]
    sd = {"model.shared.weight": SHARED_STD * torch.randn(vocab, d)}
    positions = sinusoids(c["max_position_embeddings"], d)
    sd["model.encoder.embed_positions.weight"] = positions
    sd["model.decoder.embed_positions.weight"] = positions.clone()

    def dense(name, out, inp):
        gain = GAIN if name.endswith("self_attn.out_proj") else CROSS if name.endswith("encoder_attn.out_proj") else 1.0
        sd[name + ".weight"] = gain * torch.randn(out, inp) / math.sqrt(inp)
        sd[name + ".bias"] = 0.1 * torch.randn(out)

    def norm(name):
        sd[name + ".weight"] = 1.0 + 0.1 * torch.randn(d)
        sd[name + ".bias"] = 0.1 * torch.randn(d)

    for side, blocks in (("encoder", ("self_attn",)), ("decoder", ("self_attn", "encoder_attn"))):
        ffn = c[side + "_ffn_dim"]
        for layer in range(c[side + "_layers"]):
            p = f"model.{side}.layers.{layer}"
            for block in blocks:
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    dense(f"{p}.{block}.{proj}", d, d)
                norm(f"{p}.{block}_layer_norm")
            dense(p + ".fc1", ffn, d)
            dense(p + ".fc2", d, ffn)
            norm(p + ".final_layer_norm")
    bias = 0.1 * torch.randn(1, vocab)
    allowed = torch.zeros(vocab, dtype=torch.bool)
    allowed[list(target_ids)] = True
    sd["final_logits_bias"] = torch.where(allowed, bias, bias - 30.0)
    return sd


def build(case_dir):
    torch.manual_seed(SEED)
    rng = random.Random(SEED)
    source = train_spm(case_dir, "source", SOURCE_CORPUS, 60)
    target = train_spm(case_dir, "target", TARGET_CORPUS, 64)
    for name, processor in (("source", source), ("target", target)):  # spm_export_vocab's dump
        with open(os.path.join(case_dir, name + ".vocab"), "w") as f:
            for i in range(processor.get_piece_size()):
                f.write(f"{processor.id_to_piece(i)}\t{processor.get_score(i):g}\n")
    vocab = joint_vocab(source, target, rng)
    with open(os.path.join(case_dir, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=2)
    config = config_json(vocab)
    target_ids = {vocab[p] for p in pieces_of(target) if p in vocab and p not in ("<unk>", "<pad>")}
    state = random_state(config, target_ids, rng)
    write_safetensors(os.path.join(case_dir, "model.safetensors"), state)
    assert_same_state_dict(state, read_safetensors(os.path.join(case_dir, "model.safetensors")))
    with open(os.path.join(case_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    return config, {k: v.double() for k, v in state.items()}, source, target, vocab


def main(argv):
    case_dir = os.path.join(argv[1], NAME)
    os.makedirs(case_dir, exist_ok=True)
    c, sd, source, target, vocab = build(case_dir)
    pad, lengths, batch, src_len, tgt_len = c["pad_token_id"], (9, 5, 2), 3, 9, 7
    mask = torch.zeros(batch, src_len, dtype=torch.int64)
    for row, length in enumerate(lengths):
        mask[row, :length] = 1
    ids = torch.randint(2, c["vocab_size"] - 1, (batch, src_len))
    ids = torch.where(mask == 1, ids, torch.full_like(ids, pad))
    for row, length in enumerate(lengths):
        ids[row, length - 1] = c["eos_token_id"]  # every source ends with </s>
    prev = torch.randint(2, c["vocab_size"] - 1, (batch, tgt_len))
    prev[:, 0] = c["decoder_start_token_id"]
    with torch.no_grad():
        memory = encoder(sd, c, ids, mask)
        logits = decoder_logits(sd, c, prev, memory, mask)
        text_ids = encode_source(source, vocab, TEXT)
        greedy_ids, margins = greedy(sd, c, text_ids, STEPS, stop_at_eos=False)
        translation_ids, _ = greedy(sd, c, text_ids, STEPS, stop_at_eos=True)
    assert min(margins) >= MIN_MARGIN, f"greedy margins too small for float32 to agree: {min(margins)}"
    assert len(set(greedy_ids)) >= 3, greedy_ids
    translation = decode_target(target, vocab, translation_ids)
    assert translation, translation_ids
    inputs = {"source_ids": ids, "source_mask": mask, "prev_ids": prev, "text_ids": torch.tensor(text_ids)}
    expected = {"encoder_last_hidden_state": memory * mask[..., None], "logits": logits,
                "greedy_ids": torch.tensor(greedy_ids), "greedy_margins": torch.tensor(margins),
                "translation_ids": torch.tensor(translation_ids)}
    save_arrays(os.path.join(case_dir, "inputs"), inputs)
    save_arrays(os.path.join(case_dir, "expected"), expected)
    case = {"family": "marian", "preset": "marian", "weights": "model.safetensors", "config": "config.json",
            "inputs": list(inputs), "outputs": list(expected), "text": TEXT, "translation": translation,
            "steps": STEPS, "seed": SEED, "rtol": 1e-4, "atol": 1e-4}
    with open(os.path.join(case_dir, "case.json"), "w") as f:
        json.dump(case, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"{NAME}: vocab {c['vocab_size']}, text ids {text_ids}, greedy {greedy_ids}, "
          f"min margin {min(margins):.4f}, translation {translation!r}")


if __name__ == "__main__":
    main(sys.argv)
