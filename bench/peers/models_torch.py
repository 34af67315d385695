#!/usr/bin/python3
"""PyTorch 1.13 as the peer of bench/model_bench.cpp: whole models on the same shapes, one thread.

Prints one JSON line per case, {"name": ..., "ms": ..., "variant": ...}, with the names of
focal's Google Benchmark cases (focal_bench_models, without the parts Google Benchmark
appends such as "/real_time"), and first one line {"context": {...}} describing the run
(torch version, threads, OpenBLAS core, ATEN_CPU_CAPABILITY, quantized engines).
--filter REGEX picks cases, --list prints their names, --repeats N and --seconds S set the
least timed calls and time per form, --all-forms adds every form's time to the line.
  bert_base/seq:128                 BERT-base encoder forward, batch 1, 128 tokens: ms per forward
  bert_tiny/seq:128                 BERT-tiny, the same
  gpt2_small_decode/prompt:32/f32   GPT-2 small, batch 1: ms per generated token after a
                                    32-token prompt
  gpt2_small_decode/prompt:32/int8  the same with int8 weights (dynamic quantization)
  seq2seq_bilstm/src:20/steps:20    an LSTM encoder-decoder with Bahdanau attention (embedding
                                    128, hidden 256, bidirectional encoder, vocabularies of
                                    1000): one 20-token sentence, 20 greedy steps, ms per
                                    sentence; forms "modules" (nn.LSTM, nn.LSTMCell, nn.Linear)
                                    and "addmv" (the decoder as matrix-vector products)

The models, random weights: every weight, bias and embedding N(0, 0.02^2), LayerNorm gains
1 + N(0, 0.02^2); f32; random token ids from a fixed seed.
  BERT:  base 12 layers, d 768, 12 heads, FFN 3072; tiny 2 layers, d 128, 2 heads, FFN 512;
         vocabulary 30522, 512 positions. Embeddings: word + position + token type 0, then
         LayerNorm; post-LN layers (eps 1e-12), GELU (erf); every token valid (no mask), no
         pooler. The output is the last hidden state [128, d].
  GPT-2: 12 layers, d 768, 12 heads, MLP 3072, vocabulary 50257, 1024 positions, pre-LN
         (eps 1e-5), GELU (tanh), the LM head tied to the token embedding. The prompt is
         prefilled (not timed) into a preallocated KV cache of [heads, 64, 64] per layer.
         One timed call then decodes 32 tokens greedily (positions 32..63): one token in,
         its K and V written into the cache, attention over the cache so far, logits over
         the whole vocabulary, argmax; "ms" is the call's time / 32.

Each case is timed in every form below and the fastest is reported (give the peer its
best form): the median of the repeats after a warm-up, under torch.inference_mode().
  BERT:      module_sdpa: our own module of nn.Linear (Q, K and V as one) and
             F._scaled_dot_product_attention(q, k, v, None, 0.0, False) (1.13 has no public
             SDPA); nn_encoder: nn.TransformerEncoder(nn.TransformerEncoderLayer(d, heads,
             ffn, dropout=0, activation="gelu", batch_first=True, layer_norm_eps=1e-12),
             layers) in eval mode (its inference fast path, torch._transformer_encoder_layer_fwd),
             after the same embeddings. Both forms share one copy of the weights.
  GPT-2 f32: linear: nn.Linear calls on [1, d] rows; addmv: torch.addmv / torch.mv on the
             same weights ([out, in], contiguous: shared/NOTES.md, batch-1 products are much
             faster as matrix-vector calls in 1.13 than as nn.Linear).
  GPT-2 int8: torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
             on the linear form, the LM head included (weights int8 per tensor, activations
             quantized per call), once per quantized engine this torch has (Debian's build:
             onednn and qnnpack, no fbgemm); the engine is the variant's suffix. qnnpack
             modules are set to pass no reduce_range, which qnnpack ignores anyway (the
             same results) but warns about on stderr on every call otherwise.
The forms of a case are checked to agree (f32: within 1e-3) before they are timed.
Decode attention is bmm -> softmax -> bmm over the cache in every form (at most 64
positions: a small part of a step). f16 weights have no fair torch peer on CPU (torch would
compute in f32 on converted data), so there is no f16 case.

Run it with the peer-fair environment (bench/peers/run_models does):
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 \
      GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4294967296:glibc.malloc.trim_threshold=4294967296 \
      ATEN_CPU_CAPABILITY=avx512 /usr/bin/python3 bench/peers/models_torch.py
Memory: one model at a time (GPT-2 small f32 is ~0.5 GB); the process peaks at ~1.3 GB
(torch itself ~0.25 GB; the int8 case, quantizing a fresh f32 model per engine).
"""

