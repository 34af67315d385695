#!/usr/bin/python3
"""T5 and Flan-T5 from hub-layout folders (config.json, model.safetensors with HF names,
random weights) through `focal convert --preset auto` (model_type t5), against the
float64 re-implementation of transformers' modeling_t5.py in tests/models/t5_reference.py.

Two models, none of T5Config's default sizes (d_model != num_heads * d_kv):
  t5   (v1.0): relu, tied embeddings (d_model^-0.5 before the head), 2 encoder and
       3 decoder blocks, 8 buckets, max_distance 6;
  flan (v1.1): gated-gelu (gelu_new), untied lm_head, 3 encoder and 2 decoder blocks,
       16 buckets, max_distance 10.
Both max_distances are far below the test's lengths (sources of 12 to 23 tokens, 24
decoded): the logarithmic buckets saturate. For each model:
  - the inputs by transformers' names (input_ids, attention_mask, decoder_input_ids);
  - a ragged batch of 3 sources: encoder_last_hidden_state and the decoder's logits at
    each of 24 teacher-forced steps (one token per run over the KV cache) within 1e-4 of
    float64 (f32 weights), and with --dtype f16 and int8 within 5e-3 and 8e-2 of the
    tensor's largest value (BOUNDS);
  - f32: the whole teacher-forced target in one decode run gives logits [batch, 24,
    vocab] at every position, as transformers returns them, within 1e-4 of float64 with
    attention_mask given (the ragged batch) and with it omitted (each source alone, as
    transformers runs it without a mask: every position a token);
  - greedy decoding on the engine's own logits gives the reference's 24 tokens;
  - a bad feed_forward_proj or num_heads is refused naming the field, no file written;
  - `focal generate MODEL --source TEXT` (the stored unigram tokenizer, eos appended to
    the source, decoder start 0) prints the text of the reference's greedy tokens.
Usage: test_t5_models.py FOCAL SOURCE_DIR WORK_DIR (PYTHONPATH: the build's python dir)."""

import json
import os
import subprocess
import sys

import numpy as np
import torch

import focal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
import t5_reference as t5  # noqa: E402

STEPS, MAX_SEQ, EOS = 24, 32, 2  # kjv_unigram.vocab: <unk> 0, <s> 1, </s> 2
VOCAB = 800
MODELS = {
    "t5": dict(vocab_size=VOCAB, d_model=40, d_kv=12, num_heads=3, d_ff=56, num_layers=2, num_decoder_layers=3,
               relative_attention_num_buckets=8, relative_attention_max_distance=6, feed_forward_proj="relu",
               tie_word_embeddings=True, eos_token_id=EOS),
    "flan": dict(vocab_size=VOCAB, d_model=48, d_kv=10, num_heads=4, d_ff=64, num_layers=3, num_decoder_layers=2,
                 relative_attention_num_buckets=16, relative_attention_max_distance=10,
                 feed_forward_proj="gated-gelu", tie_word_embeddings=False, eos_token_id=EOS),
}
# Largest |engine - float64| over the largest |float64| of the tensor, per weight dtype.
BOUNDS = {"f32": None, "f16": 5e-3, "int8": 8e-2}  # measured: 2.1e-3, 4.1e-2 at most
F32_TOLERANCE = 1e-4  # absolute: values are O(1)


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def sources(root):
    """Three KJV sentences with Debian's python3-sentencepiece ids, eos appended (as T5's tokenizer does)."""
    with open(os.path.join(root, "tests", "tokenizers", "kjv_expected.json")) as f:
        cases = json.load(f)["unigram"]["cases"]
    picked = [c for c in cases if 10 <= len(c["ids"]) <= 22][:3]
    assert len(picked) == 3
    return [c["text"] for c in picked], [c["ids"] + [EOS] for c in picked]


def padded(rows):
    width = max(len(r) for r in rows)
    ids = np.zeros((len(rows), width), np.int32)
    mask = np.zeros((len(rows), width), np.int32)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = r
        mask[i, :len(r)] = 1
    return ids, mask


def check_close(what, got, want, bound):
    """The error measured against its bound: absolute for f32, relative to max |want| otherwise."""
    err = float(np.max(np.abs(got - want)))
    if bound is None:
        assert err <= F32_TOLERANCE, f"{what}: max abs error {err:.3g} > {F32_TOLERANCE}"
        return err
    relative = err / float(np.max(np.abs(want)))
    assert relative <= bound, f"{what}: max error {relative:.3g} of the largest value > {bound}"
    return relative


def check_batch(path, ref, rows, targets, bound, name):
    """Encoder output and per-step logits of a ragged batch, teacher-forced on `targets`."""
    ids, mask = padded(rows)
    memory = ref.encode(torch.from_numpy(ids).long(), torch.from_numpy(mask).long())
    prev = np.concatenate([np.zeros((len(rows), 1), np.int64), np.array(targets)[:, :-1]], axis=1)
    logits = ref.decode(memory, torch.from_numpy(mask).long(), torch.from_numpy(prev)).numpy()
    session = focal.Session(focal.load(path), max_batch=len(rows))
    out = session.run_stage("encode", {"input_ids": ids, "attention_mask": mask})
    worst = check_close(f"{name} encoder", out["encoder_last_hidden_state"], memory.numpy(), bound)
    for t in range(STEPS):
        step = session.run_stage("decode", {"decoder_input_ids": prev[:, t:t + 1].astype(np.int32)})["logits"]
        assert step.shape == (len(rows), 1, logits.shape[-1]), step.shape
        worst = max(worst, check_close(f"{name} logits step {t}", step[:, 0], logits[:, t], bound))
    return worst


