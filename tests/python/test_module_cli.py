#!/usr/bin/python3
"""The Python module against the focal tool: focal.convert writes the same bytes as
`focal convert`, Session.run gives the same bits as `focal run`, Session.generate and
Session.translate the same tokens as `focal generate --ids`, `python3 -m focal` is the
tool, and failures raise focal.Error with the tool's message. Models: the bundled demo
models (demo/) and a golden BERT (tests/goldens).
Usage: test_module_cli.py FOCAL SOURCE_DIR WORK_DIR (PYTHONPATH: the build's python/)"""
import json
import os
import subprocess
import sys

import numpy as np

import focal


def tool(*args, check=True):
    result = subprocess.run([FOCAL, *map(str, args)], capture_output=True, text=True)
    assert not check or result.returncode == 0, (args, result.stderr)
    return result


def converts_as_the_tool(name, **options):
    """focal.convert's bytes and file equal `focal convert`'s, option for option."""
    words = []
    for key, value in options.items():
        values = value if isinstance(value, list) else [value]
        for v in values:
            words += ["--" + key.replace("_", "-"), v]
    tool_path, module_path = f"{WORK}/{name}_tool.focal", f"{WORK}/{name}_module.focal"
    tool("convert", *words, "-o", tool_path)
    lines = []
    converted = focal.convert(module_path, progress=lines.append, **options)
    expected = open(tool_path, "rb").read()
    assert converted.bytes == expected, name
    assert open(module_path, "rb").read() == expected, name
    assert converted.self_tests >= 1 and lines, (converted.self_tests, lines)
    assert focal.convert(**options).bytes == expected  # no output file: the bytes only
    print(f"convert {name}: {len(expected)} bytes, identical to focal convert's")
    return tool_path


def runs_as_the_tool(path, inputs_dir, threads):
    """Session.run's outputs equal `focal run`'s .npy files bit for bit, in all three
    ways of returning them."""
    model = focal.load(path)
    inputs = {t.name: np.load(f"{inputs_dir}/{t.name}.npy") for t in model.inputs}
    out_dir = f"{WORK}/run_out"
    tool("run", path, *[w for n in inputs for w in ("--input", f"{n}={inputs_dir}/{n}.npy")],
         "--output-dir", out_dir, "--threads", threads)
    session = focal.Session(model, threads=threads)
    copies = session.run(inputs)
    assert sorted(copies) == sorted(t.name for t in model.outputs)
    written = {name: np.full_like(a, np.nan) for name, a in copies.items()}
    assert session.run(inputs, out=written) is written
    for name, got in copies.items():
        want = np.load(f"{out_dir}/{name}.npy")
        assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes(), name
        assert written[name].tobytes() == want.tobytes(), name
    views = session.run(inputs, view=True)
    assert all(v.tobytes() == copies[n].tobytes() and not v.flags.writeable for n, v in views.items())
    print(f"run {os.path.basename(os.path.dirname(path))}: {len(copies)} outputs as focal run's, bit for bit")


