"""Helpers of the focal serve tests (tests/cli/test_serve*.py, bench/serve_load.py): the
models they serve (the demo's story and dates models, a small sentence-transformers BERT
written here), a server started on a free loopback port (--port 0, the port read from its
first lines), and requests through Python's urllib."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request

# A guard, not a measurement: a server that never answers fails the test instead of hanging it.
HANG_GUARD_SECONDS = 120


def run(*command):
    return subprocess.run([str(c) for c in command], check=True, capture_output=True, text=True,
                          timeout=HANG_GUARD_SECONDS).stdout


def story_model(focal, root, work):
    """The demo's story model (a small GPT-2 on the King James Bible; demo/story)."""
    path = os.path.join(work, "story.focal")
    s = os.path.join(root, "demo", "story")
    run(focal, "convert", "--preset", "gpt2", "--weights", f"{s}/model.safetensors", "--config",
        f"{s}/config.json", "--tokenizer", f"bpe:{s}/vocab.json:{s}/merges.txt", "-o", path)
    return path


def dates_model(focal, root, work):
    """The demo's dates model (an RNN seq2seq with attention: 'march 3, 1999' to '1999-03-03')."""
    path = os.path.join(work, "dates.focal")
    d = os.path.join(root, "demo", "dates")
    run(focal, "convert", "--preset", "rnn-seq2seq", "--weights", f"{d}/model.pt", "--config",
        f"{d}/config.json", "--tokenizer", f"chars:{d}/vocab.json:source:lowercase", "--target-tokenizer",
        f"chars:{d}/vocab.json:target", "-o", path)
    return path


def sentence_model(focal, root, work):
    """A sentence-transformers folder as the hub serves it (BERT, 2 layers, hidden 32, mean
    pooling, Normalize; random weights, seed 38; tests/tokenizers' BERT-uncased WordPiece),
    converted with focal convert --hf alone (as tests/cli/test_hub_encoders.py does)."""
    path = os.path.join(work, "sentence.focal")
    sys.path.insert(0, os.path.join(root, "tests", "models"))
    import torch
    import make_hf_folder_reference as hub
    import make_reference as ref
    from case_files import write_safetensors
    tokenizers = os.path.join(root, "tests", "tokenizers")
    vocab = open(os.path.join(tokenizers, "bert_vocab.txt"), encoding="utf-8").read().splitlines()
    torch.manual_seed(38)
    c = ref.bert_config(len(vocab), 32, 2, 4, 48)
    c["max_position_embeddings"] = 64
    model = ref.Bert(c).eval()
    ref.randomize(model, 0.1, {"embeddings": 0.2})
    folder = os.path.join(work, "sentence-bert")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    config = {"architectures": ["BertModel"], "hidden_act": "gelu", "hidden_size": 32, "intermediate_size": 48,
              "layer_norm_eps": 1e-12, "max_position_embeddings": 64, "model_type": "bert",
              "num_attention_heads": 4, "num_hidden_layers": 2, "pad_token_id": 0,
              "position_embedding_type": "absolute", "torch_dtype": "float32", "type_vocab_size": 2,
              "vocab_size": len(vocab)}
    hub.write_json(os.path.join(folder, "config.json"), config)
    write_safetensors(os.path.join(folder, "model.safetensors"), hub.float32_state(model))
    shutil.copy(os.path.join(tokenizers, "bert_uncased.tokenizer.json"), os.path.join(folder, "tokenizer.json"))
    shutil.copy(os.path.join(tokenizers, "bert_vocab.txt"), os.path.join(folder, "vocab.txt"))
    hub.write_json(os.path.join(folder, "tokenizer_config.json"),
                   {"do_lower_case": True, "model_max_length": 512, "tokenizer_class": "BertTokenizer",
                    "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]",
                    "mask_token": "[MASK]"})
    hub.write_sentence_files(folder, 32, "mean", True, 64)
    run(focal, "convert", "--hf", folder, "-o", path)
    return path


class Server:
    """`focal serve ARGS --port 0` on loopback; stop() sends SIGTERM and checks a clean exit."""

    def __init__(self, focal, *args, env=None):
        self.log_path = None
        self.proc = subprocess.Popen([str(focal), "serve", *map(str, args), "--port", "0"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        self.lines = []
        for line in self.proc.stderr:
            self.lines.append(line)
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                break
        else:
            raise AssertionError("focal serve did not start: " + "".join(self.lines))
        self.base = f"http://127.0.0.1:{self.port}"

    def request(self, path, body=None, headers=None, method=None, raw=None):
        """(status, headers, body bytes); body: a JSON value, or raw bytes as they are."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=HANG_GUARD_SECONDS) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def json(self, path, body=None, **kwargs):
        status, _, data = self.request(path, body, **kwargs)
        return status, json.loads(data)

    def events(self, path, body):
        """A streamed response's events (data: lines), [DONE] last."""
        status, headers, data = self.request(path, body)
        assert status == 200 and headers["Content-Type"].startswith("text/event-stream"), (status, data)
        events = [line[len("data: "):] for line in data.decode().split("\n\n") if line.startswith("data: ")]
        assert events[-1] == "[DONE]", events[-3:]
        return [json.loads(e) for e in events[:-1]]

    def rss_kib(self):
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        rest = self.proc.communicate(timeout=HANG_GUARD_SECONDS)[1]
        log = "".join(self.lines) + rest
        assert "Sanitizer" not in log and "runtime error:" not in log, log
        assert self.proc.returncode == 0, (self.proc.returncode, log)
        assert "stopped after" in rest, log
        return log


def check_error(status, body, want_status, code, *texts):
    """A JSON error as OpenAI words it, naming its code and the limit."""
    assert status == want_status, (status, want_status, body)
    error = body["error"]
    assert error["code"] == code, (code, body)
    for text in texts:
        assert text in error["message"], (text, body)


CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
          "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")


def chat_model(focal, root, work):
    """The story model with a chat format: its byte-level BPE written as a tokenizer.json
    beside a tokenizer_config.json whose chat_template is ChatML (the converter recognizes
    it, as for Qwen2). Its vocabulary has no <|im_start|>: the markers are plain text to
    it, which is all a test of the plumbing needs; it ends at <|endoftext|> (511)."""
    s = os.path.join(root, "demo", "story")
    folder = os.path.join(work, "chat-tokenizer")
    os.makedirs(folder, exist_ok=True)
    vocab = json.load(open(os.path.join(s, "vocab.json"), encoding="utf-8"))
    merges = [l.rstrip("\n") for l in open(os.path.join(s, "merges.txt"), encoding="utf-8")
              if l.strip() and not l.startswith("#version")]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    tokenizer = {"version": "1.0", "truncation": None, "padding": None,
                 "added_tokens": [{"id": vocab["<|endoftext|>"], "content": "<|endoftext|>", "single_word": False,
                                   "lstrip": False, "rstrip": False, "normalized": True, "special": True}],
                 "normalizer": None, "pre_tokenizer": byte_level, "post_processor": byte_level, "decoder": byte_level,
                 "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                           "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                           "merges": merges}}
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f)
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"chat_template": CHATML, "eos_token": "<|endoftext|>"}, f)
    path = os.path.join(work, "chat.focal")
    run(focal, "convert", "--preset", "gpt2", "--weights", f"{s}/model.safetensors", "--config", f"{s}/config.json",
        "--tokenizer", os.path.join(folder, "tokenizer.json"), "-o", path)
    return path
