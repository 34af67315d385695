#!/usr/bin/python3
"""focal serve (issue 38) driven by real clients, Python's urllib and curl, on a loopback
port: every route, greedy completions equal to what PyTorch produced when the story model
was trained (demo/story/prompts_expected.txt), seeded sampling repeatable and streamed as
it is answered whole, stop strings, embeddings equal to `focal run --text`'s
sentence_embedding and of norm 1, translations equal to the dates model's PyTorch outputs,
chat in the model's chat format as `focal generate --chat` answers, streamed as deltas,
and every refusal as a JSON error naming its limit: malformed JSON, a body over --max-body,
an unknown model, a prompt beyond the plan, max_tokens beyond the KV cache, a wrong type,
JSON nested too deep, a missing or wrong API key. SIGTERM stops the server with exit 0.
Usage: test_serve.py FOCAL SOURCE_DIR WORK_DIR"""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_support import Server, chat_model, check_error, dates_model, sentence_model, story_model  # noqa: E402

focal, root, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
story, dates, sentence = story_model(focal, root, work), dates_model(focal, root, work), sentence_model(focal, root, work)
chat = chat_model(focal, root, work)


def curl(server, path, body, *extra):
    r = subprocess.run(["curl", "-sS", "--max-time", "120", *extra, "-H", "Content-Type: application/json",
                        "--data-binary", "@-", server.base + path], input=json.dumps(body).encode(),
                       capture_output=True, timeout=150)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode()


def check_routes(server):
    status, health = server.json("/health")
    assert status == 200 and health == {"status": "ok", "models": 4}, health
    status, models = server.json("/v1/models")
    kinds = {m["id"]: (m["kind"], m["chat"]) for m in models["data"]}
    assert status == 200 and kinds == {"story": ("decoder", False), "dates": ("seq2seq", False),
                                       "sentence": ("encoder", False), "chat": ("decoder", True)}, models
    status, _, text = server.request("/metrics")
    for name in ("focal_requests_total", "focal_tokens_per_second", "focal_queue_length", "focal_arena_bytes"):
        assert f"\n{name} " in "\n" + text.decode(), (name, text)
    print("routes: /health, /v1/models (4 models of 3 kinds, one with a chat format), /metrics")


def check_chat(server):
    system, user = "Answer briefly.", "Who made the earth?"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    status, body = server.json("/v1/chat/completions", {"model": "chat", "messages": messages, "max_tokens": 30,
                                                        "temperature": 0})
    assert status == 200 and body["object"] == "chat.completion", body
    message = body["choices"][0]["message"]
    printed = subprocess.run([focal, "generate", chat, "--chat", user, "--system", system, "-n", "30"],
                             capture_output=True, text=True, check=True).stdout
    assert message == {"role": "assistant", "content": printed[:-1]}, (message, printed)
    events = server.events("/v1/chat/completions", {"model": "chat", "messages": messages, "max_tokens": 30,
                                                    "temperature": 0, "stream": True})
    assert events[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}, events[0]
    assert all(e["object"] == "chat.completion.chunk" for e in events)
    assert "".join(e["choices"][0]["delta"].get("content", "") for e in events) == message["content"]
    assert events[-1]["choices"][0]["finish_reason"] == body["choices"][0]["finish_reason"]
    # A conversation: the reply joins it as the assistant's turn, and sampling with a seed repeats.
    talk = {"model": "chat", "messages": [{"role": "user", "content": user}, {"role": "assistant", "content": "God."},
                                          {"role": "user", "content": "And then?"}],
            "max_tokens": 20, "temperature": 0.7, "seed": 5}
    first, again = (server.json("/v1/chat/completions", talk)[1]["choices"][0]["message"]["content"] for _ in "ab")
    assert first == again, (first, again)
    check_error(*server.json("/v1/chat/completions", {"model": "story", "messages": messages}), 400, "no_chat_format",
                "chat_template", "/v1/completions")
    check_error(*server.json("/v1/chat/completions", {"model": "chat", "messages": [{"role": "tool", "content": "x"}]}),
                400, "invalid_role", "'user'")
    check_error(*server.json("/v1/chat/completions", {"model": "chat", "messages": "hi"}), 400, "invalid_type",
                "'messages'")
    print(f"chat: as focal generate --chat ({message['content'][:30]!r}...), streamed as deltas, a seeded "
          "conversation repeats; no chat format, a bad role, bad messages refused")


