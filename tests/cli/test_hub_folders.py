#!/usr/bin/python3
"""Folders laid out as the hub serves them, one per decoder family, from text to text.

Each folder holds config.json with the real family's keys at a tiny size (2 layers, hidden
16 to 32, the real vocabulary size), model.safetensors with random weights under the
hub's tensor names (the float64 re-implementations of tests/models/make_reference.py and
make_decoder_reference.py), the real tokenizer.json and tokenizer_config.json that
scripts/fetch-data caches, and generation_config.json with the family's real bos/eos ids.
For each family the test runs `focal convert --hf DIR -o X.focal` with no other option,
then `focal tokenize` on a few corpus lines (ids equal to @huggingface/tokenizers'
in tests/tokenizers/real_expected.json; Llama 3.2's and Qwen2.5's files are not there, so
they are checked against Llama 3's and Qwen3's ids after checking that the vocabulary,
merges and pre-tokenizer are the same, with special tokens and the post-processor's bos
checked from the file itself), then `focal generate X.focal --prompt TEXT -n 8`: text
comes out, and `--ids` equals the float64 PyTorch greedy continuation of the prompt's ids.
`focal generate --prompt` encodes the text with the template's special tokens (as
`focal tokenize` without --no-add-special), as transformers' generate on the tokenizer's
output starts with bos where the post-processor adds it (Llama 3.2, Gemma 3, the
SentencePiece files); the same ids are also given with --prompt-ids and checked likewise.
Where tokenizer_config.json has a chat_template (Llama 3.2, Qwen2.5, Gemma 3, Qwen3), `focal
generate --chat USER --system SYSTEM --ids` equals PyTorch's greedy ids on the conversation
as jinja2 renders the template (tests/tokenizers/render_chat_templates.py, as transformers'
apply_chat_template), encoded without added specials; and `focal chat` answers the same
line of standard input with `focal generate --chat`'s text.

Families and what stands in for what:
  gpt2        GPT-2's tokenizer, GPT2LMHeadModel's hub names (wte, h.N, ln_f; tied head)
  llama3.2    Llama 3.2's tokenizer, llama3 rope scaling, tied head
  qwen2.5     Qwen2.5's tokenizer, q/k/v biases, tied head
  gemma3-tok  Gemma 3's tokenizer on the gemma preset, which is Gemma 1's architecture
              (GemmaForCausalLM: no q/k norms, no sliding-window layers, no 4 norms a layer)
  mistral     Llama 2's SentencePiece BPE file cached as llama2 (it holds Mistral's
              32000 ids), config.json as Mistral 7B v0.1 writes it, on the llama preset
  phi3        the same SentencePiece file, Phi3ForCausalLM (fused qkv_proj, gate_up_proj)
  smollm2     the llama preset with a byte-level BPE: no SmolLM2 tokenizer is cached, so
              GPT-2's files stand in (vocab 50257, <|endoftext|> as bos and eos)
  qwen3       Qwen3's tokenizer and config.json as Qwen3-0.6B writes it (head_dim stated,
              not hidden / heads; no biases; q_norm and k_norm), on the qwen3 preset

Without the cached tokenizer files the test is skipped (exit 77), and fails under CI=true.
Usage: test_hub_folders.py FOCAL_BINARY SOURCE_DIR WORK_DIR"""
import copy
import json
import os
import shutil
import subprocess
import sys
import time

import torch

focal, source, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(source, "tests", "models"))
import make_decoder_reference as dec  # noqa: E402
import make_reference as ref  # noqa: E402
from case_files import write_safetensors  # noqa: E402

sys.path.insert(0, os.path.join(source, "tests", "tokenizers"))
from render_chat_templates import render as render_chat  # noqa: E402  (jinja2, as transformers renders)

torch.set_num_threads(min(2, torch.get_num_threads()))
data = os.environ.get("FOCAL_DATA_DIR") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.join(os.environ.get("HOME", ""), ".cache"), "focal-data")
tokenizers = os.path.join(data, "tokenizers")
NEEDED = ("gpt2", "llama3", "llama3_2", "qwen2_5", "qwen3", "gemma3", "llama2")
missing = [n for n in NEEDED if not os.path.isfile(os.path.join(tokenizers, n, "tokenizer.json"))]
if missing:
    message = f"real tokenizer files missing under {tokenizers} ({' '.join(missing)}): run scripts/fetch-data"
    if os.environ.get("CI") == "true":
        sys.exit("FAILED: " + message)
    print("skipped: " + message)
    sys.exit(77)

