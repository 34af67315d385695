#!/usr/bin/python3
"""The commands a Hugging Face user types on folders as downloaded
(tests/models/make_hf_folder_reference.py): focal convert --hf on a sentence-transformers
folder (BERT, mean pooling, Normalize), then focal run, whose sentence_embedding.npy rows
must have unit length and match the float64 PyTorch reference; and focal convert --hf on
a Llama folder whose generation_config.json lists the eos ids, then focal generate, which
must stop at the first of them produced (greedy tokens equal PyTorch's up to it) unless --end-id
says otherwise.
Usage: test_hf_folders.py FOCAL_BINARY MODEL_CASES WORK_DIR"""
import json
import os
import subprocess
import sys

import numpy as np

focal, cases, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)


def run(*args):
    return subprocess.run([focal, *args], capture_output=True, text=True, timeout=120)


# sentence-transformers: unit-length embeddings equal to PyTorch's.
case = os.path.join(cases, "hf_st_bert_mean_norm_d30")
model = os.path.join(work, "sentence.focal")
r = run("convert", "--hf", os.path.join(case, "folder"), "--max-batch", "4", "-o", model)
assert r.returncode == 0, r.stderr
assert "--hf: preset bert (config.json model_type 'bert')" in r.stderr, r.stderr
inputs = [f"{name}={os.path.join(case, 'inputs', name + '.npy')}"
          for name in ("input_ids", "attention_mask", "token_type_ids")]
out_dir = os.path.join(work, "out")
r = run("run", model, *sum((["--input", i] for i in inputs), []), "--output-dir", out_dir)
assert r.returncode == 0, r.stderr
got = np.load(os.path.join(out_dir, "sentence_embedding.npy")).astype(np.float64)
want = np.load(os.path.join(case, "expected", "sentence_embedding.npy")).astype(np.float64)
assert got.shape == want.shape == (4, 30), got.shape
norms = np.linalg.norm(got, axis=1)
assert np.abs(norms - 1.0).max() <= 1e-5, norms
assert np.abs(got - want).max() <= 1e-4, np.abs(got - want).max()

# generation_config.json: focal generate stops at any of its eos ids (a list, as Llama 3's).
case = os.path.join(cases, "hf_decoder_generation")
spec = json.load(open(os.path.join(case, "case.json")))
model = os.path.join(work, "decoder.focal")
r = run("convert", "--hf", os.path.join(case, "folder"), "--max-seq", "32", "-o", model)
assert r.returncode == 0, r.stderr
eos_ids = json.load(open(os.path.join(case, "folder", "generation_config.json")))["eos_token_id"]
assert isinstance(eos_ids, list) and len(eos_ids) == 2, eos_ids
prompt = ",".join(str(i) for i in np.load(os.path.join(case, "inputs", "prompt_ids.npy")).reshape(-1))
greedy = [int(t) for t in np.load(os.path.join(case, "expected", "greedy_ids.npy"))]
r = run("generate", model, "--prompt-ids", prompt, "--max-new", str(len(greedy)), "--ids")
assert r.returncode == 0, r.stderr
produced = [int(t) for t in r.stdout.split()]
stop = next(i for i, t in enumerate(greedy) if t in eos_ids)
assert stop <= spec["eos_step"]
assert produced == greedy[:stop + 1], (produced, greedy, eos_ids)
assert produced[-1] in eos_ids
r = run("generate", model, "--prompt-ids", prompt, "--max-new", str(len(greedy)), "--ids", "--end-id", "-1")
assert r.returncode == 0, r.stderr
assert [int(t) for t in r.stdout.split()] == greedy, (r.stdout, greedy)
print("sentence embeddings: unit length, max error", float(np.abs(got - want).max()),
      "; generate stopped at eos", produced[-1], "of", eos_ids, "after", len(produced), "tokens")
