#!/usr/bin/python3
"""PyTorch 1.13 as a peer of bench/peers/run_bert_int8: models_torch.py's BERT-base, seq 128
(the bert_base/seq:128 case: the same weights and ids), f32 and dynamic int8, at --threads.

Prints a {"context": ...} line, then {"name": "torch_f32"|"torch_int8", "threads", "ms",
"variant", ...}: the fastest form's median ms per forward (models_torch.py's median_ms).
  torch_f32:  models_torch.py's forms, module_sdpa and nn_encoder
  torch_int8: torch.ao.quantization.quantize_dynamic(layers, {nn.Linear:
              per_channel_dynamic_qconfig}, dtype=torch.qint8) on the module_sdpa form
              (int8 weights per output channel, activations quantized per call), on each
              x86/server quantized engine this torch has (Debian's build: onednn; it has no
              fbgemm, and its mobile engine qnnpack is timed only where nothing else is),
              the engine in "variant"; cosine_min / cosine_mean: per position, against f32.
Run it in the peer-fair environment of run_bert_int8 (OPENBLAS_NUM_THREADS = --threads).
"""

import argparse
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from attention_torch import median_ms, openblas_core
from models_torch import BERT_BASE, bert_module_sdpa, bert_variants, make_bert

SEQ, SEED = 128, 1  # models_torch.py's bert_base/seq:128


def fastest(forms, args):
    times = {form: median_ms(fn, args.repeats, args.seconds) for form, fn in forms}
    best = min(times, key=times.get)
    return best, times[best]


def int8_forms(embeddings, layers, ids, engines):
    qconfig = {nn.Linear: torch.ao.quantization.per_channel_dynamic_qconfig}
    for engine in engines:
        torch.backends.quantized.engine = engine  # weights are packed for this engine
        quantized = torch.ao.quantization.quantize_dynamic(layers, qconfig, dtype=torch.qint8)
        if any(type(m) is nn.Linear for m in quantized.modules()):
            raise SystemExit("bert_int8_torch.py: quantize_dynamic left an f32 nn.Linear")

        def run(engine=engine, quantized=quantized):
            torch.backends.quantized.engine = engine
            return bert_module_sdpa(embeddings, quantized, ids)

        yield "quantize_dynamic/per_channel/" + engine, run


def cosine_stats(x, reference):
    cos = F.cosine_similarity(x.double(), reference.double(), dim=1)  # per position
    return round(cos.min().item(), 6), round(cos.mean().item(), 6)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=15, help="minimum timed calls")
    parser.add_argument("--seconds", type=float, default=1.0, help="minimum timed seconds per form")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.set_grad_enabled(False)
    engines = [e for e in torch.backends.quantized.supported_engines if e not in ("none", "qnnpack")]
    if not engines:
        engines = [e for e in torch.backends.quantized.supported_engines if e != "none"]
    print(json.dumps({"context": {
        "torch": torch.__version__, "torch_threads": torch.get_num_threads(), "openblas_core": openblas_core(),
        "quantized_engines": engines, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
        "ATEN_CPU_CAPABILITY": os.environ.get("ATEN_CPU_CAPABILITY")}}), flush=True)
    with torch.inference_mode():
        variant, ms = fastest(bert_variants(BERT_BASE, SEQ, SEED), args)
        print(json.dumps({"name": "torch_f32", "threads": args.threads, "ms": round(ms, 3), "variant": variant}),
              flush=True)
        embeddings, _, layers, ids = make_bert(BERT_BASE, SEQ, SEED)
        reference = bert_module_sdpa(embeddings, layers, ids)
        forms = list(int8_forms(embeddings, layers, ids, engines))
        variant, ms = fastest(forms, args)
        cos_min, cos_mean = cosine_stats(dict(forms)[variant](), reference)
        print(json.dumps({"name": "torch_int8", "threads": args.threads, "ms": round(ms, 3), "variant": variant,
                          "cosine_min": cos_min, "cosine_mean": cos_mean}), flush=True)


if __name__ == "__main__":
    main()
