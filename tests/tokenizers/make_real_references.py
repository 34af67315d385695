#!/usr/bin/python3
"""Expected ids of the real tokenizer files scripts/fetch-data caches (GPT-2, Llama 3, Qwen3,
Gemma 2, Gemma 3 and Llama 2 tokenizer.json as the Hugging Face hub serves them, and GPT-2's
original encoder.json + vocab.bpe) on tests/tokenizers/real_corpus.txt: real_expected.json,
read by tests/test_real_tokenizers.cpp.

For every tokenizer.json and every corpus line, npm's @huggingface/tokenizers 0.2.0 (the
tokenizers library's JavaScript port) run offline by hf_reference.mjs gives "plain" (the
line alone, add_special_tokens false: special tokens written in the text still become their
ids) and "ids" (add_special_tokens true: the post-processor's tokens added), and the
decoder's text of "plain". Lines whose reference decode does not give the line back are
listed in the output ("unrestored"; with the expected text for the tests' decode check).

GPT-2's side files hold the same vocabulary and merges as GPT-2's tokenizer.json (this
script checks it and stops if not), so their reference is GPT-2's ids from the same run
(transformers' GPT2Tokenizer maps <|endoftext|> in text to 50256 for both).

Each file records the npm package@version it came from and its tarball's integrity, read
from scripts/fetch-data and checked against the cache's stamp.
Usage: NODE_PATH=<a scratch npm prefix>/node_modules make_real_references.py
       (npm install --prefix <scratch> @huggingface/tokenizers@0.2.0; not in the checkout;
       scripts/fetch-data first; FOCAL_DATA_DIR as for fetch-data and the test)
"""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.environ.get("FOCAL_DATA_DIR") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "focal-data")
JSON_FILES = ["gpt2", "llama3", "qwen3", "gemma2", "gemma3", "llama2"]
SIDE = "gpt2-side-files"


def pins():
    """{name: (package@version, integrity)} from scripts/fetch-data's list."""
    text = open(os.path.join(ROOT, "scripts", "fetch-data"), encoding="utf-8").read()
    found = re.findall(r'"([\w-]+) (\S+@[\d.]+)\s+(sha512-\S+)', text)
    return {name: (package, integrity) for name, package, integrity in found}


def checked_folder(name, pin):
    folder = os.path.join(DATA, "tokenizers", name)
    stamp = os.path.join(folder, ".integrity")
    if not os.path.exists(stamp) or open(stamp).read().strip() != pin[1]:
        sys.exit(f"{folder} is missing or not {pin[0]}: run scripts/fetch-data")
    return folder


def check_side_files(side, tokenizer_json):
    """encoder.json and vocab.bpe equal the tokenizer.json's vocab and merges."""
    model = json.load(open(tokenizer_json, encoding="utf-8"))["model"]
    vocab = json.load(open(os.path.join(side, "encoder.json"), encoding="utf-8"))
    merges = [l.rstrip("\n") for l in open(os.path.join(side, "vocab.bpe"), encoding="utf-8")
              if l.strip() and not l.startswith("#version")]
    json_merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    if vocab != model["vocab"] or merges != json_merges:
        sys.exit("GPT-2's side files differ from its tokenizer.json: GPT-2's ids are no reference for them")
    print(f"{SIDE}: {len(vocab)} tokens and {len(merges)} merges equal GPT-2's tokenizer.json")


def main():
    lines = [l.rstrip("\n") for l in open(os.path.join(HERE, "real_corpus.txt"), encoding="utf-8")]
    pinned = pins()
    # (fetch-data also pins files other tests read, Llama 3.1 and 3.2 and Qwen2.5's)
    assert set(JSON_FILES + [SIDE]) <= set(pinned), pinned
    jobs = []
    for name in JSON_FILES:
        path = os.path.join(checked_folder(name, pinned[name]), "tokenizer.json")
        jobs.append({"name": name, "file": path, "decode": True, "cases": [{"text": t} for t in lines]})
    check_side_files(checked_folder(SIDE, pinned[SIDE]), jobs[0]["file"])

    result = subprocess.run(["node", os.path.join(HERE, "hf_reference.mjs")], input=json.dumps(jobs),
                            capture_output=True, text=True, check=True)
    files = {}
    for job in json.loads(result.stdout):
        package, integrity = pinned[job["name"]]
        unrestored = [i for i, c in enumerate(job["cases"]) if c["decoded"] != c["text"]]
        print(f"{job['name']}: reference decode restores {len(lines) - len(unrestored)} of {len(lines)} lines")
        files[job["name"]] = {
            "package": package, "integrity": integrity, "files": ["tokenizer.json"],
            "plain": [c["plain"] for c in job["cases"]], "ids": [c["ids"] for c in job["cases"]],
            "unrestored": {str(i): job["cases"][i]["decoded"] for i in unrestored}}
    package, integrity = pinned[SIDE]
    files[SIDE] = {"package": package, "integrity": integrity, "files": ["encoder.json", "vocab.bpe"],
                   "reference": "gpt2"}

    # One line per id list keeps the file diffable and small.
    dump = lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    out = ['{"provenance":' + dump("tests/tokenizers/make_real_references.py: ids from @huggingface/tokenizers "
                                   "0.2.0 (node, offline) on the files scripts/fetch-data caches") + ",",
           '"texts":[', ",\n".join(dump(t) for t in lines), "],", '"files":{']
    entries = []
    for name, f in files.items():
        head = {k: v for k, v in f.items() if k not in ("plain", "ids")}
        entry = dump(name) + ":" + dump(head)[:-1]
        if "plain" in f:
            entry += ',\n"plain":[\n' + ",\n".join(dump(x) for x in f["plain"]) + "],"
            entry += '\n"ids":[\n' + ",\n".join(dump(x) for x in f["ids"]) + "]"
        entries.append(entry + "}")
    out.append(",\n".join(entries))
    out.append("}}")
    with open(os.path.join(HERE, "real_expected.json"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(out) + "\n")
    json.load(open(os.path.join(HERE, "real_expected.json"), encoding="utf-8"))


if __name__ == "__main__":
    main()
