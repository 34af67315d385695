#!/usr/bin/python3
"""A bounded load run of focal serve (issue 38): requests per second and p50/p99 latency at
1, 4 and 16 concurrent clients, for the demo's story model (/v1/completions, 16 greedy
tokens after "In the beginning") and a small sentence-transformers model (/v1/embeddings,
one sentence; the 2-layer BERT the serve tests write), then the server's RSS over 10,000
more requests, read from /proc before and after.

    bench/serve/serve_load.py [--focal BIN] [--requests N] [--rss-requests N]
                              [--sessions N] [--threads N] [--work DIR]

Each client is a thread holding a keep-alive HTTP/1.1 connection (http.client), sending
its requests one after another; latency is from send to the last byte. Clients and server
share the machine: on a small one the Python clients take a good part of the CPU, so the
figures are those of the whole loop, not the server's alone. The server runs with
--queue 32, so 16 clients are never refused; any answer but 200 fails the run. Timed:
run it alone (on a shared machine, under its build lock).
"""
import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "tests", "cli"))
from serve_support import Server, sentence_model, story_model  # noqa: E402

CASES = {
    "story": ("/v1/completions", {"model": "story", "prompt": "In the beginning", "max_tokens": 16, "temperature": 0}),
    "sentence": ("/v1/embeddings", {"model": "sentence", "input": "In the beginning God created the heaven"}),
}


def load(port, path, body, clients, requests):
    """(requests/s, p50 ms, p99 ms) of `requests` requests spread over `clients` threads."""
    payload = json.dumps(body).encode()
    latencies = [[] for _ in range(clients)]
    failures = []
    barrier = threading.Barrier(clients + 1)

    def client(k, count):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        barrier.wait()
        for _ in range(count):
            start = time.perf_counter()
            conn.request("POST", path, payload, {"Content-Type": "application/json"})
            r = conn.getresponse()
            data = r.read()
            latencies[k].append(time.perf_counter() - start)
            if r.status != 200:
                failures.append((r.status, data[:200]))
        conn.close()

    per = [requests // clients + (1 if k < requests % clients else 0) for k in range(clients)]
    threads = [threading.Thread(target=client, args=(k, per[k])) for k in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    assert not failures, failures[:3]
    all_ms = sorted(x * 1000 for lat in latencies for x in lat)
    p99 = all_ms[min(len(all_ms) - 1, int(round(0.99 * len(all_ms))) - 1)]
    return requests / elapsed, statistics.median(all_ms), p99


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--focal", default=os.path.join(root, "build", "host", "bin", "focal"))
    ap.add_argument("--requests", type=int, default=2000, help="per model and client count (default 2000)")
    ap.add_argument("--rss-requests", type=int, default=10000, help="requests between the RSS readings (10000)")
    ap.add_argument("--sessions", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--work", default=None, help="where the models are converted (default: a temporary directory)")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="focal-serve-load-")
    os.makedirs(work, exist_ok=True)
    models = {"story": story_model(a.focal, root, work), "sentence": sentence_model(a.focal, root, work)}
    print(f"focal serve --sessions {a.sessions} --threads {a.threads} --queue 32; {a.requests} requests per row")
    print(f"{'model':<9} {'clients':>7} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
    for name, model in models.items():
        path, body = CASES[name]
        server = Server(a.focal, model, "--sessions", a.sessions, "--threads", a.threads, "--queue", 32)
        try:
            load(server.port, path, body, 4, 200)  # warm-up: connections, pages, malloc's arenas
            for clients in (1, 4, 16):
                rate, p50, p99 = load(server.port, path, body, clients, a.requests)
                print(f"{name:<9} {clients:>7} {rate:>9.1f} {p50:>8.2f} {p99:>8.2f}", flush=True)
            before = server.rss_kib()
            load(server.port, path, body, 4, a.rss_requests)
            after = server.rss_kib()
            print(f"{name:<9} RSS {before} KiB before, {after} KiB after {a.rss_requests} more requests "
                  f"({after - before:+d} KiB)", flush=True)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