import argparse
import gc
import json
import math
import os
import re
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from attention_torch import median_ms, openblas_core

BERT_BASE = dict(layers=12, d=768, heads=12, ffn=3072)
BERT_TINY = dict(layers=2, d=128, heads=2, ffn=512)
BERT_VOCAB, BERT_POSITIONS, BERT_EPS = 30522, 512, 1e-12
GPT2_SMALL = dict(layers=12, d=768, heads=12, mlp=3072, vocab=50257, positions=1024)
GPT2_EPS = 1e-5
PROMPT = 32
DECODE_STEPS = 32
STD = 0.02


def randomize(module, generator):
    """Every parameter N(0, STD^2); LayerNorm gains 1 + N(0, STD^2). Tied ones drawn once."""
    seen = set()
    for sub in module.modules():
        for name, p in sub.named_parameters(recurse=False):
            if id(p) in seen:
                continue
            seen.add(id(p))
            p.requires_grad_(False)
            p.normal_(0.0, STD, generator=generator)
            if isinstance(sub, nn.LayerNorm) and name == "weight":
                p.add_(1.0)


# ---------------------------------------------------------------------------------------------
# BERT

class BertEmbeddings(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.word = nn.Embedding(BERT_VOCAB, d)        # [30522, d]
        self.position = nn.Embedding(BERT_POSITIONS, d)  # [512, d]
        self.token_type = nn.Embedding(2, d)           # [2, d]; every token has type 0
        self.norm = nn.LayerNorm(d, eps=BERT_EPS)

    def forward(self, ids):  # ids [S] -> [S, d]
        x = self.word(ids) + self.position.weight[:ids.shape[0]] + self.token_type.weight[0]
        return self.norm(x)


class BertLayer(nn.Module):
    """A post-LN BERT layer on [S, d] rows. Made on the meta device: its parameters are
    set to those of an nn.TransformerEncoderLayer (tie_to), so both forms share one copy."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d, device="meta")     # rows: Q, K, V
        self.out = nn.Linear(d, d, device="meta")
        self.norm1 = nn.LayerNorm(d, eps=BERT_EPS, device="meta")
        self.ffn_in = nn.Linear(d, ffn, device="meta")
        self.ffn_out = nn.Linear(ffn, d, device="meta")
        self.norm2 = nn.LayerNorm(d, eps=BERT_EPS, device="meta")

    def tie_to(self, layer):
        a = layer.self_attn
        self.qkv.weight, self.qkv.bias = a.in_proj_weight, a.in_proj_bias
        self.out.weight, self.out.bias = a.out_proj.weight, a.out_proj.bias
        for mine, theirs in ((self.norm1, layer.norm1), (self.ffn_in, layer.linear1),
                             (self.ffn_out, layer.linear2), (self.norm2, layer.norm2)):
            mine.weight, mine.bias = theirs.weight, theirs.bias

    def forward(self, x):  # x [S, d]
        s, d = x.shape
        q, k, v = self.qkv(x).view(s, 3, self.heads, d // self.heads).permute(1, 2, 0, 3)
        a = F._scaled_dot_product_attention(q, k, v, None, 0.0, False)[0]  # [heads, S, d/heads]
        x = self.norm1(x + self.out(a.transpose(0, 1).reshape(s, d)))
        return self.norm2(x + self.ffn_out(F.gelu(self.ffn_in(x))))


def make_bert(config, seq, seed):
    """The random-weight BERT of `config` and `seq` token ids: (embeddings, encoder, layers,
    ids), the encoder an nn.TransformerEncoder and `layers` BertLayers sharing its weights."""
    g = torch.Generator().manual_seed(seed)
    layers, d, heads, ffn = config["layers"], config["d"], config["heads"], config["ffn"]
    embeddings = BertEmbeddings(d)
    encoder = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(d, heads, ffn, dropout=0.0, activation="gelu",
                                   batch_first=True, layer_norm_eps=BERT_EPS), layers)
    randomize(embeddings, g)
    randomize(encoder, g)
    embeddings.eval()
    encoder.eval()
    mine = nn.ModuleList(BertLayer(d, heads, ffn) for _ in range(layers))
    for layer, theirs in zip(mine, encoder.layers):
        layer.tie_to(theirs)
    ids = torch.randint(0, BERT_VOCAB, (seq,), generator=g)
    return embeddings, encoder, mine, ids


def bert_module_sdpa(embeddings, layers, ids):
    """The module_sdpa form: ids [S] -> last hidden state [S, d]."""
    x = embeddings(ids)
    for layer in layers:
        x = layer(x)
    return x


def bert_variants(config, seq, seed):
    embeddings, encoder, mine, ids = make_bert(config, seq, seed)

    def module_sdpa():
        return bert_module_sdpa(embeddings, mine, ids)

    def nn_encoder():
        return encoder(embeddings(ids).unsqueeze(0))[0]

    yield "module_sdpa", module_sdpa
    yield "nn_encoder", nn_encoder


# ---------------------------------------------------------------------------------------------
# GPT-2

class Gpt2Block(nn.Module):
    def __init__(self, d, heads, mlp, cache_len):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.ln_1 = nn.LayerNorm(d, eps=GPT2_EPS)
        self.attn_qkv = nn.Linear(d, 3 * d)   # weight [3d, d], rows Q, K, V
        self.attn_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d, eps=GPT2_EPS)
        self.mlp_fc = nn.Linear(d, mlp)       # [mlp, d]
        self.mlp_proj = nn.Linear(mlp, d)     # [d, mlp]
        # The KV cache, preallocated: [heads, cache_len, d / heads] each, written per step.
        self.k_cache = torch.zeros(heads, cache_len, self.dh)
        self.v_cache = torch.zeros(heads, cache_len, self.dh)

    def attend(self, q, k, v, pos):
        """q, k, v [n, d] for positions pos..pos+n-1; writes k, v into the cache and attends
        causally over positions 0..pos+n-1. Returns [n, d]."""
        n, d = q.shape
        end = pos + n
        self.k_cache[:, pos:end] = k.view(n, self.heads, self.dh).transpose(0, 1)
        self.v_cache[:, pos:end] = v.view(n, self.heads, self.dh).transpose(0, 1)
        qh = q.view(n, self.heads, self.dh).transpose(0, 1) * (1.0 / math.sqrt(self.dh))
        scores = torch.bmm(qh, self.k_cache[:, :end].transpose(1, 2))  # [heads, n, end]
        if n > 1:
            later = torch.arange(end).view(1, end) > torch.arange(pos, end).view(n, 1)
            scores.masked_fill_(later, float("-inf"))
        probs = torch.softmax(scores, -1)
        return torch.bmm(probs, self.v_cache[:, :end]).transpose(0, 1).reshape(n, d)

    def forward(self, x, pos):  # x [n, d] rows for positions pos..pos+n-1: nn.Linear calls
        q, k, v = self.attn_qkv(self.ln_1(x)).split(x.shape[1], dim=1)
        x = x + self.attn_proj(self.attend(q, k, v, pos))
        return x + self.mlp_proj(F.gelu(self.mlp_fc(self.ln_2(x)), approximate="tanh"))

    def step_mv(self, x, pos):  # x [d], one token: matrix-vector products on the same weights
        d = x.shape[0]
        h = F.layer_norm(x, (d,), self.ln_1.weight, self.ln_1.bias, GPT2_EPS)
        q, k, v = torch.addmv(self.attn_qkv.bias, self.attn_qkv.weight, h).view(3, 1, d)
        a = self.attend(q, k, v, pos).view(d)
        x = torch.addmv(x + self.attn_proj.bias, self.attn_proj.weight, a)
        h = F.layer_norm(x, (d,), self.ln_2.weight, self.ln_2.bias, GPT2_EPS)
        m = F.gelu(torch.addmv(self.mlp_fc.bias, self.mlp_fc.weight, h), approximate="tanh")
        return torch.addmv(x + self.mlp_proj.bias, self.mlp_proj.weight, m)


class Gpt2(nn.Module):
    def __init__(self, layers, d, heads, mlp, vocab, positions, cache_len):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)       # [vocab, d], also the LM head
        self.wpe = nn.Embedding(positions, d)   # [positions, d]
        self.blocks = nn.ModuleList(Gpt2Block(d, heads, mlp, cache_len) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d, eps=GPT2_EPS)
        self.lm_head = nn.Linear(d, vocab, bias=False, device="meta")  # no weight of its own:
        self.lm_head.weight = self.wte.weight                              # tied

    def forward(self, ids, pos):  # ids [n] at positions pos..pos+n-1 -> last logits [1, vocab]
        x = self.wte(ids) + self.wpe.weight[pos:pos + ids.shape[0]]
        for block in self.blocks:
            x = block(x, pos)
        return self.lm_head(self.ln_f(x[-1:]))

    def step_mv(self, token, pos):  # token: 0-d id tensor -> logits [vocab]
        x = self.wte.weight[token] + self.wpe.weight[pos]
        for block in self.blocks:
            x = block.step_mv(x, pos)
        x = F.layer_norm(x, x.shape, self.ln_f.weight, self.ln_f.bias, GPT2_EPS)
        return torch.mv(self.wte.weight, x)


def make_gpt2(seed):
    g = torch.Generator().manual_seed(seed)
    model = Gpt2(cache_len=PROMPT + DECODE_STEPS, **GPT2_SMALL)
    randomize(model, g)
    model.eval()
    prompt = torch.randint(0, GPT2_SMALL["vocab"], (PROMPT,), generator=g)
    return model, prompt


def decoder(model, prompt, step):
    """A timed call: DECODE_STEPS greedy steps after the prompt (prefilled here, once,
    untimed; the steps rewrite cache positions PROMPT.. each call). Returns the last logits."""
    first = model(prompt, 0).argmax()

    def decode():
        token = first
        for i in range(DECODE_STEPS):
            logits = step(token, PROMPT + i)
            token = logits.argmax()
        return logits

    return decode


def gpt2_f32_variants(seed):
    model, prompt = make_gpt2(seed)
    linear = decoder(model, prompt, lambda token, pos: model(token.view(1), pos))
    addmv = decoder(model, prompt, model.step_mv)
    yield "linear", linear
    yield "addmv", addmv


def gpt2_int8_variants(seed):
    """One model per engine, built in turn (the caller drops the last before the next)."""
    for engine in torch.backends.quantized.supported_engines:
        if engine == "none":
            continue
        torch.backends.quantized.engine = engine  # the weights are packed for this engine
        model, prompt = make_gpt2(seed)
        torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8, inplace=True)
        if any(type(m) is nn.Linear for m in model.modules()):
            raise SystemExit("models_torch.py: quantize_dynamic left an f32 nn.Linear")
        if engine == "qnnpack":
            # The module passes reduce_range=True, which qnnpack ignores (the same result)
            # but warns about through glog on every call: a line on stderr per product,
            # which floods the output and costs time. version 3 modules pass no reduce_range.
            for m in model.modules():
                if isinstance(m, torch.ao.nn.quantized.dynamic.Linear):
                    m.version = 3
        decode = decoder(model, prompt, lambda token, pos, model=model: model(token.view(1), pos))

        def on_engine(engine=engine, decode=decode):
            torch.backends.quantized.engine = engine
            return decode()

        yield "quantize_dynamic/" + engine, on_engine
        del model, prompt, decode, on_engine
        gc.collect()


# ---- RNN sequence-to-sequence: bidirectional LSTM encoder, Bahdanau-attention decoder ------

SEQ2SEQ = dict(vocab=1000, emb=128, hidden=256, units=256, source=20, steps=20)


class Seq2Seq(nn.Module):
    """focal's rnn-seq2seq preset with attention "bahdanau" (converter/src/presets/
    rnn_seq2seq.cpp): the same layers and step."""

    def __init__(self, vocab, emb, hidden, units, **_):
        super().__init__()
        self.src_embedding = nn.Embedding(vocab, emb)
        self.encoder = nn.LSTM(emb, hidden, bidirectional=True, batch_first=True)
        self.bridge_h = nn.Linear(2 * hidden, hidden)
        self.bridge_c = nn.Linear(2 * hidden, hidden)
        self.tgt_embedding = nn.Embedding(vocab, emb)
        self.query = nn.Linear(hidden, units, bias=False)
        self.key = nn.Linear(2 * hidden, units)
        self.energy = nn.Linear(units, 1, bias=False)
        self.decoder = nn.LSTMCell(emb + 2 * hidden, hidden)
        self.output = nn.Linear(3 * hidden, vocab)

    def translate(self, source, steps, mv):
        memory, (h, c) = self.encoder(self.src_embedding(source)[None])
        memory = memory[0]
        s = torch.tanh(self.bridge_h(torch.cat([h[0, 0], h[1, 0]])))
        cell = torch.tanh(self.bridge_c(torch.cat([c[0, 0], c[1, 0]])))
        keys = self.key(memory)
        token = torch.tensor(1)
        for _ in range(steps):
            q = torch.mv(self.query.weight, s) if mv else self.query(s)
            weights = torch.softmax(torch.mv(torch.tanh(q + keys), self.energy.weight[0]), 0)
            context = torch.mv(memory.t(), weights)
            x = torch.cat([self.tgt_embedding.weight[token], context])
            if mv:  # the LSTM cell as matrix-vector products (batch-1 products: NOTES.md)
                gates = torch.addmv(self.decoder.bias_ih, self.decoder.weight_ih, x)
                gates = torch.addmv(gates + self.decoder.bias_hh, self.decoder.weight_hh, s)
                i, f, g, o = gates.chunk(4)
                cell = torch.sigmoid(f) * cell + torch.sigmoid(i) * torch.tanh(g)
                s = torch.sigmoid(o) * torch.tanh(cell)
                logits = torch.addmv(self.output.bias, self.output.weight, torch.cat([s, context]))
            else:
                s, cell = self.decoder(x[None], (s[None], cell[None]))
                s, cell = s[0], cell[0]
                logits = self.output(torch.cat([s, context]))
            token = logits.argmax()
        return logits


def seq2seq_variants(seed):
    g = torch.Generator().manual_seed(seed)
    model = Seq2Seq(**SEQ2SEQ)
    randomize(model, g)
    model.eval()
    source = torch.randint(3, SEQ2SEQ["vocab"], (SEQ2SEQ["source"],), generator=g)
    yield "modules", lambda: model.translate(source, SEQ2SEQ["steps"], mv=False)
    yield "addmv", lambda: model.translate(source, SEQ2SEQ["steps"], mv=True)


# ---------------------------------------------------------------------------------------------

def cases():
    """(name, forms, calls per reported unit): forms() yields (form, fn) pairs, built in
    turn; fn() runs one timed call and returns its output. Seeds differ per case."""
    yield "bert_base/seq:128", lambda: bert_variants(BERT_BASE, 128, seed=1), 1
    yield "bert_tiny/seq:128", lambda: bert_variants(BERT_TINY, 128, seed=2), 1
    yield "gpt2_small_decode/prompt:32/f32", lambda: gpt2_f32_variants(seed=3), DECODE_STEPS
    yield "gpt2_small_decode/prompt:32/int8", lambda: gpt2_int8_variants(seed=3), DECODE_STEPS
    yield "seq2seq_bilstm/src:20/steps:20", lambda: seq2seq_variants(seed=4), 1


def check_form(name, form, output, first, tolerance=1e-3):
    """Every form must compute what the first one did (guards the timing against a wrong
    peer). Quantized engines round differently, so int8 forms are not compared."""
    if first is None or "/int8" in name:
        return
    first_form, expected = first
    output = output.reshape(-1)
    if not torch.allclose(expected, output, atol=tolerance, rtol=tolerance):
        raise SystemExit("models_torch.py: %s: %s and %s disagree (max difference %g)"
                         % (name, first_form, form, (expected - output).abs().max().item()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--filter", default="", help="regex on the case names")
    parser.add_argument("--repeats", type=int, default=15, help="minimum timed calls")
    parser.add_argument("--seconds", type=float, default=1.0, help="minimum timed seconds per form")
    parser.add_argument("--all-forms", action="store_true", help="also print every form's time")
    parser.add_argument("--list", action="store_true", help="print the case names and exit")
    args = parser.parse_args()

    pattern = re.compile(args.filter)
    if args.list:
        for name, _, _ in cases():
            if pattern.search(name):
                print(name)
        return

    torch.set_num_threads(1)
    torch.set_grad_enabled(False)
    context = {
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "openblas_core": openblas_core(),
        "quantized_engines": [e for e in torch.backends.quantized.supported_engines if e != "none"],
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "ATEN_CPU_CAPABILITY": os.environ.get("ATEN_CPU_CAPABILITY"),
        "GLIBC_TUNABLES": os.environ.get("GLIBC_TUNABLES"),
        "decode_steps": DECODE_STEPS,
    }
    print(json.dumps({"context": context}), flush=True)
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        print("models_torch.py: OPENBLAS_NUM_THREADS is not 1: torch's matrix products "
              "will use every core", file=sys.stderr)

    for name, forms, per_call in cases():
        if not pattern.search(name):
            continue
        times, first = {}, None
        for form, fn in forms():  # built in turn, and dropped: one model alive at a time
            with torch.inference_mode():
                output = fn()
                check_form(name, form, output, first)
                if first is None:
                    first = (form, output.reshape(-1))
                times[form] = median_ms(fn, args.repeats, args.seconds) / per_call
            del fn, output
        gc.collect()
        best = min(times, key=times.get)
        line = {"name": name, "ms": round(times[best], 4), "variant": best}
        if args.all_forms:
            line["forms"] = {form: round(ms, 4) for form, ms in times.items()}
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
