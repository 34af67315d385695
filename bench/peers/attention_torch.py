#!/usr/bin/python3
"""PyTorch 1.13 as the peer of bench/attention_bench.cpp, on the same shapes, one thread.

Prints one JSON line per case, {"name": ..., "ms": ..., "variant": ...}, with the names
of focal's Google Benchmark cases (without the "/real_time" suffix), and first one line
{"context": {...}} describing the run (torch version, OpenBLAS core, threads).

Each case is timed in every form below and the fastest is reported (give the peer its
best form): the median of the repeats after a warm-up.
  prefill: F._scaled_dot_product_attention(q, k, v, mask, 0.0, False) with a bool mask
           (causal) or none, the same with is_causal=True, and explicit
           bmm -> softmax -> bmm (the scale folded into q, causal as an additive mask)
  decode:  F._scaled_dot_product_attention, bmm -> softmax -> bmm, and per-head
           matrix-vector products (torch.mv: shared/NOTES.md, batch-1 products are
           fastest as mv)
Tensors are contiguous [batch * heads, seq, dim] (torch's own best layout; focal reads
[batch, seq, heads, dim]), random in [-1, 1], f32. Decode in f16 has no fair torch
peer (f32 math on f16-converted data is just the f32 case), so only f32 is timed.

Run it with the peer-fair environment (bench/peers/run_attention does):
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 \
      GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4294967296:glibc.malloc.trim_threshold=4294967296 \
      ATEN_CPU_CAPABILITY=avx512 /usr/bin/python3 bench/peers/attention_torch.py
"""

import argparse
import ctypes
import json
import math
import os
import re
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def openblas_core():
    """The OpenBLAS kernel set in use (shared/NOTES.md: check it), or None."""
    torch.mm(torch.ones(64, 64), torch.ones(64, 64))  # make sure BLAS is loaded
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "blas" in line and "/" in line}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return lib.openblas_get_corename().decode()
        except (OSError, AttributeError):
            continue
    return None


def median_ms(fn, min_repeats, min_seconds):
    """Median wall time of fn() in ms: a warm-up of >= 3 calls (and >= 0.1 s), then at
    least min_repeats timed calls and at least min_seconds in all."""
    start = time.perf_counter()
    calls = 0
    while calls < 3 or time.perf_counter() - start < 0.1:
        fn()
        calls += 1
    times = []
    start = time.perf_counter()
    while len(times) < min_repeats or time.perf_counter() - start < min_seconds:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def uniform(*shape, generator):
    return torch.rand(*shape, generator=generator) * 2.0 - 1.0


def prefill_variants(n, causal, batch=1, heads=8, dim=64):
    g = torch.Generator().manual_seed(n * 2 + int(causal))
    q, k, v = (uniform(batch, heads, n, dim, generator=g) for _ in range(3))
    scale = 1.0 / math.sqrt(dim)
    q3, k3, v3 = (x.reshape(batch * heads, n, dim) for x in (q, k, v))
    kt3 = k3.transpose(1, 2)
    keep = torch.ones(n, n, dtype=torch.bool).tril() if causal else None
    additive = (torch.zeros(n, n).masked_fill(~keep, float("-inf")) if causal else None)
    scores = torch.empty(batch * heads, n, n)
    probs = torch.empty(batch * heads, n, n)
    out = torch.empty(batch * heads, n, dim)

    def sdpa():
        return F._scaled_dot_product_attention(q, k, v, keep, 0.0, False)[0]

    def sdpa_is_causal():
        return F._scaled_dot_product_attention(q, k, v, None, 0.0, False, True)[0]

    def explicit():
        qs = q3 * scale
        if causal:
            torch.baddbmm(additive, qs, kt3, out=scores)
        else:
            torch.bmm(qs, kt3, out=scores)
        torch._softmax(scores, -1, False, out=probs)
        return torch.bmm(probs, v3, out=out)

    variants = {"sdpa": sdpa, "bmm_softmax_bmm": explicit}
    if causal:
        variants["sdpa_is_causal"] = sdpa_is_causal
    return variants


def decode_variants(kv_len, heads=12, dim=64):
    g = torch.Generator().manual_seed(kv_len)
    q = uniform(heads, 1, dim, generator=g)
    k = uniform(heads, kv_len, dim, generator=g)
    v = uniform(heads, kv_len, dim, generator=g)
    scale = 1.0 / math.sqrt(dim)
    kt = k.transpose(1, 2)
    qv = q.reshape(heads, dim)
    vt = v.transpose(1, 2)  # [heads, dim, kv_len] views: mv with a transposed matrix
    scores = torch.empty(heads, 1, kv_len)
    probs = torch.empty(heads, 1, kv_len)
    out = torch.empty(heads, 1, dim)
    out_mv = torch.empty(heads, dim)

    def sdpa():
        return F._scaled_dot_product_attention(q, k, v, None, 0.0, False)[0]

    def explicit():
        torch.bmm(q * scale, kt, out=scores)
        torch._softmax(scores, -1, False, out=probs)
        return torch.bmm(probs, v, out=out)

    def per_head_mv():
        qs = qv * scale
        for h in range(heads):
            p = torch.softmax(torch.mv(k[h], qs[h]), 0)
            torch.mv(vt[h], p, out=out_mv[h])
        return out_mv

    return {"sdpa": sdpa, "bmm_softmax_bmm": explicit, "mv_per_head": per_head_mv}


def cases():
    for n in (128, 512, 2048):
        for causal in (True, False):
            name = "attention/prefill/b1_h8_d64_n%d/%s" % (n, "causal" if causal else "full")
            yield name, (lambda n=n, causal=causal: prefill_variants(n, causal))
    for kv in (512, 2048, 8192):
        yield "attention/decode/h12_d64_kv%d/f32" % kv, (lambda kv=kv: decode_variants(kv))


def check_variants(variants):
    """Every form must compute the same thing (guards the timing against a wrong peer)."""
    outputs = [fn().reshape(-1) for fn in variants.values()]
    for other in outputs[1:]:
        if not torch.allclose(outputs[0], other, atol=1e-4, rtol=1e-4):
            raise SystemExit("attention_torch.py: the forms disagree: %s" % list(variants))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--filter", default="", help="regex on the case names")
    parser.add_argument("--repeats", type=int, default=15, help="minimum timed calls")
    parser.add_argument("--seconds", type=float, default=1.0, help="minimum timed seconds per form")
    parser.add_argument("--all-forms", action="store_true", help="also print every form's time")
    args = parser.parse_args()

    torch.set_num_threads(1)
    torch.set_grad_enabled(False)
    context = {
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "openblas_core": openblas_core(),
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "ATEN_CPU_CAPABILITY": os.environ.get("ATEN_CPU_CAPABILITY"),
        "GLIBC_TUNABLES": os.environ.get("GLIBC_TUNABLES"),
    }
    print(json.dumps({"context": context}), flush=True)
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        print("attention_torch.py: OPENBLAS_NUM_THREADS is not 1: torch's matrix products "
              "will use every core", file=sys.stderr)

    pattern = re.compile(args.filter)
    for name, make in cases():
        if not pattern.search(name):
            continue
        variants = make()
        check_variants(variants)
        times = {form: median_ms(fn, args.repeats, args.seconds) for form, fn in variants.items()}
        best = min(times, key=times.get)
        line = {"name": name, "ms": round(times[best], 4), "variant": best}
        if args.all_forms:
            line["forms"] = {form: round(ms, 4) for form, ms in times.items()}
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
