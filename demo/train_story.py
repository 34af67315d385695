#!/usr/bin/env python3
"""Trains the `story` demo model: a tiny GPT-2 (decoder-only transformer) on the
King James Bible, with its own byte-level BPE tokenizer.

    python3 demo/train_story.py            # writes demo/story/*

Needs the Debian package bible-kjv-text (scripts/bootstrap installs it). Its
data file is one Unix-compress (LZW) stream behind a small index header; this
script decompresses it itself (no other tool needed).

Writes, into --out (default demo/story):
    vocab.json, merges.txt    the tokenizer, in GPT-2's file formats
    model.safetensors         HF GPT-2 parameter names and layouts, float16
    config.json               HF GPT-2 config keys
    prompts.txt               3 prompts, one per line
    prompts_expected.txt      greedy continuations (JSON, one object per line)
    train_log.txt             the training log
"""

import argparse
import json
import math
import os
import re
import struct
import time

# One core: torch.set_num_threads(1) below does not reach OpenBLAS's own thread
# pool, so it is pinned here, before torch loads it.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
import unicodedata

import torch
import torch.nn as nn
import torch.nn.functional as F

KJV_DATA = "/usr/lib/bible.data"
EOT = "<|endoftext|>"

# ---------------------------------------------------------------------------
# Reading the KJV text out of bible-kjv-text's data file.


def lzw_decompress(data):
    """Decompresses a Unix `compress` (.Z, magic 1f 9d) stream."""
    if data[:2] != b"\x1f\x9d":
        raise ValueError("not a compress stream")
    maxbits = data[2] & 0x1F
    block_mode = bool(data[2] & 0x80)
    body = data[3:] + b"\0\0\0"
    total_bits = (len(data) - 3) * 8
    n_bits = 9
    maxmax = 1 << maxbits
    table = [bytes([i]) for i in range(256)]
    if block_mode:
        table.append(b"")               # 256 = CLEAR
    pos = 0                             # bit position of the next code
    group_start = 0                     # where the current code width began
    old = None
    out = []
    while pos + n_bits <= total_bits:
        free_ent = len(table)
        maxcode = maxmax if n_bits == maxbits else (1 << n_bits) - 1
        if free_ent > maxcode:
            # compress writes codes in groups of n_bits bytes (8 codes); when the
            # width changes the rest of the current group is padding.
            group = n_bits * 8
            pos = group_start + -(-(pos - group_start) // group) * group
            group_start = pos
            n_bits += 1
            continue
        i = pos >> 3
        v = body[i] | (body[i + 1] << 8) | (body[i + 2] << 16)
        code = (v >> (pos & 7)) & ((1 << n_bits) - 1)
        pos += n_bits
        if code == 256 and block_mode:
            group = n_bits * 8
            pos = group_start + -(-(pos - group_start) // group) * group
            group_start = pos
            n_bits = 9
            del table[257:]
            old = None
            continue
        if old is None:
            entry = table[code]
        elif code < len(table):
            entry = table[code]
            if len(table) < maxmax:
                table.append(old + entry[:1])
        else:                           # the KwKwK case
            entry = old + old[:1]
            if len(table) < maxmax:
                table.append(entry)
        out.append(entry)
        old = entry
    return b"".join(out)


def read_kjv(path=KJV_DATA):
    """Returns [(book, chapter, verse, text)] from bible-kjv-text's data file."""
    raw = open(path, "rb").read()
    if raw[:4] != b"EC02":
        raise ValueError("unexpected bible.data header")
    # Header: 88 bytes of magic and description, uint32 BE fields at 0x54
    # (uncompressed block size) and 0x58 (block count n), then n+1 uint32 BE
    # block offsets; the compress stream follows them.
    n = struct.unpack(">I", raw[0x58:0x5C])[0]
    start = 0x5C + 4 * (n + 1)
    text = lzw_decompress(raw[start:]).decode("ascii")
    verses = []
    ref = re.compile(r"^([1-3]?[A-Za-z]+)(\d+):(\d+) (.*)$")
    for line in text.split("\n")[1:]:          # line 0 is the file's title line
        if not line:
            continue
        m = ref.match(line)
        if not m:
            raise ValueError("unparsed line: %r" % line[:60])
        verses.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4).strip()))
    return verses