def check_all_positions(path, ref, rows, targets, name):
    """transformers' call: the whole target as decoder_input_ids in one run, logits
    [batch, tgt, vocab] at every position; with attention_mask (the ragged batch) and
    without it (each source alone, unpadded)."""
    ids, mask = padded(rows)
    prev = np.concatenate([np.zeros((len(rows), 1), np.int64), np.array(targets)[:, :-1]], axis=1)
    memory = ref.encode(torch.from_numpy(ids).long(), torch.from_numpy(mask).long())
    want = ref.decode(memory, torch.from_numpy(mask).long(), torch.from_numpy(prev)).numpy()
    session = focal.Session(focal.load(path), max_batch=len(rows))
    session.run_stage("encode", {"input_ids": ids, "attention_mask": mask})
    got = session.run_stage("decode", {"decoder_input_ids": prev.astype(np.int32)})["logits"]
    assert got.shape == want.shape, (got.shape, want.shape)
    worst = check_close(f"{name} all-position logits with attention_mask", got, want, None)
    for r, row in enumerate(rows):
        one = np.array([row], np.int32)
        ones = torch.ones(1, len(row), dtype=torch.long)
        memory = ref.encode(torch.from_numpy(one).long(), ones)
        want = ref.decode(memory, ones, torch.from_numpy(prev[r:r + 1])).numpy()
        session = focal.Session(focal.load(path))
        out = session.run_stage("encode", {"input_ids": one})  # no attention_mask
        worst = max(worst, check_close(f"{name} encoder without attention_mask", out["encoder_last_hidden_state"],
                                       memory.numpy(), None))
        got = session.run_stage("decode", {"decoder_input_ids": prev[r:r + 1].astype(np.int32)})["logits"]
        assert got.shape == want.shape, (got.shape, want.shape)
        worst = max(worst, check_close(f"{name} all-position logits without attention_mask", got, want, None))
    return worst


def engine_greedy(path, source):
    session = focal.Session(focal.load(path))
    ids = np.array([source], np.int32)
    session.run_stage("encode", {"input_ids": ids, "attention_mask": np.ones_like(ids)})
    token, tokens = 0, []
    for _ in range(STEPS):
        logits = session.run_stage("decode", {"decoder_input_ids": np.array([[token]], np.int32)})["logits"]
        token = int(np.argmax(logits[0, -1]))
        tokens.append(token)
    return tokens


def pieces_text(vocab, tokens):
    """SentencePiece's decode of pieces: '▁' is a space, the leading one dropped."""
    text = "".join(vocab[t] for t in tokens if t > 2)
    return text.replace("\u2581", " ").strip()


def main(focal_tool, root, work):
    os.makedirs(work, exist_ok=True)
    texts, rows = sources(root)
    vocab_file = os.path.join(root, "tests", "tokenizers", "kjv_unigram.vocab")
    with open(vocab_file, encoding="utf-8") as f:
        vocab = [line.rstrip("\n").rsplit("\t", 1)[0] for line in f]
    for seed, (name, sizes) in enumerate(MODELS.items(), start=5):
        folder = os.path.join(work, name)
        config, state = t5.write_hub_folder(folder, sizes, seed)
        ref = t5.T5(config, state)
        greedy = [ref.greedy(torch.tensor([r]), STEPS) for r in rows]
        for dtype, bound in BOUNDS.items():
            path = os.path.join(work, f"{name}_{dtype}.focal")
            log = run(focal_tool, "convert", "--preset", "auto", "--weights", f"{folder}/model.safetensors",
                      "--config", f"{folder}/config.json", "--tokenizer", f"unigram:{vocab_file}",
                      "--max-seq", str(MAX_SEQ), "--max-batch", "3", "--dtype", dtype, "-o", path)
            worst = check_batch(path, ref, rows, greedy, bound, f"{name} {dtype}")
            print(f"{name} {dtype}: worst error {worst:.3g}" + (" (absolute)" if bound is None else " of the largest value"))
            if dtype != "f32":
                continue
            assert "t5" in log, log  # the preset found from config.json's model_type
            worst = check_all_positions(path, ref, rows, greedy, name)
            print(f"{name}: logits at every position by transformers' names, with and without "
                  f"attention_mask: worst error {worst:.3g} (absolute)")
            for r, want in zip(rows, greedy):
                assert engine_greedy(path, r) == want, f"{name}: greedy tokens differ"
            print(f"{name}: greedy {STEPS} tokens equal for {len(rows)} sources")
            out = run(focal_tool, "generate", path, "--source", texts[0], "--max-new", str(STEPS))
            expected = greedy[0][:greedy[0].index(EOS)] if EOS in greedy[0] else greedy[0]
            assert out.strip() == pieces_text(vocab, expected), (out, pieces_text(vocab, expected))
            print(f"{name}: focal generate --source {texts[0]!r} -> {out.strip()!r}")
    check_refusals(focal_tool, work)


def check_refusals(focal_tool, work):
    """Configs the preset cannot build are refused naming the field, and leave no file."""
    folder = os.path.join(work, "t5")
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    for key, value, named in (("feed_forward_proj", "gated-swish", "feed_forward_proj"), ("num_heads", 4, "num_heads")):
        bad = dict(config, **{key: value})
        path, out = os.path.join(work, "bad_config.json"), os.path.join(work, "bad.focal")
        with open(path, "w") as f:
            json.dump(bad, f)
        result = subprocess.run([focal_tool, "convert", "--preset", "t5", "--weights", f"{folder}/model.safetensors",
                                 "--config", path, "-o", out], capture_output=True, text=True)
        assert result.returncode != 0 and named in result.stderr, result.stderr
        assert not os.path.exists(out)
    print("bad feed_forward_proj and num_heads refused by name")


if __name__ == "__main__":
    main(*sys.argv[1:])
