#!/usr/bin/python3
"""focal serve with more clients than sessions (issue 38): 16 clients at once against 1 or 2
sessions and a queue of 0 or 2, each with its own seeded sampling request. Every client gets
an answer: 200 with exactly the text the same request got when sent alone, or 429 naming the
queue's limit; none is lost or left hanging, and /metrics counts them all. The texts are the
same bytes at 1 and 2 threads per session (focal's threads are bitwise deterministic), and
in rounds that retry until at least one 429 was seen (bounded), the refusals are real.
Usage: test_serve_concurrency.py FOCAL SOURCE_DIR WORK_DIR"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_support import Server, check_error, story_model  # noqa: E402

focal, root, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
story = story_model(focal, root, work)
CLIENTS = 16
ROUNDS = 30  # at most: a round where every request overlapped none is possible, 30 in a row is not


def request(i):
    return {"model": "story", "prompt": ["And God said", "In the beginning", "The LORD"][i % 3], "max_tokens": 100,
            "temperature": 0.8, "top_k": 50, "seed": 1000 + i, **({"stream": True} if i % 4 == 3 else {})}


def text_of(server, i):
    body = request(i)
    if body.get("stream"):
        return "".join(e["choices"][0]["text"] for e in server.events("/v1/completions", body))
    status, answer = server.json("/v1/completions", body)
    assert status == 200, answer
    return answer["choices"][0]["text"]


def alone(threads):
    server = Server(focal, story, "--threads", threads)
    try:
        return [text_of(server, i) for i in range(CLIENTS)]
    finally:
        server.stop()


def at_once(server, expected):
    """One round of CLIENTS requests released together: (answered, refused)."""
    results = [None] * CLIENTS
    barrier = threading.Barrier(CLIENTS)

    def client(i):
        barrier.wait()
        body = request(i)
        if body.get("stream"):
            status, _, data = server.request("/v1/completions", body)
            if status == 200:
                events = [l[6:] for l in data.decode().split("\n\n") if l.startswith("data: {")]
                import json
                results[i] = (200, "".join(json.loads(e)["choices"][0]["text"] for e in events))
                return
            import json
            results[i] = (status, json.loads(data))
            return
        status, answer = server.json("/v1/completions", body)
        results[i] = (status, answer["choices"][0]["text"] if status == 200 else answer)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
        assert not t.is_alive(), "a client was left hanging"
    answered = refused = 0
    for i, (status, value) in enumerate(results):
        if status == 200:
            assert value == expected[i], (i, value, expected[i])
            answered += 1
        else:
            check_error(status, value, 429, "queue_full", "--queue")
            refused += 1
    assert answered + refused == CLIENTS
    return answered, refused


def main():
    expected = alone(1)
    assert alone(2) == expected, "the same bytes at 1 and 2 threads"
    print(f"alone: {CLIENTS} seeded requests, the same text at --threads 1 and 2")
    for sessions, queue, threads in ((1, 0, 1), (2, 2, 2), (1, 2, 2)):
        server = Server(focal, story, "--sessions", sessions, "--queue", queue, "--threads", threads)
        try:
            totals = [0, 0]
            for round_ in range(ROUNDS):
                answered, refused = at_once(server, expected)
                totals[0] += answered
                totals[1] += refused
                if refused > 0 and round_ >= 2:
                    break
            # A streamed answer is counted once its last byte is out, which its client may read first.
            for polls in range(100):  # each /metrics answer before this one counts as a 2xx too
                metrics = server.request("/metrics")[2].decode()
                count = {l.split()[0]: float(l.split()[1]) for l in metrics.splitlines() if l and l[0] != "#"}
                if count['focal_responses_total{class="2xx"}'] >= totals[0] + polls:
                    break
                time.sleep(0.02)
            assert count["focal_queue_length"] == 0 and count["focal_sessions_busy"] == 0, metrics
            assert count["focal_refused_busy_total"] == totals[1], (count, totals)
            assert count['focal_responses_total{class="2xx"}'] == totals[0] + polls, (count, totals)
        finally:
            server.stop()
        assert totals[1] > 0 or queue > 0, f"no 429 in {ROUNDS} rounds with --queue 0"
        print(f"--sessions {sessions} --queue {queue} --threads {threads}: {round_ + 1} rounds of {CLIENTS} clients, "
              f"{totals[0]} answered as alone, {totals[1]} refused with 429, none lost")


main()