def loads_in_place(path):
    """A path and a read-only mmap are used in place; bytes (not 64-byte aligned) are
    copied; all three describe and run the same model."""
    import mmap
    with open(path, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    models = [focal.load(path), focal.load(mapped), focal.load(bytearray(mapped))]
    assert [m.zero_copy for m in models] == [True, True, False]
    assert len({repr((m.inputs, m.outputs, m.ops, m.symbols, m.size)) for m in models}) == 1
    ids = {"input_ids": np.array([[40, 77, 258]], np.int32)}
    assert len({focal.Session(m).run(ids)["logits"].tobytes() for m in models}) == 1
    m = models[0]
    assert [t.name for t in m.inputs] == ["input_ids"] and m.inputs[0].dims == ("batch", "seq"), m.inputs
    assert m.architecture == "gpt2" and m.ops[0].kind == "Embedding" and m.arena_bytes > 0
    assert m.detokenize(m.tokenize("In the beginning")) == "In the beginning"
    # A read-only view of a bytearray still changes with it: copied, so changing the
    # bytearray after load() leaves the model intact (it crashed the interpreter).
    import ctypes
    file_bytes = open(path, "rb").read()
    data = bytearray(len(file_bytes) + 64)
    start = -ctypes.addressof(ctypes.c_char.from_buffer(data)) % 64  # 64-byte aligned, as in-place needs
    data[start:start + len(file_bytes)] = file_bytes
    viewed = focal.load(memoryview(data)[start:start + len(file_bytes)].toreadonly())
    assert not viewed.zero_copy
    data[:] = bytes(len(data))
    assert focal.Session(viewed).run(ids)["logits"].tobytes() == focal.Session(models[0]).run(ids)["logits"].tobytes()
    print(f"load: path and read-only mmap in place, bytearray and its read-only views copied; {len(m.ops)} ops described")


def generates_as_the_tool(story, dates):
    session = focal.Session(focal.load(story))
    cases = [("In the beginning", 24, ()), ("And the LORD said unto Moses", 16,
                                            ("--temperature", "0.8", "--top-k", "40", "--top-p", "0.95", "--seed", "7"))]
    for prompt, n, sampling in cases:
        want = [int(x) for x in tool("generate", story, "--prompt", prompt, "--max-new", n, "--end-id", "-1",
                                     "--ids", *sampling).stdout.split()]
        kwargs = dict(zip([s.lstrip("-").replace("-", "_") for s in sampling[::2]], map(float, sampling[1::2])))
        kwargs = {k: int(v) if k in ("top_k", "seed") else v for k, v in kwargs.items()}
        streamed = []
        got = session.generate(session.model.tokenize(prompt), max_new=n, end_id=-1, on_token=streamed.append, **kwargs)
        assert got == want and streamed == want, (prompt, got, want)
        # Text in, text out: the same tokens, decoded.
        text = session.generate(prompt, max_new_tokens=n, end_id=-1, **kwargs)
        assert text == session.model.detokenize(want), (prompt, text)
    ids = session.model.tokenize("In the beginning")
    assert session.model.detokenize(session.generate(ids, max_new=24, end_id=-1)) == \
        session.generate("In the beginning", max_new=24, end_id=-1)
    stopped = session.generate(ids, max_new=24, on_token=lambda token: False)
    assert len(stopped) == 1, stopped
    print(f"generate story: {len(cases)} prompts (greedy, sampled) as focal generate's")

    session = focal.Session(focal.load(dates), max_batch=4)
    # The converter's metadata, listed by the engine's Model (no FlatBuffer walk here).
    assert session.model.hyperparameters == {"bos_id": "1", "eos_id": "2"}, session.model.hyperparameters
    for source in open(f"{ROOT}/demo/dates/examples.txt").read().split("\n")[:4]:
        for beam in (1, 4):
            want = [int(x) for x in tool("generate", dates, "--source", source, "--max-new", 12, "--beam", beam,
                                         "--ids", "--attention-out", f"{WORK}/alignment.npy").stdout.split()]
            got, alignment = session.translate(source, max_new=12, beam=beam)
            assert got == want, (source, beam, got, want)
            assert alignment.tobytes() == np.load(f"{WORK}/alignment.npy").tobytes(), source
    text = session.model.detokenize(got, target=True)
    print(f"translate dates: 4 sources, greedy and beam 4, tokens and alignment as focal generate's ({text!r})")


def long_tokens_print_whole(dates):
    """A token longer than 256 bytes is printed whole by focal generate and returned whole
    by detokenize (the printer's fixed 256-byte buffer dropped it, Python raised "decode
    buffer too small"): the dates model with its "-" target token spelled 300 times."""
    import json
    d = f"{ROOT}/demo/dates"
    vocab = json.load(open(f"{d}/vocab.json"))
    dash = vocab["target"].index("-")
    vocab["target"][dash] = "-" * 300
    json.dump(vocab, open(f"{WORK}/long_vocab.json", "w"))
    path = f"{WORK}/dates_long.focal"
    tool("convert", "--preset", "rnn-seq2seq", "--weights", f"{d}/model.pt", "--config", f"{d}/config.json",
         "--tokenizer", f"chars:{d}/vocab.json:source:lowercase",
         "--target-tokenizer", f"chars:{WORK}/long_vocab.json:target", "-o", path)
    source = open(f"{d}/examples.txt").read().split("\n")[0]
    ids = [int(x) for x in tool("generate", dates, "--source", source, "--max-new", 12, "--ids").stdout.split()]
    assert dash in ids, ids
    eos = vocab["target"].index("<eos>")
    ids = ids[:ids.index(eos)] if eos in ids else ids  # the printed text ends before eos
    want = focal.load(dates).detokenize(ids, target=True).replace("-", "-" * 300)
    printed = tool("generate", path, "--source", source, "--max-new", 12).stdout.strip()
    assert printed == want, (printed[:80], want[:80])
    assert focal.load(path).detokenize(ids, target=True) == want
    print(f"long tokens: a 300-byte token printed and detokenized whole ({len(want)} bytes)")


def expect_error(call, *texts):
    try:
        call()
    except focal.Error as error:
        assert all(t in str(error) for t in texts), (str(error), texts)
        return error
    raise AssertionError(f"no focal.Error for {texts}")


def huge_max_new_is_bounded(story, dates):
    """max_new far beyond what a model decodes costs nothing up front: translate sized
    its token and alignment buffers by max_new (5e7: 10 GB), generate reserved it
    (2**63 - 1: std::length_error from vector::reserve)."""
    import resource
    session = focal.Session(focal.load(dates))
    source = open(f"{ROOT}/demo/dates/examples.txt").read().split("\n")[0]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    tokens, alignment = session.translate(source, max_new=5 * 10**7)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert (tokens, alignment.tobytes()) == tuple(x if i == 0 else x.tobytes() for i, x in
                                                  enumerate(session.translate(source, max_new=12))), tokens
    assert grown < 64 * 1024, f"translate(max_new=5e7) grew the peak RSS by {grown} KiB"
    generator = focal.Session(focal.load(story))
    expect_error(lambda: generator.generate("In the beginning", max_new=2**63 - 1), "exceed the planned context")
    print(f"huge max_new: translate grew the peak RSS by {grown} KiB; generate refused with the plan's limit")


def expect_python_error(call, kind, text):
    try:
        call()
    except kind as error:
        assert text in str(error), (str(error), text)
        return
    raise AssertionError(f"no {kind.__name__} for {text}")


def failures_raise_the_engines_message(story):
    truncated = f"{WORK}/truncated.focal"
    open(truncated, "wb").write(open(story, "rb").read()[:5000])
    tool_message = tool("verify", truncated, check=False).stderr.strip().split(": ", 2)[-1]
    error = expect_error(lambda: focal.load(truncated), tool_message)
    assert error.code == "invalid model", error.code
    expect_error(lambda: focal.load(open(truncated, "rb").read()), tool_message)
    model = focal.load(story)
    session = focal.Session(model)
    expect_error(lambda: session.run({"nope": np.zeros((1, 2), np.int32)}), "has no input 'nope'")
    expect_error(lambda: session.run({"input_ids": np.zeros((1, 500), np.int32)}), "input 'input_ids'", "allows 1 to")
    expect_error(lambda: session.run({"input_ids": np.full((1, 2), 1 << 40)}), "outside int32")
    expect_error(lambda: session.run({"input_ids": np.zeros((1, 2), np.float32)}), "integer ids")
    good = {"input_ids": np.array([[40, 77]], np.int32)}
    expect_error(lambda: session.run(good, out={"logits": np.zeros((1, 3), np.float32)}), "out['logits']", "shape")
    expect_error(lambda: session.run_stage("decode", good), "no stage 'decode'")
    expect_error(lambda: session.generate([1], max_new=10**6), "exceed the planned context")
    expect_python_error(lambda: focal.convert(preset="gpt2", weights=f"{ROOT}/demo/story/model.safetensors",
                                              frobnicate=3),
                        TypeError, "convert() got an unexpected keyword argument 'frobnicate'")
    expect_error(lambda: focal.convert(preset="nope", weights=f"{ROOT}/demo/story/model.safetensors"), "nope")
    expect_error(lambda: focal.Session(model, max_seq=10**6), "exceeds the model's planned maximum")
    # A tokenizer larger than the token table is refused at conversion (it converted and
    # failed at the first generation).
    import json
    s = f"{ROOT}/demo/story"
    vocab = json.load(open(f"{s}/vocab.json"))
    vocab.update({f"extra{i}": len(vocab) + i for i in range(10)})
    json.dump(vocab, open(f"{WORK}/big_vocab.json", "w"))
    expect_error(lambda: focal.convert(preset="gpt2", weights=f"{s}/model.safetensors", config=f"{s}/config.json",
                                       tokenizer=f"bpe:{WORK}/big_vocab.json:{s}/merges.txt"),
                 f"the tokenizer has {len(vocab)} tokens but 'input_ids' feeds token table")
    # Arguments of the wrong type or value: TypeError and ValueError naming the argument,
    # as Python's own functions raise them (pybind11 said "Unable to cast Python instance").
    expect_python_error(lambda: session.generate("In the", max_new=2, end_id="x"), TypeError, "end_id must be an int")
    expect_python_error(lambda: session.generate("In the", max_new=2, end_id=2**40), ValueError, "end_id must be a token id")
    expect_python_error(lambda: session.generate("a \ud800 b", max_new=2), ValueError, "prompt: the text holds a lone surrogate")
    expect_python_error(lambda: session.generate([1, "2"], max_new=2), TypeError, "prompt must be an int token id, not str")
    expect_python_error(lambda: session.generate(3.5, max_new=2), TypeError, "prompt must be a str or a sequence")
    in_the = model.tokenize("In the")
    assert len(session.generate(in_the, max_new=4, end_id=-1, on_token=lambda token: 0)) == 1  # falsy: stop
    assert len(session.generate(in_the, max_new=4, end_id=-1, on_token=lambda token: "yes")) == 4  # truthy: go on
    assert session.generate(np.array([40, 77], np.int32), max_new=2) == session.generate([40, 77], max_new=2)
    print("failures: focal.Error with the engine's message (loader, inputs, outputs, stages, options); "
          "TypeError and ValueError naming the argument")


def command_line_is_the_tool(story):
    module = [sys.executable, "-m", "focal"]
    for args in (["verify", story], ["inspect", story], ["--help"], ["run", "--help"], ["--version"],
                 ["generate", story, "--max-new", "3", "-h"], ["verify", story, "--version"]):
        got = subprocess.run(module + args, capture_output=True, text=True)
        want = tool(*args)
        assert (got.returncode, got.stdout, got.stderr) == (0, want.stdout, want.stderr), args
    got = subprocess.run(module + ["verify"], capture_output=True, text=True)
    want = tool("verify", check=False)
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr) and got.returncode == 2
    assert focal.verify(story)["passed"]
    report = focal.bench(story, prompt=4, gen=4, warmup=0, repeat=2, peak=False)
    assert report["schema"] == "focal-bench/1" and report["mode"] == "decoder", report
    expect_error(lambda: focal.bench(story, prompt=10**6, peak=False), "--prompt")
    # --version names the version the module reports; help anywhere among the arguments.
    version = tool("--version").stdout
    assert version.startswith(f"focal {focal.__version__} (Apache-2.0)\nkernels here: f32 "), version
    assert focal.__version__.count(".") == 2, focal.__version__
    assert tool("generate", story, "--max-new", "3", "--help").stdout == tool("generate", "--help").stdout
    # llama.cpp's short flags, and the prompt from a file or standard input (one trailing
    # newline dropped), give the long form's tokens.
    long_form = tool("generate", story, "--prompt", "In the beginning", "--max-new", 6, "--temperature", "0.8",
                     "--seed", 3, "--threads", 2, "--ids").stdout
    assert tool("generate", "-m", story, "-p", "In the beginning", "-n", 6, "--temperature", "0.8", "-s", 3, "-t", 2,
                "--ids").stdout == long_form
    open(f"{WORK}/prompt.txt", "w").write("In the beginning\n")
    assert tool("generate", "-m", story, "-f", f"{WORK}/prompt.txt", "-n", 6, "--temperature", "0.8", "-s", 3,
                "--ids").stdout == long_form
    piped = subprocess.run([FOCAL, "generate", "-m", story, "-f", "-", "-n", "6", "--temperature", "0.8", "-s", "3",
                            "--ids"], input="In the beginning\n", capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stdout == long_form, piped.stderr
    print("python3 -m focal: verify, inspect, help and --version as the tool; focal.verify and focal.bench")


def tokenizes_as_the_tool(story):
    """focal tokenize (table, --ids, --json, -f -) and Model.tokenize give the same ids;
    <|endoftext|> typed in the text is its one special id, or plain text with
    --no-parse-special / parse_special=False."""
    model = focal.load(story)
    text = "In the beginning<|endoftext|> God"
    out = json.loads(tool("tokenize", story, text, "--json").stdout)
    assert out["input_ids"] == model.tokenize(text) == model.tokenize(text, add_special_tokens=False), out
    assert out["tokens"].count("<|endoftext|>") == 1, out
    eos = out["input_ids"][out["tokens"].index("<|endoftext|>")]
    plain = json.loads(tool("tokenize", "-m", story, "-p", text, "--json", "--no-parse-special").stdout)
    assert plain["input_ids"] == model.tokenize(text, parse_special=False), plain
    assert eos not in plain["input_ids"] and len(plain["input_ids"]) > len(out["input_ids"]), plain
    assert model.detokenize(plain["input_ids"]) == model.detokenize(out["input_ids"]) == text
    assert tool("tokenize", story, text, "--ids").stdout == str(out["input_ids"]) + "\n"
    piped = subprocess.run([FOCAL, "tokenize", story, "-f", "-"], input=text + "\n", capture_output=True, text=True)
    lines = piped.stdout.splitlines()
    assert piped.returncode == 0 and len(lines) == len(out["input_ids"]), piped
    assert f"{eos} -> '<|endoftext|>'" in [line.strip() for line in lines], lines
    assert tool("tokenize", story, check=False).returncode == 2  # no text
    assert tool("tokenize", story, text, "--ids", "--json", check=False).returncode == 2
    print(f"focal tokenize: {len(out['input_ids'])} ids as Model.tokenize, <|endoftext|> parsed or plain text")


# SmolLM2's chat template (ChatML with a default system message), with the story model's
# vocabulary: the prompt's markers are not its tokens, which the plumbing does not mind.
SMOLLM2_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\\n' }}"
    "{% endif %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")


