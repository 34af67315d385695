#!/usr/bin/python3
"""The package behaves as Python users expect: focal.__version__ is the project's
version; repr() of a Model and a Session names the file, the family, the inputs and
outputs with dtypes and planned shapes; generate() takes text and gives text (ids give
ids), on a Model or a Session; detokenize() gives a str, U+FFFD for bytes that are not
UTF-8; a wrong keyword is a TypeError and a wrong value a ValueError, naming the
argument; reset() empties the KV caches and generate() leaves them empty, so run()
after generate() starts a new sequence; help() shows the docstrings; docs/python.md's
first session runs as written.
Model: the demo story model (demo/story), converted here. Expected text:
demo/story/prompts_expected.txt (greedy continuations recorded when it was trained).
Usage: test_pythonic.py SOURCE_DIR WORK_DIR (PYTHONPATH: the build's python/)"""
import json
import os
import pydoc
import re
import sys

import numpy as np

import focal

ROOT, WORK = sys.argv[1], sys.argv[2]
STORY = os.path.join(ROOT, "demo", "story")


def expect(kind, text, call):
    try:
        call()
    except kind as error:
        assert text in str(error), (kind.__name__, str(error), text)
        return
    raise AssertionError(f"no {kind.__name__} for {text!r}")


def version_is_the_projects():
    cmake = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    assert focal.__version__ == re.search(r"project\(focal VERSION ([0-9.]+)", cmake).group(1), focal.__version__
    print(f"focal.__version__: {focal.__version__}")


def reprs_describe(model, path):
    text = repr(model)
    for part in (repr(path), "gpt2", "875,264 parameters (f32)", "input_ids: i32[batch<=1, seq<=128]",
                 "logits: f32[batch<=1, 512]"):
        assert part in text, (part, text)
    session = focal.Session(model, threads=2)
    text = repr(session)
    for part in (repr(path), "(gpt2)", "threads=2", "MiB", "KV cache 0/128 tokens"):
        assert part in text, (part, text)
    assert "from bytes" in repr(focal.load(open(path, "rb").read()))
    assert str(model) == repr(model)
    print(f"repr: {model!r}\n      {session!r}")


def text_in_text_out(model):
    """Greedy continuations equal the ones recorded at training, as str; ids in, ids out."""
    session = focal.Session(model)
    for line in open(os.path.join(STORY, "prompts_expected.txt")):
        case = json.loads(line)
        n = len(case["continuation_ids"])
        text = session.generate(case["prompt"], max_new_tokens=n, end_id=-1)
        assert isinstance(text, str) and text == case["continuation"], (text, case["continuation"])
        assert model.generate(case["prompt"], max_new_tokens=n, end_id=-1) == text
        ids = session.generate(case["prompt_ids"], max_new_tokens=n, end_id=-1)
        assert ids == case["continuation_ids"], ids
        assert session.generate(np.array(case["prompt_ids"], np.int32), n, end_id=-1) == ids  # positional, an array
    assert session.generate("In the beginning", max_new=5, end_id=-1) == \
        session.generate("In the beginning", max_new_tokens=5, end_id=-1)  # the older name
    # The end token that stops a text generation is not part of the text; ids keep it.
    eos = 511  # demo/story/config.json's eos_token_id
    ids = session.generate(case["prompt_ids"], max_new_tokens=4, end_id=ids[2])
    assert ids == case["continuation_ids"][:3], ids
    text = session.generate(case["prompt"], max_new_tokens=4, end_id=ids[2])
    assert text == model.detokenize(ids[:2]), text
    assert model.detokenize([eos]) == "<|endoftext|>"
    print(f"generate: {case['prompt']!r} -> {text!r} (text in, text out; ids in, ids out)")


def detokenize_gives_text(model):
    assert model.detokenize(model.tokenize("In the beginning")) == "In the beginning"
    vocab = json.load(open(os.path.join(STORY, "vocab.json")))
    # GPT-2's byte-level alphabet writes byte 0xC3 (a UTF-8 lead byte) as U+00C3 'Ã'.
    lead = vocab["\u00c3"]
    assert model.detokenize([lead]) == "\ufffd"
    assert model.detokenize([40, lead, 77]) == model.detokenize([40]) + "\ufffd" + model.detokenize([77])
    expect(UnicodeDecodeError, "utf-8", lambda: model.detokenize([lead], errors="strict"))
    print("detokenize: str; an incomplete UTF-8 sequence becomes U+FFFD (errors='replace')")