def check_completions(server):
    for line in open(os.path.join(root, "demo", "story", "prompts_expected.txt")):
        case = json.loads(line)
        n = len(case["continuation_ids"])
        status, body = server.json("/v1/completions", {"model": "story", "prompt": case["prompt"], "max_tokens": n,
                                                       "temperature": 0})
        assert status == 200, body
        choice = body["choices"][0]
        assert choice["text"] == case["continuation"] and choice["finish_reason"] == "length", (choice, case)
        assert body["usage"] == {"prompt_tokens": len(case["prompt_ids"]), "completion_tokens": n,
                                 "total_tokens": len(case["prompt_ids"]) + n}, body["usage"]
        # Token ids as the prompt give the same.
        status, by_ids = server.json("/v1/completions", {"model": "story", "prompt": case["prompt_ids"],
                                                         "max_tokens": n, "temperature": 0})
        assert by_ids["choices"][0]["text"] == case["continuation"], by_ids
    print("completions: greedy text as PyTorch's for every prompt of demo/story, by text and by ids")

    sampled = {"model": "story", "prompt": "And God said", "max_tokens": 40, "temperature": 0.9, "top_k": 40,
               "top_p": 0.95, "seed": 38}
    first = server.json("/v1/completions", sampled)[1]["choices"][0]["text"]
    again = server.json("/v1/completions", sampled)[1]["choices"][0]["text"]
    other = server.json("/v1/completions", {**sampled, "seed": 39})[1]["choices"][0]["text"]
    assert first == again and first != other, (first, again, other)
    events = server.events("/v1/completions", {**sampled, "stream": True})
    streamed = "".join(e["choices"][0]["text"] for e in events)
    assert streamed == first and len(events) > 2, (streamed, first)
    assert events[-1]["choices"][0]["finish_reason"] == "length" and events[-1]["usage"]["completion_tokens"] == 40
    # curl as the client, whole and streamed (-N: as the events come).
    assert json.loads(curl(server, "/v1/completions", sampled))["choices"][0]["text"] == first
    raw = curl(server, "/v1/completions", {**sampled, "stream": True}, "-N")
    chunks = [json.loads(l[6:]) for l in raw.split("\n\n") if l.startswith("data: {")]
    assert "".join(c["choices"][0]["text"] for c in chunks) == first and raw.rstrip().endswith("data: [DONE]")
    print(f"completions: seed 38 repeats ({first[:30]!r}...), seed 39 differs; streamed in {len(events)} events "
          "as the whole answer; curl reads both")

    # Stop strings: the text ends before the first, streamed or not.
    greedy = server.json("/v1/completions", {"model": "story", "prompt": "And God said", "max_tokens": 40,
                                             "temperature": 0})[1]["choices"][0]["text"]
    stop = greedy.split()[3]
    cut = greedy[:greedy.index(stop)]
    body = server.json("/v1/completions", {"model": "story", "prompt": "And God said", "max_tokens": 40,
                                           "temperature": 0, "stop": [stop, "zzz"]})[1]
    assert body["choices"][0] == {"index": 0, "text": cut, "logprobs": None, "finish_reason": "stop"}, (body, cut)
    events = server.events("/v1/completions", {"model": "story", "prompt": "And God said", "max_tokens": 40,
                                               "temperature": 0, "stop": stop, "stream": True})
    assert "".join(e["choices"][0]["text"] for e in events) == cut
    print(f"completions: stop {stop!r} cuts the text there, streamed or not")


def check_embeddings(server):
    texts = ["Hà Nội là thủ đô của Việt Nam.", "the quick brown fox"]
    status, body = server.json("/v1/embeddings", {"model": "sentence", "input": texts})
    assert status == 200 and [d["index"] for d in body["data"]] == [0, 1], body
    for text, item in zip(texts, body["data"]):
        got = item["embedding"]
        assert abs(math.sqrt(sum(v * v for v in got)) - 1) < 1e-5, "normalized as the pipeline's Normalize"
        printed = subprocess.run([focal, "run", sentence, "--text", text], capture_output=True, text=True,
                                 check=True).stdout
        lines = printed.splitlines()
        row = [float(v) for v in lines[lines.index(next(l for l in lines if l.startswith("sentence_embedding"))) + 1]
               .split()]
        assert len(row) == len(got) == 32 and max(abs(a - b) for a, b in zip(row, got)) < 1e-5, (row, got)
    single = server.json("/v1/embeddings", {"model": "sentence", "input": texts[1]})[1]
    assert single["data"][0]["embedding"] == body["data"][1]["embedding"], "one input as in a list"
    assert body["usage"]["prompt_tokens"] > 0
    print("embeddings: as focal run --text's sentence_embedding (mean pooling, normalized), one or several inputs")


