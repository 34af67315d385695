#!/usr/bin/python3
"""focal's Python module and threads: two threads running two sessions give the same
results as one thread running them in turn; the GIL is released while the engine runs
(a Python thread makes progress during a run, counted, and none during a C call that
holds the GIL); a session entered from a second thread during a call raises focal.Error.
The model: the bundled story decoder (demo/story), converted here by focal.convert.
Usage: test_module_threads.py SOURCE_DIR (PYTHONPATH: the build's python/)"""
import sys
import threading

import numpy as np

import focal

ROUNDS = 3


def results(session, prompt, rounds):
    """What one session computes for one prompt: tokens, and the logits of a run."""
    ids = np.array([prompt], np.int32)
    out = []
    for _ in range(rounds):
        session.reset_state()
        logits = session.run({"input_ids": ids})["logits"]
        out.append((session.generate(prompt, max_new=12, end_id=-1), logits.tobytes()))
    return out


def two_threads_as_one(model):
    prompts = [[40, 77, 258, 294], [295, 258, 341, 387, 319]]
    sessions = [focal.Session(model, threads=t) for t in (1, 2)]
    alone = [results(s, p, 1)[0] for s, p in zip(sessions, prompts)]
    assert alone[0] != alone[1]
    together = [None, None]
    threads = [threading.Thread(target=lambda i=i: together.__setitem__(i, results(sessions[i], prompts[i], ROUNDS)))
               for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(2):
        assert together[i] == [alone[i]] * ROUNDS, i
    print(f"two threads, two sessions: {ROUNDS} rounds each, tokens and logits as one thread's")


class Counter:
    """A Python thread counting while it holds the GIL, yielding it after each step."""

    def __init__(self):
        self.count, self.stop = 0, False
        self.thread = threading.Thread(target=self.loop)

    def loop(self):
        import os
        while not self.stop:
            self.count += 1
            os.sched_yield()  # releases the GIL, so the main thread gets it back at once


def progress_during(call, tries, counter):
    """How many of `tries` calls saw the counter move while they ran."""
    moved = 0
    for _ in range(tries):
        before = counter.count
        call()
        moved += counter.count != before
    return moved


def releases_the_gil(model):
    # With a long switch interval the main thread is never made to yield the GIL:
    # the counter can only move while a call has released it.
    sys.setswitchinterval(0.5)
    session = focal.Session(model)
    ids = np.zeros((1, min(model.symbols["seq"], 128)), np.int32)
    counter = Counter()
    counter.thread.start()
    try:
        held = progress_during(lambda: sum(range(300000)), 20, counter)
        released = progress_during(lambda: (session.reset_state(), session.run({"input_ids": ids})), 200, counter)
        generating = progress_during(lambda: session.generate([1, 2, 3], max_new=8), 50, counter)
    finally:
        counter.stop = True
        counter.thread.join()
    assert held == 0, held
    assert released > 0 and generating > 0, (released, generating)
    print(f"GIL: the counter thread moved during {released} of 200 runs and {generating} of 50 generations, "
          f"during {held} of 20 C calls that hold the GIL")


def shared_session_refused(model):
    session = focal.Session(model)
    inside, done = threading.Event(), threading.Event()
    errors = []

    def on_token(token):  # called with the session busy in the worker thread
        if not inside.is_set():
            inside.set()
            done.wait(60)

    worker = threading.Thread(target=lambda: session.generate([1, 2], max_new=4, on_token=on_token))
    worker.start()
    inside.wait(60)
    try:
        session.run({"input_ids": np.array([[1]], np.int32)})
    except focal.Error as error:
        errors.append(str(error))
    done.set()
    worker.join()
    assert errors and "another thread" in errors[0], errors
    assert len(session.generate([1, 2], max_new=4)) == 4  # usable again once the call ended
    print("a session entered from a second thread mid-call: focal.Error,", repr(errors[0]))


if __name__ == "__main__":
    story = f"{sys.argv[1]}/demo/story"
    model = focal.load(focal.convert(preset="gpt2", weights=f"{story}/model.safetensors", config=f"{story}/config.json",
                                     self_test=False).bytes)
    two_threads_as_one(model)
    releases_the_gil(model)
    shared_session_refused(model)