def wrong_arguments_name_themselves(model):
    session = focal.Session(model)
    expect(TypeError, "Session.generate() got an unexpected keyword argument 'max_new_token'",
           lambda: session.generate("In", max_new_token=3))
    expect(TypeError, "Model.generate() got an unexpected keyword argument 'temprature'",
           lambda: model.generate("In", temprature=0.5))
    expect(TypeError, "convert() got an unexpected keyword argument 'dtyp'",
           lambda: focal.convert(preset="gpt2", dtyp="int8"))
    expect(TypeError, "bench() got an unexpected keyword argument 'sq'", lambda: focal.bench(model, sq=4))
    expect(TypeError, "thread=2", lambda: focal.Session(model, thread=2))
    expect(TypeError, "give max_new_tokens or its older name max_new, not both",
           lambda: session.generate("In", max_new_tokens=2, max_new=2))
    expect(TypeError, "max_new_tokens must be an int, not float", lambda: session.generate("In", 2.5))
    expect(TypeError, "temperature must be a number, not str", lambda: session.generate("In", temperature="hot"))
    expect(TypeError, "on_token must be callable", lambda: session.generate("In", on_token=3))
    expect(ValueError, "max_new_tokens must be from 1", lambda: session.generate("In", max_new_tokens=0))
    expect(ValueError, "temperature must be in [0.0, inf], not -1", lambda: session.generate("In", temperature=-1))
    expect(ValueError, "top_p must be in (0.0, 1.0], not 1.5", lambda: session.generate("In", top_p=1.5))
    expect(ValueError, "top_k must be from 0", lambda: session.generate("In", top_k=-2))
    expect(ValueError, "seed must be from 0", lambda: session.generate("In", seed=-1))
    expect(ValueError, "threads must be 1 to", lambda: focal.Session(model, threads=0))
    expect(ValueError, "max_seq must be 0", lambda: focal.Session(model, max_seq=-1))
    expect(ValueError, "max_seq: '-3' is not an integer", lambda: focal.convert(preset="gpt2", max_seq=-3))
    expect(ValueError, "unsupported dtype 'int3'", lambda: focal.convert(preset="gpt2", dtype="int3"))
    print("arguments: TypeError for a wrong name or type, ValueError for a wrong value, each naming the argument")


def caches_reset(model):
    """run() continues a sequence; reset() starts a new one; generate() leaves the caches
    empty, so run() after it equals run() on a fresh session."""
    session = focal.Session(model)
    ids = {"input_ids": np.array([[40, 77]], np.int32)}
    fresh = session.run(ids)["logits"].copy()
    assert session.cached_length == 2
    continued = session.run(ids)["logits"]
    assert session.cached_length == 4 and not np.array_equal(continued, fresh)
    session.reset()
    assert session.cached_length == 0 and np.array_equal(session.run(ids)["logits"], fresh)
    session.generate("In the beginning", max_new_tokens=3)
    assert session.cached_length == 0, session.cached_length
    assert np.array_equal(session.run(ids)["logits"], fresh)
    session.reset_state()  # the older name
    assert session.cached_length == 0
    print("caches: run() continues, reset() and generate() leave them empty")


def help_shows_docstrings(model):
    for thing, words in ((focal.Session, ["generate(prompt, max_new_tokens=16", "reset()", "run(inputs",
                                          "Tokens in the KV caches"]),
                         (focal.Model, ["detokenize(ids, target=False, errors=\"replace\")", "tokenize(",
                                        "generate(prompt, max_new_tokens=16"]),
                         (focal, ["focal.load", "TypeError"])):
        text = pydoc.render_doc(thing, renderer=pydoc.plaintext)
        for word in words:
            assert word in text, (thing, word)
    print("help(): Session, Model and the package show their docstrings")


def python_block(path, heading):
    """The first ```python block after `heading` in a Markdown file."""
    text = open(os.path.join(ROOT, path)).read()
    after = text[text.index(heading):]
    return after.split("```python\n", 1)[1].split("```", 1)[0]


def documented_examples_run():
    """docs/python.md's first session runs as written (tests/docs runs the others), from a
    directory holding demo/ (as the repository root does), and print what they say."""
    import contextlib
    import io
    here = os.path.join(WORK, "examples")
    os.makedirs(here, exist_ok=True)
    if not os.path.exists(os.path.join(here, "demo")):
        os.symlink(os.path.join(ROOT, "demo"), os.path.join(here, "demo"))
    previous = os.getcwd()
    os.chdir(here)
    try:
        for path, heading in (("docs/python.md", "## A first session"),):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(python_block(path, heading), path, "exec"), {})
            shown = printed.getvalue()
            assert " of the earth, and the righteousness of the earth" in shown, (path, shown[:400])
            assert "<focal.Model 'story.focal': gpt2, 875,264 parameters (f32)" in shown, (path, shown[:400])
    finally:
        os.chdir(previous)
    print("examples: docs/python.md's first session runs and prints what it says")


def main():
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, "story.focal")
    focal.convert(path, preset="gpt2", weights=os.path.join(STORY, "model.safetensors"),
                  config=os.path.join(STORY, "config.json"),
                  tokenizer=f"bpe:{STORY}/vocab.json:{STORY}/merges.txt")
    model = focal.load(path)
    version_is_the_projects()
    reprs_describe(model, path)
    text_in_text_out(model)
    detokenize_gives_text(model)
    wrong_arguments_name_themselves(model)
    caches_reset(model)
    help_shows_docstrings(model)
    documented_examples_run()


main()
