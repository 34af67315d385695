"""focal from Python: convert checkpoints, load and inspect .focal models, run them on
NumPy arrays, generate and translate, verify and benchmark.

    import focal
    focal.convert(preset="gpt2", weights="model.safetensors", config="config.json",
                  tokenizer="bpe:vocab.json:merges.txt", output="story.focal")
    model = focal.load("story.focal")            # mapped, verified, used in place
    print(model)                                 # file, family, inputs and outputs
    text = model.generate("In the beginning", max_new_tokens=20)   # str in, str out
    session = focal.Session(model)
    ids = session.generate(model.tokenize("In the beginning"), max_new_tokens=20)   # ids in, ids out
    outputs = session.run({"input_ids": np.array([[464, 2068]], np.int32)})
    session.reset()                              # run() continues a sequence until reset()

Every failure of the engine raises focal.Error (a RuntimeError) with its message; its
.code names the status code. A wrong argument raises TypeError (a wrong type, an unknown
keyword) or ValueError (a wrong value), naming the argument. Engine calls release the GIL. A Session serves one thread at a
time (a second thread entering a call in flight gets focal.Error): give each thread its
own Session, or hold a lock. Sessions on different threads run in parallel.

Arrays: an input that is a C-contiguous array of the input's dtype (float32; int32 for
token ids) is read in place; anything else is converted once (floats to float32,
integers to int32, refused when a value does not fit). Session.run returns new arrays;
with out={name: array} it writes into the caller's arrays instead (nothing allocated per
run); with view=True it returns read-only views of the session's arena, valid until its
next run.
"""
import os

from . import _describe, _focal, _generation  # noqa: F401  (_describe and _generation add methods)
from ._focal import Conversion, Error, Model, Op, Session, Tensor, __version__, presets

__all__ = ["Conversion", "Error", "Model", "Op", "Session", "Tensor", "__version__", "bench", "convert", "load", "main",
           "presets", "verify"]


def load(source):
    """A verified Model from a path (mapped read-only: zero copy) or from bytes-like data
    (used in place when immutable and 64-byte aligned: bytes or a read-only mmap; else,
    a bytearray or a view of one included, copied once into an aligned block)."""
    if isinstance(source, (str, os.PathLike)):
        return _focal._load_path(os.fspath(source))
    return _focal._load_buffer(source)


def _option_values(name, value):
    """The command-line words for one keyword argument of convert()."""
    flag = "--" + name.replace("_", "-")
    if name in ("set", "rename"):  # NAME=VALUE pairs, repeatable, in order
        pairs = value.items() if isinstance(value, dict) else (item.split("=", 1) for item in value)
        return [w for key, v in pairs for w in (flag, f"{key}={_config_text(v)}")]
    if name == "weights":
        return [w for path in ([value] if isinstance(value, (str, os.PathLike)) else value)
                for w in (flag, os.fspath(path))]
    if name == "self_test" and value is False:
        return ["--no-self-test"]
    if value is True:
        return [flag]
    if value is False or value is None:
        return []
    if name == "keep_f32" and not isinstance(value, str):
        value = ",".join(value)
    return [flag, os.fspath(value) if isinstance(value, os.PathLike) else _config_text(value)]


def _config_text(value):
    """A value as `focal convert` reads it: true/false/null, numbers exactly (repr)."""
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return "null"
    return repr(value) if isinstance(value, float) else str(value)


def _keyword_error(function, message):
    """The command line's "unknown option '--max-sq'" as Python says it: a TypeError
    naming the keyword (the parser is the one source of the options there are)."""
    prefix = "unknown option '--"
    if message.startswith(prefix):
        name = message[len(prefix):].split("'")[0].replace("-", "_")
        return TypeError(f"{function}() got an unexpected keyword argument '{name}'")
    return None


def convert(output=None, *, progress=None, **options):
    """Converts checkpoints as `focal convert` does, with its options as keyword
    arguments (dashes as underscores): preset="auto", spec=, weights= (a path or a list),
    hf=DIR (a Hugging Face folder as downloaded, in place of weights and config),
    config=, set={"nhead": 4} (or ["nhead=4"]), rename={FROM: TO}, dtype="int8",
    embedding_dtype=, max_seq=, max_batch=, logits="all", strict=True, self_test=DIR or
    False, self_test_tolerance=, tokenizer=, target_tokenizer=, activations="int8",
    keep_f32="auto" (or a list of names), keep_f32_threshold=, calibration=DIR,
    quantize="static" (int8 activations throughout, for the RNN classifiers),
    fit="ram=64K,flash=256K" (the most accurate choice that fits a microcontroller).
    Writes `output` when given (atomically, never over an input). progress(line) is
    called at each stage. Returns a Conversion (.bytes, .warnings, .self_tests,
    .self_test_worst_ratio, .accuracy: the int8-activation report or None, .fit: the
    fit report or None). An unknown
    keyword raises TypeError, a value the converter refuses ValueError."""
    arguments = ["convert"]
    for name, value in options.items():
        arguments += _option_values(name, value)
    return _focal._convert(arguments[1:], os.fspath(output) if output is not None else "", progress)


def _accuracy(conversion):
    import json
    return json.loads(conversion._accuracy_json) if conversion._accuracy_json else None


Conversion.accuracy = property(_accuracy, doc="With int8 activations, each dense layer's error and whether it was kept")


def _fit(conversion):
    import json
    return json.loads(conversion._fit_json) if conversion._fit_json else None


Conversion.fit = property(_fit, doc="With fit=, every choice tried (sizes, error, whether it fits) and the one chosen")


def verify(model):
    """Runs the model's stored self-test (as `focal verify`): a dict with passed, cases,
    failed_cases, max_abs_error and worst_tolerance_ratio. `model`: a Model or a path."""
    return Session(model if isinstance(model, Model) else load(model)).self_test()


def bench(model, **options):
    """`focal bench MODEL --json` with its options as keyword arguments (seq=, prompt=,
    gen=, threads=, warmup=, repeat=, peak=False for --no-peak): the report as a dict
    (docs/bench.schema.json). `model`: a path, or a Model loaded from one."""
    import json
    path = model.path if isinstance(model, Model) else os.fspath(model)
    if path is None:
        raise Error("focal.bench times a model file: load it from a path")
    arguments = ["focal", "bench", path, "--json"]
    for name, value in options.items():
        if name == "peak":
            arguments += [] if value else ["--no-peak"]
        else:
            arguments += ["--" + name.replace("_", "-"), str(value)]
    code, printed, errors = _focal._run_cli_captured(arguments)
    if code != 0:
        message = errors.decode("utf-8", "replace").strip()
        raise _keyword_error("bench", message.removeprefix("focal bench: ")) or Error(message)
    return json.loads(printed)


def main(argv=None):
    """The focal command line in this process (`python3 -m focal ...`); returns its exit code."""
    import sys
    sys.stdout.flush()
    sys.stderr.flush()
    return _focal._run_cli(["focal"] + list(sys.argv[1:] if argv is None else argv))