expected = json.load(open(os.path.join(source, "tests", "tokenizers", "real_expected.json")))
corpus = expected["texts"]
os.makedirs(work, exist_ok=True)
NEW = 8
PROMPT_LINE = 0  # "The lighthouse keeper counted gulls every morning before the fog rolled in."


def run(*args):
    r = subprocess.run([focal, *args], capture_output=True, text=True, timeout=300)
    return r


def write_json(path, content):
    with open(path, "w") as f:
        json.dump(content, f, indent=2)
        f.write("\n")


def load_tokenizer(name):
    return json.load(open(os.path.join(tokenizers, name, "tokenizer.json")))


# ---------------------------------------------------------------------------------------------
# Families: config.json (the real keys, tiny sizes), the reference model and generation_config.

def llama_like(model_type, arch, s, tied, eps, theta, extra, scaling=None, head_dim_key=True):
    model_config = dict(s, model_type=model_type, rms_norm_eps=eps, rope_theta=theta, tie_word_embeddings=tied)
    if scaling:
        model_config["rope_scaling"] = scaling
    sizes = s if head_dim_key else dec.without_head_dim(s)
    config = dec.config(model_type, arch, sizes, rms_norm_eps=eps, rope_theta=theta, tie_word_embeddings=tied,
                        **({"rope_scaling": scaling} if scaling else {}), **extra)
    return model_config, config


