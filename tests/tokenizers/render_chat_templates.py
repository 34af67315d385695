#!/usr/bin/python3
"""Renders the real chat templates of the fetched tokenizer_config.json files
(scripts/fetch-data) with Debian's python3-jinja2, as transformers' apply_chat_template
does (src/transformers/tokenization_utils_base.py, 4.36-4.46: an ImmutableSandboxedEnvironment
with trim_blocks and lstrip_blocks, the loopcontrols extension, raise_exception as a global,
bos_token and eos_token from the config; no strftime_now, so Llama 3.1+ templates write
their own default date), for tests/test_chat_templates.cpp to compare byte for byte.

Usage: render_chat_templates.py OUT.json (the data as scripts/fetch-data places it:
$FOCAL_DATA_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/focal-data)
Writes [{"family", "tokenizer_json", "cases": [{"messages", "add_generation_prompt",
"rendered"}]}] for every family folder that has a chat_template.
"""
import json
import os
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

FAMILIES = ["llama3", "llama3_1", "llama3_2", "qwen2_5", "qwen3", "gemma3"]

CONVERSATIONS = [
    ([("system", "You are terse."), ("user", " Hi there! "), ("assistant", "Hello.\n"), ("user", "Tell me a joke.")],
     True),
    ([("user", "Ünïcödé — 你好 👋 Привет"), ("assistant", "  spaced  "), ("user", "\tTabs\tand\nnewlines\n")], True),
    ([("system", "  Padded system.  \n"), ("user", "One question?")], True),
    ([("user", "Just one.")], True),
    ([("user", "No generation prompt."), ("assistant", "Fine.")], False),
]


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def token_text(token):
    return token.get("content") if isinstance(token, dict) else token


def render(config, messages, add_generation_prompt):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.globals["raise_exception"] = raise_exception
    template = config["chat_template"]
    if isinstance(template, list):
        template = next(t["template"] for t in template if t["name"] == "default")
    return env.from_string(template).render(messages=messages, add_generation_prompt=add_generation_prompt,
                                            bos_token=token_text(config.get("bos_token")),
                                            eos_token=token_text(config.get("eos_token")))


def main():
    out = sys.argv[1]
    data = os.environ.get("FOCAL_DATA_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "focal-data")
    families = []
    for family in FAMILIES:
        folder = os.path.join(data, "tokenizers", family)
        path = os.path.join(folder, "tokenizer_config.json")
        if not os.path.exists(path):
            continue
        config = json.load(open(path, encoding="utf-8"))
        if not config.get("chat_template"):
            continue
        cases = []
        for turns, add in CONVERSATIONS:
            messages = [{"role": role, "content": content} for role, content in turns]
            cases.append({"messages": messages, "add_generation_prompt": add, "rendered": render(config, messages, add)})
        families.append({"family": family, "tokenizer_json": os.path.join(folder, "tokenizer.json"), "cases": cases})
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(families, f, ensure_ascii=False)
    os.replace(out + ".tmp", out)
    print(f"{len(families)} chat templates rendered with jinja2 {jinja2.__version__}")


if __name__ == "__main__":
    main()