def split_books(verses, val_every=20, chunk=50):
    """Cleaning and split. Each book becomes one document: its verses, references
    stripped, joined with '\\n'. Every book's verse list is cut into chunks of 50
    verses (the last chunk of a book may be shorter), numbered k = 0, 1, ... across
    the whole Bible; chunk k goes to validation when k % 20 == 10, else to training.
    Returns lists of text segments (train, val); segments are separated by
    <|endoftext|> in the token stream."""
    books = []
    for b, _, _, t in verses:
        if not books or books[-1][0] != b:
            books.append((b, []))
        books[-1][1].append(t)
    train, val = [], []
    k = 0
    for _, vs in books:
        cur = []
        for first in range(0, len(vs), chunk):
            part = vs[first:first + chunk]
            k += 1
            if (k - 1) % val_every == val_every // 2:
                if cur:
                    train.append("\n".join(cur))
                    cur = []
                val.append("\n".join(part))
            else:
                cur.extend(part)
        if cur:
            train.append("\n".join(cur))
    return train, val


# ---------------------------------------------------------------------------
# Byte-level BPE, GPT-2 style.


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable unicode char mapping. The order of the
    returned dict is also the order of the 256 byte tokens' ids."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1))
          + list(range(ord("\u00ae"), ord("\u00ff") + 1)))
    cs = list(bs)
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


# GPT-2's pattern  's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
# Python's re has no \p{..}. We run the same pattern on a stand-in string of equal
# length in which every non-ASCII character is replaced by an ASCII character of the
# same class (letter -> 'a', number -> '0', whitespace -> '\t', other -> '!'), with
# re.ASCII; spans then index the original text. Classes: L = unicodedata category
# L*, N = category N*, whitespace = str.isspace(). For ASCII text (all of the KJV
# here) this is exactly GPT-2's pre-tokenization.
_PAT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""",
                  re.ASCII)


def _standin(ch):
    if ord(ch) < 128:
        return ch
    cat = unicodedata.category(ch)
    if cat[0] == "L":
        return "a"
    if cat[0] == "N":
        return "0"
    if ch.isspace():
        return "\t"
    return "!"


def pretokenize(text):
    s = "".join(_standin(c) for c in text) if not text.isascii() else text
    return [text[m.start():m.end()] for m in _PAT.finditer(s)]


class BPE:
    def __init__(self, merges):
        self.byte_enc = bytes_to_unicode()
        self.merges = list(merges)
        self.ranks = {m: i for i, m in enumerate(self.merges)}
        self.vocab = {c: i for i, c in enumerate(self.byte_enc.values())}
        for a, b in self.merges:
            self.vocab[a + b] = len(self.vocab)
        self.vocab[EOT] = len(self.vocab)
        self.inv = {i: t for t, i in self.vocab.items()}
        self.byte_dec = {c: b for b, c in self.byte_enc.items()}
        self.cache = {}

    def _word(self, word):
        if word in self.cache:
            return self.cache[word]
        syms = [self.byte_enc[b] for b in word.encode("utf-8")]
        while len(syms) > 1:
            best = min(((self.ranks.get((syms[i], syms[i + 1]), 1 << 30), i)
                        for i in range(len(syms) - 1)))
            if best[0] == 1 << 30:
                break
            a, b = self.merges[best[0]]
            merged, i = [], 0
            while i < len(syms):
                if i < len(syms) - 1 and syms[i] == a and syms[i + 1] == b:
                    merged.append(a + b)
                    i += 2
                else:
                    merged.append(syms[i])
                    i += 1
            syms = merged
        ids = [self.vocab[s] for s in syms]
        self.cache[word] = ids
        return ids

    def encode(self, text):
        ids = []
        for w in pretokenize(text):
            ids.extend(self._word(w))
        return ids

    def decode(self, ids):
        out = bytearray()
        for i in ids:
            t = self.inv[i]
            if t == EOT:
                out += EOT.encode()
            else:
                out += bytes(self.byte_dec[c] for c in t)
        return out.decode("utf-8", errors="replace")


def train_bpe(texts, n_merges):
    """Most frequent adjacent pair first; ties go to the smallest pair (string order)."""
    byte_enc = bytes_to_unicode()
    counts = {}
    for t in texts:
        for w in pretokenize(t):
            counts[w] = counts.get(w, 0) + 1
    words = [([byte_enc[b] for b in w.encode("utf-8")], c) for w, c in counts.items()]
    merges = []
    for _ in range(n_merges):
        pairs = {}
        for syms, c in words:
            for i in range(len(syms) - 1):
                p = (syms[i], syms[i + 1])
                pairs[p] = pairs.get(p, 0) + c
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        a, b = best
        for k, (syms, c) in enumerate(words):
            if len(syms) < 2:
                continue
            i, merged = 0, None
            while i < len(syms) - 1:
                if syms[i] == a and syms[i + 1] == b:
                    if merged is None:
                        merged = syms[:i]
                    merged.append(a + b)
                    i += 2
                else:
                    if merged is not None:
                        merged.append(syms[i])
                    i += 1
            if merged is not None:
                if i == len(syms) - 1:
                    merged.append(syms[-1])
                words[k] = (merged, c)
    return merges


# ---------------------------------------------------------------------------
# The model: HF GPT-2 parameter names and layouts.


class Conv1D(nn.Module):
    """y = x @ W + b with W stored [in, out], as HF GPT-2's Conv1D."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).reshape(
            *x.shape[:-1], self.weight.shape[1])


