#!/usr/bin/python3
"""Writes the seed corpora of fuzz_tokenizer_json, fuzz_sentencepiece_model and
fuzz_hf_config (tests/fuzz/corpus/<harness>/) from tests/tokenizers: the tokenizer.json
files cut down to a few hundred pieces (small seeds keep libFuzzer fast and its length
limit low), some with a tokenizer_config.json holding a chat template in the style of
Llama 3, 3.1, Qwen2.5, Qwen3 and Gemma 3; the .model files cut down to their first
pieces, and those truncated; a unigram one and a tokenizer.json with a one-block
SentencePiece character map (Precompiled); a few config.json / generation_config.json pairs.

Usage: tests/fuzz/make_tokenizer_seeds.py (from anywhere; rewrites the seeds in the three folders)
"""
import base64
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOKENIZERS = os.path.join(HERE, "..", "tokenizers")
CORPUS = os.path.join(HERE, "corpus")
sys.path.insert(0, os.path.join(HERE, "..", "support"))
import protobuf_wire as wire  # noqa: E402
CONFIG_SPLIT = b"\n--tokenizer_config.json--\n"
GENERATION_SPLIT = b"\n--generation_config.json--\n"


def fresh(name):
    """The harness's corpus folder. Seeds are overwritten in place, not the folder
    removed: it also keeps the inputs of past findings (e.g. added_token_id_1e126)."""
    path = os.path.join(CORPUS, name)
    os.makedirs(path, exist_ok=True)
    return path