def check_translations(server):
    d = os.path.join(root, "demo", "dates")
    sources = [l.rstrip("\n") for l in open(f"{d}/examples.txt") if l.strip()]
    expected = [l.rstrip("\n") for l in open(f"{d}/examples_expected.txt") if l.strip()]
    for source, want in zip(sources, expected):
        status, body = server.json("/v1/translations", {"model": "dates", "input": source, "max_tokens": 12,
                                                        "attention": True})
        assert status == 200 and body["text"] == want, (source, body, want)
        rows = body["attention"]
        assert len(rows) == body["usage"]["completion_tokens"] and all(len(r) == body["usage"]["prompt_tokens"]
                                                                        for r in rows)
        assert all(abs(sum(r) - 1) < 1e-4 for r in rows), "each row a distribution over the source"
    print(f"translations: {len(sources)} dates as PyTorch's, with the attention matrix")


def check_refusals(server):
    check_error(*server.json("/v1/completions", raw=b'{"model": "story", "prompt": '), 400, "malformed_json",
                "not JSON")
    check_error(*server.json("/v1/completions", raw=b"[" * 30000 + b"]" * 30000), 400, "malformed_json",
                "128 levels")
    check_error(*server.json("/v1/completions", raw=b'{"model": "story", "prompt": "\xff\xfe"}'), 400,
                "malformed_json")
    big = {"model": "story", "prompt": "x" * 70000}
    check_error(*server.json("/v1/completions", big), 413, "body_too_large", "65536 bytes", "--max-body")
    check_error(*server.json("/v1/completions", {"model": "nope", "prompt": "x"}), 404, "model_not_found", "'nope'",
                "story")
    check_error(*server.json("/v1/completions", {"model": "story", "prompt": "And " * 200}), 400, "prompt_too_long",
                "128 positions")
    check_error(*server.json("/v1/completions", {"model": "story", "prompt": "And", "max_tokens": 500}), 400,
                "max_tokens_beyond_cache", "KV cache of 128 positions", "at most 128 here")
    check_error(*server.json("/v1/completions", {"model": "story", "prompt": "And", "max_tokens": "5"}), 400,
                "invalid_type", "'max_tokens'")
    check_error(*server.json("/v1/completions", {"model": "story", "prompt": "And", "temperature": 3}), 400,
                "out_of_range", "'temperature'", "[0, 2]")
    check_error(*server.json("/v1/completions", {"model": "sentence", "prompt": "And"}), 400, "wrong_model_kind",
                "decoder", "encoder")
    check_error(*server.json("/v1/embeddings", {"model": "sentence", "input": "word " * 100}), 400,
                "input_too_long", "64")
    check_error(*server.json("/v1/translations", {"model": "dates", "input": "x" * 100}), 400, "input_too_long", "40")
    status, _, body = server.request("/v1/nothing")
    assert status == 404 and json.loads(body)["error"]["code"] == "not_found", body
    print("refusals: malformed JSON, nesting past 128, invalid UTF-8, body over --max-body, unknown model, "
          "prompt and inputs beyond the plan, max_tokens beyond the KV cache, wrong type and range, wrong kind, "
          "unknown route: JSON errors naming the limit")


def check_api_key():
    key_file = os.path.join(work, "key")
    with open(key_file, "w") as f:
        f.write("s3cret-key\n")
    server = Server(focal, story, "--api-key-file", key_file)
    try:
        assert server.json("/health")[0] == 200, "health needs no key"
        check_error(*server.json("/v1/models"), 401, "invalid_api_key", "Authorization: Bearer")
        check_error(*server.json("/v1/models", headers={"Authorization": "Bearer s3cret-ke"}), 401, "invalid_api_key")
        check_error(*server.json("/v1/models", headers={"Authorization": "Bearer s3cret-key!"}), 401, "invalid_api_key")
        assert server.json("/v1/models", headers={"Authorization": "Bearer s3cret-key"})[0] == 200
    finally:
        server.stop()
    print("api key: /health open, others 401 without the exact key (shorter, longer), 200 with it")


def main():
    server = Server(focal, story, dates, sentence, chat, "--max-body", "65536")
    try:
        check_routes(server)
        check_completions(server)
        check_chat(server)
        check_embeddings(server)
        check_translations(server)
        check_refusals(server)
    finally:
        log = server.stop()
    assert "SIGTERM, stopping" in log, log
    check_api_key()
    print("shutdown: SIGTERM stops the server with exit 0")


main()