class Attention(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.n_head = n_head
        self.c_attn = Conv1D(d, 3 * d)
        self.c_proj = Conv1D(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=-1)
        hd = d // self.n_head
        q, k, v = (z.reshape(b, t, self.n_head, hd).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        causal = torch.ones(t, t, dtype=torch.bool).triu(1)
        att = att.masked_fill(causal, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_fc = Conv1D(d, 4 * d)
        self.c_proj = Conv1D(4 * d, d)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, d, n_head, eps):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d, eps=eps)
        self.attn = Attention(d, n_head)
        self.ln_2 = nn.LayerNorm(d, eps=eps)
        self.mlp = MLP(d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, eps = cfg["n_embd"], cfg["layer_norm_epsilon"]
        self.wte = nn.Embedding(cfg["vocab_size"], d)
        self.wpe = nn.Embedding(cfg["n_positions"], d)
        self.h = nn.ModuleList(Block(d, cfg["n_head"], eps) for _ in range(cfg["n_layer"]))
        self.ln_f = nn.LayerNorm(d, eps=eps)
        for name, p in self.named_parameters():
            if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight":
                continue
            if p.dim() == 1:
                continue
            std = 0.02 / math.sqrt(2 * cfg["n_layer"]) if name.endswith("c_proj.weight") else 0.02
            nn.init.normal_(p, 0.0, std)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.wte(ids) + self.wpe(torch.arange(t))[None]
        for blk in self.h:
            x = blk(x)
        return self.ln_f(x) @ self.wte.weight.t()     # LM head tied to wte


# ---------------------------------------------------------------------------
# safetensors, written and read by hand.


def save_safetensors(path, tensors, dtype):
    names = sorted(tensors)
    header, blobs, off = {}, [], 0
    code = {torch.float16: "F16", torch.float32: "F32"}[dtype]
    for n in names:
        t = tensors[n].detach().to(dtype).contiguous()
        data = t.numpy().tobytes()
        header[n] = {"dtype": code, "shape": list(t.shape), "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def load_safetensors(path):
    import numpy as np
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, info in header.items():
        a, b = info["data_offsets"]
        dt = {"F16": np.float16, "F32": np.float32}[info["dtype"]]
        arr = np.frombuffer(raw[8 + n + a:8 + n + b], dtype=dt).reshape(info["shape"])
        out[name] = torch.from_numpy(arr.astype(np.float32))
    return out


@torch.no_grad()
def greedy(model, ids, n_new, n_positions):
    """Greedy continuation (full recompute each step; the window never exceeds
    n_positions here). Also returns each step's top-1 minus top-2 logit margin."""
    ids = list(ids)
    out, margins = [], []
    for _ in range(n_new):
        logits = model(torch.tensor([ids[-n_positions:]]))[0, -1]
        top = logits.topk(2)
        margins.append(float(top.values[0] - top.values[1]))
        nxt = int(top.indices[0])
        ids.append(nxt)
        out.append(nxt)
    return out, margins


PROMPTS = ["In the beginning", "And the LORD said unto Moses", "Blessed are the"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "story"))
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--steps", type=int, default=1800)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--eval-every", type=int, default=200)
    ap.add_argument("--vocab-size", type=int, default=512)
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    log_lines = []

    def log(msg):
        print(msg, flush=True)
        log_lines.append(msg)

    t_start = time.process_time()
    verses = read_kjv()
    train_txt, val_txt = split_books(verses)
    log("KJV: %d verses, %d train segments (%d chars), %d validation segments (%d chars)"
        % (len(verses), len(train_txt), sum(map(len, train_txt)), len(val_txt), sum(map(len, val_txt))))

    n_merges = args.vocab_size - 256 - 1
    merges = train_bpe(train_txt, n_merges)
    bpe = BPE(merges)
    assert len(bpe.vocab) == args.vocab_size
    eot = bpe.vocab[EOT]
    log("BPE: %d merges, vocab %d, %s = %d (%.0f s CPU so far)"
        % (len(merges), len(bpe.vocab), EOT, eot, time.process_time() - t_start))
    with open(os.path.join(args.out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(bpe.vocab, f, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(args.out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write("%s %s\n" % (a, b))

    def stream(segments):
        ids = []
        for s in segments:
            ids.extend(bpe.encode(s))
            ids.append(eot)
        return torch.tensor(ids, dtype=torch.long)

    train_ids, val_ids = stream(train_txt), stream(val_txt)
    assert bpe.decode(bpe.encode(val_txt[0])) == val_txt[0]
    log("tokens: train %d, validation %d (%.2f chars/token); tokenizing done at %.0f s CPU"
        % (len(train_ids), len(val_ids), sum(map(len, train_txt)) / len(train_ids),
           time.process_time() - t_start))

    cfg = {"vocab_size": len(bpe.vocab), "n_embd": 128, "n_layer": 4, "n_head": 4,
           "n_positions": 128, "layer_norm_epsilon": 1e-5}
    model = GPT2(cfg)
    n_params = sum(p.numel() for p in model.parameters())
    log("model: %d parameters, config %s" % (n_params, cfg))
    T = cfg["n_positions"]
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() != 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))
    gen = torch.Generator().manual_seed(args.seed)

    def lr_at(step):
        if step <= args.warmup:
            return args.lr * step / args.warmup
        p = (step - args.warmup) / max(1, args.steps - args.warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * p)))

    @torch.no_grad()
    def val_loss(m):
        m.eval()
        n = (len(val_ids) - 1) // T
        x = val_ids[:n * T].reshape(n, T)
        y = val_ids[1:n * T + 1].reshape(n, T)
        tot = 0.0
        for i in range(0, n, 32):
            lg = m(x[i:i + 32])
            tot += F.cross_entropy(lg.reshape(-1, lg.shape[-1]), y[i:i + 32].reshape(-1),
                                   reduction="sum").item()
        m.train()
        return tot / (n * T)

    t0 = time.process_time()
    run = None
    for step in range(1, args.steps + 1):
        idx = torch.randint(0, len(train_ids) - T - 1, (args.batch,), generator=gen)
        x = torch.stack([train_ids[i:i + T] for i in idx.tolist()])
        y = torch.stack([train_ids[i + 1:i + T + 1] for i in idx.tolist()])
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        lg = model(x)
        loss = F.cross_entropy(lg.reshape(-1, lg.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        run = loss.item() if run is None else 0.95 * run + 0.05 * loss.item()
        if step % args.eval_every == 0 or step == args.steps:
            log("step %5d  train loss %.4f  val loss %.4f  cpu %.0fs"
                % (step, run, val_loss(model), time.process_time() - t0))
    cpu = time.process_time() - t0
    vl32 = val_loss(model)
    log("trained %d steps (%d tokens) in %.0f s CPU; val loss (float32) %.4f"
        % (args.steps, args.steps * args.batch * T, cpu, vl32))

    tensors = {n: p for n, p in model.state_dict().items()}
    path = os.path.join(args.out, "model.safetensors")
    save_safetensors(path, tensors, torch.float16)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(dict(cfg, model_type="gpt2", activation_function="gelu_new",
                       bos_token_id=eot, eos_token_id=eot, n_inner=None), f, indent=1)
        f.write("\n")

    # Everything below comes from the saved float16 weights (computed in float32).
    loaded = GPT2(cfg)
    loaded.load_state_dict(load_safetensors(path))
    loaded.eval()
    vl16 = val_loss(loaded)
    log("val loss from the saved float16 weights: %.4f (%.3f bits/char)"
        % (vl16, vl16 / math.log(2) * len(val_ids) / sum(map(len, val_txt))))
    with open(os.path.join(args.out, "prompts.txt"), "w") as f:
        f.write("\n".join(PROMPTS) + "\n")
    with open(os.path.join(args.out, "prompts_expected.txt"), "w", encoding="utf-8") as f:
        for p in PROMPTS:
            pids = bpe.encode(p)
            cont, margins = greedy(loaded, pids, 40, T)
            margin = min(margins)
            text = bpe.decode(cont)
            rec = {"prompt": p, "prompt_ids": pids, "continuation_ids": cont,
                   "continuation": text, "min_top2_logit_margin": round(margin, 4),
                   "top2_logit_margins": [round(m, 4) for m in margins]}
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            log("%r -> %r (min top-2 margin %.3f)" % (p, text, margin))
    log("total CPU %.0f s" % (time.process_time() - t_start))
    with open(os.path.join(args.out, "train_log.txt"), "w") as f:
        f.write("\n".join(log_lines) + "\n")


if __name__ == "__main__":
    main()