LLAMA32_SCALING = {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"}


def family_llama32():
    s = dec.sizes(128256, 16, 40, 2, 4, 2, 8)
    return llama_like("llama", "LlamaForCausalLM", s, True, 1e-5, 500000.0, dict(
        attention_bias=False, bos_token_id=128000, eos_token_id=[128001, 128008, 128009], hidden_act="silu",
        initializer_range=0.02, max_position_embeddings=131072, mlp_bias=False, pretraining_tp=1),
        LLAMA32_SCALING)


def family_qwen25():
    s = dec.sizes(151936, 16, 40, 2, 4, 2, 4)
    return llama_like("qwen2", "Qwen2ForCausalLM", s, True, 1e-6, 1000000.0, dict(
        bos_token_id=151643, eos_token_id=151645, hidden_act="silu", initializer_range=0.02,
        max_position_embeddings=32768, max_window_layers=2, rope_scaling=None, sliding_window=32768,
        use_sliding_window=False), head_dim_key=False)


def family_qwen3():
    s = dec.sizes(151936, 16, 40, 2, 4, 2, 8)  # head_dim 8, not 16 / 4 (Qwen3-0.6B: 128, not 1024 / 16)
    return llama_like("qwen3", "Qwen3ForCausalLM", s, True, 1e-6, 1000000.0, dict(
        attention_bias=False, bos_token_id=151643, eos_token_id=151645, hidden_act="silu", initializer_range=0.02,
        max_position_embeddings=40960, max_window_layers=2, rope_scaling=None, sliding_window=None,
        use_sliding_window=False))


def family_gemma():
    # Gemma 3's vocabulary (262144 and the image token 262144: 262208 as gemma-3-4b's config rounds it)
    s = dec.sizes(262208, 16, 32, 2, 2, 1, 8)
    return llama_like("gemma", "GemmaForCausalLM", s, True, 1e-6, 10000.0, dict(
        attention_bias=False, bos_token_id=2, eos_token_id=1, pad_token_id=0, hidden_act="gelu_pytorch_tanh",
        hidden_activation="gelu_pytorch_tanh", initializer_range=0.02, max_position_embeddings=8192))


def family_mistral():
    s = dec.sizes(32000, 32, 56, 2, 4, 2, 8)
    model_config, config = llama_like("llama", "MistralForCausalLM", s, False, 1e-5, 10000.0, dict(
        bos_token_id=1, eos_token_id=2, hidden_act="silu", initializer_range=0.02, max_position_embeddings=32768,
        sliding_window=4096), head_dim_key=False)
    config["model_type"] = "mistral"
    return model_config, config


def family_phi3():
    s = dec.sizes(32064, 32, 48, 2, 4, 4, 8)
    return llama_like("phi3", "Phi3ForCausalLM", s, False, 1e-5, 10000.0, dict(
        bos_token_id=1, eos_token_id=32000, pad_token_id=32000, hidden_act="silu", initializer_range=0.02,
        max_position_embeddings=4096, original_max_position_embeddings=4096, rope_scaling=None,
        sliding_window=2047, resid_pdrop=0.0, embd_pdrop=0.0, attention_bias=False), head_dim_key=False)


def family_smollm2():
    s = dec.sizes(50257, 16, 40, 2, 4, 2, 4)
    return llama_like("llama", "LlamaForCausalLM", s, True, 1e-5, 100000.0, dict(
        attention_bias=False, bos_token_id=50256, eos_token_id=50256, hidden_act="silu", initializer_range=0.02,
        max_position_embeddings=8192, mlp_bias=False, pretraining_tp=1), head_dim_key=False)


def family_gpt2():
    c = {"vocab_size": 50257, "n_embd": 32, "n_layer": 2, "n_head": 4, "n_positions": 1024,
         "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
    config = dict(c, architectures=["GPT2LMHeadModel"], model_type="gpt2", attn_pdrop=0.1, embd_pdrop=0.1,
                  resid_pdrop=0.1, bos_token_id=50256, eos_token_id=50256, initializer_range=0.02, n_ctx=1024,
                  n_inner=None, summary_activation=None, summary_first_dropout=0.1, summary_proj_to_labels=True,
                  summary_type="cls_index", summary_use_proj=True, task_specific_params={})
    return c, dict(sorted(config.items()))


# name, tokenizer folder, the folder in real_expected.json to compare with, preset, family builder,
# generation_config.json's ids
FAMILIES = [
    ("gpt2", "gpt2", "gpt2", "gpt2", family_gpt2, {"bos_token_id": 50256, "eos_token_id": 50256}),
    ("llama3.2", "llama3_2", "llama3", "llama", family_llama32,
     {"bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "do_sample": True, "temperature": 0.6,
      "top_p": 0.9}),
    ("qwen2.5", "qwen2_5", "qwen3", "qwen2", family_qwen25,
     {"bos_token_id": 151643, "eos_token_id": [151645, 151643], "pad_token_id": 151643, "do_sample": True,
      "repetition_penalty": 1.1, "temperature": 0.7, "top_k": 20, "top_p": 0.8}),
    ("gemma3-tokenizer", "gemma3", "gemma3", "gemma", family_gemma,
     {"bos_token_id": 2, "eos_token_id": [1, 106], "pad_token_id": 0, "cache_implementation": "hybrid",
      "do_sample": True, "top_k": 64, "top_p": 0.95}),
    ("mistral", "llama2", "llama2", "llama", family_mistral, {"bos_token_id": 1, "eos_token_id": 2}),
    ("phi3", "llama2", "llama2", "phi3", family_phi3,
     {"bos_token_id": 1, "eos_token_id": [32000, 32001, 32007], "pad_token_id": 32000}),
    ("smollm2", "gpt2", "gpt2", "llama", family_smollm2, {"bos_token_id": 50256, "eos_token_id": 50256}),
    ("qwen3", "qwen3", "qwen3", "qwen3", family_qwen3,
     {"bos_token_id": 151643, "eos_token_id": [151645, 151643], "pad_token_id": 151643, "do_sample": True,
      "temperature": 0.6, "top_k": 20, "top_p": 0.95}),
]


def eos_list(generation):
    e = generation["eos_token_id"]
    return e if isinstance(e, list) else [e]


# ---------------------------------------------------------------------------------------------
# Tokenizer checks

def merges(t):
    """The merges as pairs (newer files write ["a", "b"], older ones "a b")."""
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1)) for m in t["model"]["merges"]]


def options(t):
    """The BPE model's options, ignore_merges absent meaning false (the tokenizers default)."""
    return dict({"ignore_merges": False}, **{k: v for k, v in t["model"].items() if k not in ("vocab", "merges")})


def same_model(a, b):
    return a["model"]["vocab"] == b["model"]["vocab"] and merges(a) == merges(b) and options(a) == options(b) and \
        a.get("pre_tokenizer") == b.get("pre_tokenizer") and a.get("normalizer") == b.get("normalizer")


def template_prefix(t):
    """The special ids the post-processor puts before $A (TemplateProcessing, alone or in a Sequence)."""
    pp = t.get("post_processor") or {}
    steps = pp.get("processors", [pp]) if pp.get("type") == "Sequence" else [pp]
    for step in steps:
        if step.get("type") == "TemplateProcessing":
            prefix = []
            for piece in step["single"]:
                if "Sequence" in piece:
                    return prefix
                prefix += step["special_tokens"][piece["SpecialToken"]["id"]]["ids"]
    return []