def render_with_jinja2(messages):
    import jinja2.sandbox  # Debian's python3-jinja2, as transformers renders templates
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    return env.from_string(SMOLLM2_TEMPLATE).render(messages=messages, add_generation_prompt=True)


def chats_in_the_template(story):
    """A chat_template beside tokenizer.json is stored at conversion; apply_chat_template,
    focal generate --chat and focal chat render it as jinja2 does, and each chat reply is
    what focal generate gives for the rendered conversation."""
    folder = f"{WORK}/chat_tokenizer"
    os.makedirs(folder, exist_ok=True)
    with open(f"{ROOT}/tests/tokenizers/story_bpe.tokenizer.json") as src, open(f"{folder}/tokenizer.json", "w") as dst:
        dst.write(src.read())
    json.dump({"chat_template": SMOLLM2_TEMPLATE, "eos_token": "<|endoftext|>"}, open(f"{folder}/tokenizer_config.json", "w"))
    s, model_path = f"{ROOT}/demo/story", f"{WORK}/chat_story.focal"
    converted = tool("convert", "--preset", "gpt2", "--weights", f"{s}/model.safetensors", "--config", f"{s}/config.json",
                     "--tokenizer", f"hf:{folder}/tokenizer.json", "-o", model_path)
    assert "chat_template: chatml format" in converted.stderr, converted.stderr
    model = focal.load(model_path)
    system = {"role": "system", "content": "Be brief."}
    for messages in ([system, {"role": "user", "content": "In the beginning"}],
                     [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi."},
                      {"role": "user", "content": "And then?"}]):
        assert model.apply_chat_template(messages) == render_with_jinja2(messages), messages
    expect_error(lambda: focal.load(story).apply_chat_template([system]), "no chat format")
    for bad in ([{"role": "user"}], [{"role": "user", "content": 3}], ["hello"]):
        try:
            model.apply_chat_template(bad)
            raise AssertionError(f"no TypeError for {bad}")
        except TypeError:
            pass

    def rendered_ids(messages):  # the rendered conversation encoded without added specials, as a chat prompt is
        return ",".join(map(str, model.tokenize(render_with_jinja2(messages), add_special_tokens=False)))

    def greedy(messages):  # focal generate on the rendered conversation: the reply's text
        ids = [int(t) for t in tool("generate", model_path, "--prompt-ids", rendered_ids(messages), "-n", 3,
                                    "--ids").stdout.split()]
        eos = model.tokenize("<|endoftext|>")
        return model.detokenize([t for t in ids if t not in eos])

    first = [system, {"role": "user", "content": "In the beginning"}]
    chat_ids = tool("generate", model_path, "--chat", "In the beginning", "--system", "Be brief.", "-n", 6, "--ids").stdout
    prompt_ids = tool("generate", model_path, "--prompt-ids", rendered_ids(first), "-n", 6, "--ids").stdout
    assert chat_ids == prompt_ids, (chat_ids, prompt_ids)
    # (The story model holds 128 positions; the markers take many of its tokens.)
    short = {"role": "system", "content": "Be."}
    session = subprocess.run([FOCAL, "chat", model_path, "--system", "Be.", "-n", "3"],
                             input="Hi\nGo\n", capture_output=True, text=True, timeout=120)
    assert session.returncode == 0, session.stderr
    replies = session.stdout.split("\n")
    assert len(replies) == 3 and replies[2] == "", replies
    opening = [short, {"role": "user", "content": "Hi"}]
    assert replies[0] == greedy(opening), (replies[0], greedy(opening))
    second = opening + [{"role": "assistant", "content": replies[0]}, {"role": "user", "content": "Go"}]
    assert replies[1] == greedy(second), (replies[1], greedy(second))
    print(f"chat: chatml template as jinja2 renders it; focal chat replies {replies[:2]} as focal generate's")