def dump(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def cut_tokenizer_json(name, keep):
    """The tokenizer.json with the pieces of id < keep (and the merges among them)."""
    with open(os.path.join(TOKENIZERS, name), encoding="utf-8") as f:
        t = json.load(f)
    model = t["model"]
    if isinstance(model["vocab"], dict):
        model["vocab"] = {piece: i for piece, i in model["vocab"].items() if i < keep}
        kept = set(model["vocab"])
        merges = []
        for merge in model.get("merges") or []:
            a, b = merge.split(" ", 1) if isinstance(merge, str) else merge
            if a in kept and b in kept and a + b in kept:
                merges.append(merge)
        if "merges" in model:
            model["merges"] = merges[:keep]
    else:  # Unigram: [[piece, score], ...]
        model["vocab"] = model["vocab"][:keep]
        if model.get("unk_id") is not None and model["unk_id"] >= keep:
            model["unk_id"] = 0
    t["added_tokens"] = [a for a in t["added_tokens"] if a["id"] < keep]
    return t


# Chat templates in the style of the real ones (the markers the converter recognizes).
LLAMA3 = ("{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = "
          "'<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + "
          "'<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}"
          "{{ content }}{% endfor %}{% if add_generation_prompt %}"
          "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}")
LLAMA31 = ("{{- bos_token }}{%- if messages[0]['role'] == 'system' %}{%- set system_message = "
           "messages[0]['content']|trim %}{%- set messages = messages[1:] %}{%- else %}{%- set system_message = "
           "\"\" %}{%- endif %}{{- \"<|start_header_id|>system<|end_header_id|>\\n\\n\" }}{{- \"Cutting Knowledge "
           "Date: December 2023\\n\" }}{{- \"Today Date: \" + date_string + \"\\n\\n\" }}{{- system_message }}"
           "{{- \"<|eot_id|>\" }}{%- for message in messages %}{{- '<|start_header_id|>' + message['role'] + "
           "'<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}{%- endfor %}"
           "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}")
QWEN25 = ("{%- if messages[0]['role'] == 'system' %}{{- '<|im_start|>system\\n' + messages[0]['content'] + "
          "'<|im_end|>\\n' }}{%- else %}{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a "
          "helpful assistant.<|im_end|>\\n' }}{%- endif %}{%- for message in messages %}{%- if (message.role == "
          "\"user\") or (message.role == \"system\" and not loop.first) or (message.role == \"assistant\") %}"
          "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}{%- endif %}"
          "{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}")
QWEN3 = ("{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}"
         "{%- for message in messages %}{%- if message.role == \"assistant\" and loop.index0 > ns.last_query_index %}"
         "{{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + "
         "'\\n</think>\\n\\n' + content.lstrip('\\n') }}{%- else %}{{- '<|im_start|>' + message.role + '\\n' + "
         "message.content }}{%- endif %}{{- '<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}"
         "{{- '<|im_start|>assistant\\n' }}{%- endif %}")
GEMMA3 = ("{{ bos_token }}{%- if messages[0]['role'] == 'system' -%}{%- set first_user_prefix = "
          "messages[0]['content'] + '\\n\\n' -%}{%- set loop_messages = messages[1:] -%}{%- else -%}"
          "{%- set first_user_prefix = \"\" -%}{%- set loop_messages = messages -%}{%- endif -%}"
          "{%- for message in loop_messages -%}{%- if (message['role'] == 'assistant') -%}{%- set role = \"model\" -%}"
          "{%- else -%}{%- set role = message['role'] -%}{%- endif -%}{{ '<start_of_turn>' + role + '\\n' + "
          "(first_user_prefix if loop.first else \"\") }}{{ message['content'] | trim }}{{ '<end_of_turn>\\n' }}"
          "{%- endfor -%}{%- if add_generation_prompt -%}{{'<start_of_turn>model\\n'}}{%- endif -%}")


def tiny_charsmap():
    """A SentencePiece precompiled_charsmap of one Darts-clone block (256 units): "a" -> " x ",
    "ab" -> "yy" (the layout tests/test_sentencepiece_charsmap.cpp builds by hand)."""
    units = [0] * 256

    def unit(offset, leaf, label):
        return offset << 10 | (1 << 8 if leaf else 0) | label
    units[0x61] = unit(0x61 ^ 0x80, True, 0x61)
    units[0x80] = 0x80000000 | 1
    units[0x80 ^ 0x62] = unit((0x80 ^ 0x62) ^ 0x90, True, 0x62)
    units[0x90] = 0x80000000 | 5
    trie = b"".join(u.to_bytes(4, "little") for u in units)
    return len(trie).to_bytes(4, "little") + trie + b"\0 x \0yy\0"


def tokenizer_json_seeds():
    out = fresh("fuzz_tokenizer_json")
    seeds = {
        "story_bpe": cut_tokenizer_json("story_bpe.tokenizer.json", 512),
        "kjv_bpe_spm": cut_tokenizer_json("kjv_bpe_spm.tokenizer.json", 300),
        "kjv_unigram_spm": cut_tokenizer_json("kjv_unigram_spm.tokenizer.json", 200),
        "kjv_wordpiece": cut_tokenizer_json("kjv_wordpiece.tokenizer.json", 200),
        "bert_cased_strip": cut_tokenizer_json("bert_cased_strip.tokenizer.json", 200),
        "bert_lower_keep": cut_tokenizer_json("bert_lower_keep.tokenizer.json", 200),
    }
    precompiled = json.loads(dump(seeds["kjv_unigram_spm"]))  # T5's normalizer, a tiny map
    precompiled["normalizer"] = {"type": "Precompiled",
                                 "precompiled_charsmap": base64.b64encode(tiny_charsmap()).decode()}
    seeds["precompiled_unigram"] = precompiled
    for name, t in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(dump(t))
    templates = [("llama3", LLAMA3, {"content": "<|begin_of_text|>"}), ("llama3_1", LLAMA31, "<|begin_of_text|>"),
                 ("qwen2_5", QWEN25, None), ("qwen3", QWEN3, None), ("gemma3", GEMMA3, "<bos>")]
    bases = ["story_bpe", "kjv_bpe_spm", "kjv_unigram_spm", "kjv_bpe_spm", "kjv_unigram_spm"]
    for (family, template, bos), base in zip(templates, bases):
        config = {"bos_token": bos, "chat_template": template}
        if family == "qwen3":  # the list form: [{"name", "template"}]
            config["chat_template"] = [{"name": "default", "template": template}, {"name": "tool_use", "template": ""}]
        with open(os.path.join(out, "chat_" + family), "wb") as f:
            f.write(dump(seeds[base]) + CONFIG_SPLIT + dump(config))
    # Hostile shapes: nesting past the reader's bound, a wrong type where a list belongs.
    with open(os.path.join(out, "deep_nesting"), "wb") as f:
        f.write(b"[" * 200 + b"]" * 200)
    wrong = json.loads(dump(seeds["kjv_unigram_spm"]))
    wrong["model"]["vocab"][3] = ["piece", "not a score"]
    with open(os.path.join(out, "wrong_type"), "wb") as f:
        f.write(dump(wrong) + CONFIG_SPLIT + b'{"chat_template": 7}')


def sentencepiece_seeds():
    out = fresh("fuzz_sentencepiece_model")
    for name, keep in [("kjv_bpe_spm.model", 320), ("kjv_unigram_spm.model", 120)]:
        with open(os.path.join(TOKENIZERS, name), "rb") as f:
            data = f.read()
        stem = name[:-len(".model")]
        pieces, cut = 0, []
        for number, _, _, raw in wire.fields(data):
            if number == 1:  # ModelProto.pieces
                pieces += 1
                if pieces > keep:
                    continue
            cut.append(raw)
        cut = b"".join(cut)
        with open(os.path.join(out, stem + "_cut"), "wb") as f:
            f.write(cut)
        with open(os.path.join(out, stem + "_truncated"), "wb") as f:
            f.write(cut[:len(cut) // 2])
        if stem == "kjv_unigram_spm":  # a second NormalizerSpec (field 3) holding a character map
            with open(os.path.join(out, stem + "_charsmap"), "wb") as f:
                f.write(cut + wire.length_delimited(3, wire.length_delimited(2, tiny_charsmap())))


def hf_config_seeds():
    out = fresh("fuzz_hf_config")
    configs = {
        "bert": ({"architectures": ["BertModel"], "model_type": "bert", "hidden_size": 32, "vocab_size": 100,
                  "pad_token_id": 0}, None),
        "llama": ({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "bos_token_id": 1,
                   "eos_token_id": 2, "rope_theta": 10000.0}, {"bos_token_id": 1, "eos_token_id": [2, 3, 128009]}),
        "marian": ({"architectures": ["MarianMTModel"], "model_type": "marian", "decoder_start_token_id": 5,
                    "pad_token_id": 5, "eos_token_id": 0}, {"decoder_start_token_id": 5, "pad_token_id": 5}),
        "gpt2": ({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "bos_token_id": 50256},
                 {"bos_token_id": 50256, "eos_token_id": 50256, "pad_token_id": None}),
        "unknown": ({"model_type": "something_else", "architectures": "NotAList"}, {"eos_token_id": "two"}),
    }
    for name, (config, generation) in configs.items():
        data = dump(config)
        if generation is not None:
            data += GENERATION_SPLIT + dump(generation)
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


tokenizer_json_seeds()
sentencepiece_seeds()
hf_config_seeds()