def tokenize(model, text, *flags):
    r = run("tokenize", model, text, "--json", *flags)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["input_ids"]


def special_line(t):
    for i, line in enumerate(corpus):
        if any(a["special"] and a["content"] in line for a in t["added_tokens"]):
            return i
    return None


PLAIN_LINES = (0, 40, 120, 200, 260)  # English; and further corpus lines, whatever they hold


def check_tokenizer(model, t, tok_name, ref_name):
    """Returns a line for the table; asserts equality with the reference ids."""
    entry = expected["files"][ref_name]
    checked = 0
    if tok_name == ref_name:
        lines = list(PLAIN_LINES) + [i for i in (special_line(t),) if i is not None]
        for i in lines:
            assert tokenize(model, corpus[i]) == entry["ids"][i], (tok_name, i, corpus[i])
            assert tokenize(model, corpus[i], "--no-add-special") == entry["plain"][i], (tok_name, i, corpus[i])
            checked += 1
        return f"{checked} lines equal to {ref_name}'s reference ids"
    # The same BPE (vocabulary, merges, pre-tokenizer) as the file the reference was made from.
    assert same_model(t, load_tokenizer(ref_name)), (tok_name, "differs from", ref_name)
    ref_added = {a["content"] for a in load_tokenizer(ref_name)["added_tokens"]}
    prefix = template_prefix(t)
    for i in PLAIN_LINES:
        if any(a in corpus[i] for a in ref_added):
            continue
        assert tokenize(model, corpus[i], "--no-add-special") == entry["plain"][i], (tok_name, i)
        assert tokenize(model, corpus[i]) == prefix + entry["plain"][i], (tok_name, i, prefix)
        checked += 1
    # Special tokens written in the text, each one id, between two lines' reference ids.
    a, b = PLAIN_LINES[0], PLAIN_LINES[1]
    specials = [x for x in t["added_tokens"] if x["special"]][:3]
    for x in specials:
        text = corpus[a] + x["content"] + corpus[b]
        want = entry["plain"][a] + [x["id"]] + entry["plain"][b]
        assert tokenize(model, text, "--no-add-special") == want, (tok_name, x["content"])
    return f"{checked} lines equal to {ref_name}'s ids (same BPE), bos {prefix}, {len(specials)} specials in text"


# ---------------------------------------------------------------------------------------------
# The reference greedy continuation

def greedy(model, prompt, eos):
    ids, margins = ref.greedy(copy.deepcopy(model).double(), torch.tensor([prompt]), NEW)[::2]
    ids = ids.tolist()
    for i, token in enumerate(ids):
        if token in eos:  # focal generate stops at generation_config's eos, the token printed
            return ids[:i + 1], margins[:i + 1]
    return ids, margins


def make_model(preset, model_config, seed):
    torch.manual_seed(seed)
    if preset == "gpt2":
        model = ref.GPT2(model_config).eval()
        ref.randomize(model, 0.2, {"default": 0.2, "wte": 0.2, "wpe": 0.2})
    else:
        model = dec.CausalLM(model_config).eval()
        ref.randomize(model, 0.25, {"default": 0.25, "embed_tokens": 0.2, "lm_head": 0.2})
    return model


SYSTEM, USER = "You are terse.", "Tell me a joke."


def draw(preset, model_config, index, prompts, eos):
    """Weights drawn until the reference's greedy choices are separated (float32 vs float64)."""
    for attempt in range(10):
        model = make_model(preset, model_config, ref.BASE_SEED + 3300 + 100 * index + attempt)
        runs = {key: greedy(model, p, eos) for key, p in prompts.items()}
        if min(m.min().item() for _, m in runs.values()) >= 1e-3:
            break
    return attempt, model, {key: ids for key, (ids, _) in runs.items()}


def write_weights(folder, model):
    state = {k: v.detach().to(torch.float32).contiguous().clone() for k, v in model.state_dict().items()}
    write_safetensors(os.path.join(folder, "model.safetensors"), state)


def generated_ids(*args):
    r = run("generate", *args, "-n", str(NEW), "--seed", "1", "--ids")
    assert r.returncode == 0, r.stderr
    return [int(v) for v in r.stdout.split()]