def main():
    os.makedirs(WORK, exist_ok=True)
    s, d = f"{ROOT}/demo/story", f"{ROOT}/demo/dates"
    story = converts_as_the_tool("story", preset="gpt2", weights=f"{s}/model.safetensors", config=f"{s}/config.json",
                                 tokenizer=f"bpe:{s}/vocab.json:{s}/merges.txt")
    dates = converts_as_the_tool("dates", preset="rnn-seq2seq", weights=f"{d}/model.pt", config=f"{d}/config.json",
                                 tokenizer=f"chars:{d}/vocab.json:source:lowercase",
                                 target_tokenizer=f"chars:{d}/vocab.json:target", max_batch="4")
    bert = f"{ROOT}/tests/goldens/bert_l2_d32_h4"
    for threads in (1, 2):
        runs_as_the_tool(f"{bert}/model.focal", f"{bert}/inputs", threads)
    loads_in_place(story)
    generates_as_the_tool(story, dates)
    long_tokens_print_whole(dates)
    huge_max_new_is_bounded(story, dates)
    failures_raise_the_engines_message(story)
    command_line_is_the_tool(story)
    tokenizes_as_the_tool(story)
    chats_in_the_template(story)


if __name__ == "__main__":
    FOCAL, ROOT, WORK = sys.argv[1:4]
    main()