def main():
    start = time.time()
    table, failures = [], []
    for index, (name, tok_name, ref_name, preset, family, generation) in enumerate(FAMILIES):
        folder = os.path.join(work, name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        model_config, config = family()
        t = load_tokenizer(tok_name)
        top = max([x["id"] for x in t["added_tokens"]] + [len(t["model"]["vocab"]) - 1])
        assert top < config["vocab_size"], (name, top, config["vocab_size"])
        eos = eos_list(generation)
        write_json(os.path.join(folder, "config.json"), config)
        write_json(os.path.join(folder, "generation_config.json"),
                   dict(generation, _from_model_config=False, transformers_version="4.46.0"))
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(os.path.join(tokenizers, tok_name, f), os.path.join(folder, f))
        write_weights(folder, make_model(preset, model_config, ref.BASE_SEED + 3300 + 100 * index))

        x = os.path.join(work, name + ".focal")
        r = run("convert", "--hf", folder, "-o", x)
        if r.returncode != 0:
            failures.append(f"{name}: focal convert --hf refused: {r.stderr.strip()}")
            table.append(f"{name}: not converted")
            continue
        assert f"--hf: preset {preset} (config.json model_type '{config['model_type']}')" in r.stderr, r.stderr
        if config.get("sliding_window") == 2047:  # Phi-3 mini's: the default context stays within it
            assert "the planned context is 2047, config.json's sliding_window 2047" in r.stderr, r.stderr
        tokenizer_line = check_tokenizer(x, t, tok_name, ref_name)

        # The prompts' ids: the text with the post-processor's bos (what focal generate --prompt
        # encodes, as transformers' generate gets it from the tokenizer), the same given as ids,
        # and the chat template as jinja2 renders it, encoded without added specials (as
        # transformers' apply_chat_template(tokenize=True)).
        prompt_text = corpus[PROMPT_LINE]
        plain = expected["files"][ref_name]["plain"][PROMPT_LINE]
        assert tokenize(x, prompt_text, "--no-add-special") == plain
        prompts = {"text": template_prefix(t) + plain}
        assert tokenize(x, prompt_text) == prompts["text"]  # focal tokenize adds them too
        if template_prefix(t):
            prompts["template"] = template_prefix(t) + plain
        tokenizer_config = json.load(open(os.path.join(folder, "tokenizer_config.json")))
        if tokenizer_config.get("chat_template"):
            messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}]
            rendered = render_chat(tokenizer_config, messages, True)
            prompts["chat"] = tokenize(x, rendered, "--no-add-special")
        attempt, model, want = draw(preset, model_config, index, prompts, eos)
        if attempt > 0:
            write_weights(folder, model)
            r = run("convert", "--hf", folder, "-o", x)
            assert r.returncode == 0, r.stderr

        r = run("generate", x, "--prompt", prompt_text, "-n", str(NEW), "--seed", "1")
        assert r.returncode == 0, r.stderr
        text = r.stdout
        assert text.strip(), (name, "no text came out")
        got = {"text": generated_ids(x, "--prompt", prompt_text)}
        if "template" in prompts:
            got["template"] = generated_ids(x, "--prompt-ids", ",".join(map(str, prompts["template"])))
        chat = ""
        if "chat" in prompts:
            got["chat"] = generated_ids(x, "--chat", USER, "--system", SYSTEM)
            # focal chat: the reply to a line of standard input is focal generate --chat's text.
            r = run("generate", x, "--chat", USER, "--system", SYSTEM, "-n", str(NEW), "--seed", "1")
            assert r.returncode == 0, r.stderr
            session = subprocess.run([focal, "chat", x, "--system", SYSTEM, "-n", str(NEW)], input=USER + "\n",
                                     capture_output=True, text=True, timeout=300)
            assert session.returncode == 0, session.stderr
            reply = session.stdout.split("\n")[0]
            assert reply.strip() and reply == r.stdout.rstrip("\n"), (name, reply, r.stdout)
            chat = f", chat reply {reply.strip()[:30]!r}"
        for key in prompts:
            assert got[key] == want[key], (name, key, "greedy ids", got[key], "PyTorch", want[key], prompts[key])
        table.append(f"{name} ({preset}, {tok_name} tokenizer, vocab {config['vocab_size']}): converted; "
                     f"{tokenizer_line}; greedy ids equal to PyTorch's for prompts {'/'.join(prompts)}; "
                     f"text {text.strip()[:30]!r}{chat}")
        print(table[-1], flush=True)
    print(f"{len(FAMILIES)} families in {time.time() - start:.1f} s")
    if failures:
        sys.exit("\n".join(failures))


main()
