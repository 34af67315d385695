#!/usr/bin/env python3
"""Trains the `dates` demo model: human-written dates -> ISO YYYY-MM-DD.

A character-level RNN encoder-decoder with Bahdanau (additive) attention.
The data is synthetic, made by a seeded generator (no external data).

    python3 demo/train_dates.py            # writes demo/dates/*

Writes, into --out (default demo/dates):
    model.pt                  torch.save(model.state_dict()), float32
    vocab.json                {"source": [tokens by id], "target": [tokens by id]}
    config.json               the hyperparameters, in the keys of the engine's
                              rnn_seq2seq converter preset
    examples.txt              12 source strings, one per line
    examples_expected.txt     the model's greedy outputs for them
    examples_alignment.json   greedy tokens + attention argmax per output step
    train_log.txt             the training log (losses, accuracies, metrics)

Source preprocessing (the engine must do the same): s.strip().lower(), then
one token per character; characters outside the source vocabulary map to
<unk> (id 3). The source sequence has no <bos>/<eos>: just the characters.
"""

import argparse
import datetime
import json
import os
import random
import time

# One core: torch.set_num_threads(1) below does not reach OpenBLAS's own thread
# pool, so it is pinned here, before torch loads it.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]
MAX_SRC_LEN = 40     # the generator never makes longer strings
MAX_TGT_STEPS = 12   # decoding stops at <eos> or after this many steps

MONTHS = ["january", "february", "march", "april", "may", "june", "july",
          "august", "september", "october", "november", "december"]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday",
            "saturday", "sunday"]

# Source alphabet: every character the generator can produce (after lowercasing).
SOURCE_CHARS = sorted(set("".join(MONTHS) + "".join(WEEKDAYS) + "0123456789"
                          + " ,./-'" + "stndrdth" + "of" + "the"))
TARGET_CHARS = list("0123456789-")

SOURCE_VOCAB = SPECIALS + SOURCE_CHARS
TARGET_VOCAB = SPECIALS + TARGET_CHARS
SRC_ID = {c: i for i, c in enumerate(SOURCE_VOCAB)}
TGT_ID = {c: i for i, c in enumerate(TARGET_VOCAB)}

# Two-digit years follow the POSIX strptime %y pivot: 69-99 -> 1969-1999,
# 00-68 -> 2000-2068. Four-digit years span 1900-2099.
YEAR_MIN, YEAR_MAX = 1900, 2099
YY_MIN, YY_MAX = 1969, 2068


def preprocess(s):
    """The exact source preprocessing: strip, lowercase."""
    return s.strip().lower()


def encode_source(s):
    return [SRC_ID.get(c, UNK) for c in preprocess(s)]


def ordinal(d):
    if 11 <= d % 100 <= 13:
        return "%dth" % d
    return "%d%s" % (d, {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th"))


# --------------------------------------------------------------------------
# The generator. Each format returns the string and, for the alignment check,
# the character spans of its day, month and year fields.
# Conventions: slashes are US order (month/day/year); dots are day.month.year;
# "1987-03-03" style dashes are ISO order; "03-mar-1987" uses a month name.

def _cap(rng, word):
    r = rng.random()
    if r < 0.5:
        return word.capitalize()
    if r < 0.8:
        return word
    return word.upper()


def _month_word(rng, m):
    full = MONTHS[m - 1]
    if rng.random() < 0.5 or len(full) <= 3:
        return _cap(rng, full)
    ab = full[:3]
    if full == "september" and rng.random() < 0.3:
        ab = "sept"
    if rng.random() < 0.2:
        ab += "."
    return _cap(rng, ab)


def _weekday_word(rng, date):
    full = WEEKDAYS[date.weekday()]
    return _cap(rng, full if rng.random() < 0.6 else full[:3])


def _day(rng, d, allow_ordinal=True):
    r = rng.random()
    if allow_ordinal and r < 0.3:
        return ordinal(d)
    if r < 0.65:
        return "%d" % d
    return "%02d" % d


class Builder:
    """Concatenates pieces and records where the day/month/year fields are."""

    def __init__(self):
        self.text = ""
        self.spans = {}

    def add(self, piece, field=None):
        start = len(self.text)
        self.text += piece
        if field is not None:
            self.spans[field] = (start, len(self.text))
        return self


def format_date(rng, date, fmt):
    d, m, y = date.day, date.month, date.year
    yy = "%02d" % (y % 100)
    b = Builder()
    if fmt == 0:    # 3 March 1987
        b.add(_day(rng, d), "day").add(" ").add(_month_word(rng, m), "month").add(" ").add(str(y), "year")
    elif fmt == 1:  # March 3, 1987
        b.add(_month_word(rng, m), "month").add(" ").add(_day(rng, d), "day")
        b.add(rng.choice([", ", " "])).add(str(y), "year")
    elif fmt == 2:  # 03/03/1987 (US: month/day/year)
        mm = "%02d" % m if rng.random() < 0.6 else "%d" % m
        b.add(mm, "month").add("/").add(_day(rng, d, False), "day").add("/").add(str(y), "year")
    elif fmt == 3:  # Tuesday 3rd of March 1987
        b.add(_weekday_word(rng, date)).add(rng.choice([" ", ", "]))
        if rng.random() < 0.3:
            b.add("the ")
        b.add(ordinal(d), "day").add(" of ").add(_month_word(rng, m), "month")
        b.add(rng.choice([" ", ", "])).add(str(y), "year")
    elif fmt == 4:  # 3.3.87 (day.month.two-digit year)
        dd = "%d" % d if rng.random() < 0.5 else "%02d" % d
        mm = "%d" % m if rng.random() < 0.5 else "%02d" % m
        b.add(dd, "day").add(".").add(mm, "month").add(".").add(yy, "year")
    elif fmt == 5:  # 1987 Mar 3
        b.add(str(y), "year").add(" ").add(_month_word(rng, m), "month").add(" ").add(_day(rng, d), "day")
    elif fmt == 6:  # mar 3 87
        b.add(_month_word(rng, m), "month").add(" ").add(_day(rng, d), "day").add(" ").add(yy, "year")
    elif fmt == 7:  # Tue, 3 Mar 1987
        b.add(_weekday_word(rng, date)).add(rng.choice([", ", " "]))
        b.add(_day(rng, d), "day").add(" ").add(_month_word(rng, m), "month").add(" ").add(str(y), "year")
    elif fmt == 8:  # Tuesday, March 3, 1987
        b.add(_weekday_word(rng, date)).add(", ")
        b.add(_month_word(rng, m), "month").add(" ").add(_day(rng, d), "day").add(", ").add(str(y), "year")
    elif fmt == 9:  # 1987-03-03 (ISO order)
        b.add(str(y), "year").add("-").add("%02d" % m, "month").add("-").add("%02d" % d, "day")
    elif fmt == 10:  # 03-Mar-1987
        b.add(_day(rng, d, False), "day").add("-").add(_month_word(rng, m).rstrip("."), "month")
        two = YY_MIN <= y <= YY_MAX and rng.random() < 0.4
        b.add("-").add(yy if two else str(y), "year")
    elif fmt == 11:  # 3/3/87 (US: month/day/two-digit year)
        b.add("%d" % m, "month").add("/").add("%d" % d, "day").add("/").add(yy, "year")
    elif fmt == 12:  # the 3rd of march, 1987
        b.add("the ").add(ordinal(d), "day").add(" of ").add(_month_word(rng, m), "month")
        b.add(rng.choice([", ", " "])).add(str(y), "year")
    elif fmt == 13:  # 03.03.1987 (day.month.year)
        b.add("%02d" % d, "day").add(".").add("%02d" % m, "month").add(".").add(str(y), "year")
    elif fmt == 14:  # March 3rd '87
        b.add(_month_word(rng, m), "month").add(" ").add(_day(rng, d), "day").add(" '").add(yy, "year")
    else:
        raise ValueError(fmt)
    return b.text, b.spans


N_FORMATS = 15
TWO_DIGIT_YEAR_FORMATS = {4, 6, 11, 14}


def random_date(rng, fmt):
    lo, hi = (YY_MIN, YY_MAX) if fmt in TWO_DIGIT_YEAR_FORMATS else (YEAR_MIN, YEAR_MAX)
    first = datetime.date(lo, 1, 1).toordinal()
    last = datetime.date(hi, 12, 31).toordinal()
    return datetime.date.fromordinal(rng.randint(first, last))


def sample(rng):
    """One (source string, ISO target, field spans) triple."""
    fmt = rng.randrange(N_FORMATS)
    date = random_date(rng, fmt)
    text, spans = format_date(rng, date, fmt)
    assert len(text) <= MAX_SRC_LEN, text
    return text, date.isoformat(), spans


# --------------------------------------------------------------------------
# The model. Module names and shapes are the ones the engine's converter maps.

class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(128, 128, bias=False)   # W1 s_{t-1}
        self.key = nn.Linear(256, 128, bias=True)      # W2 h_j
        self.energy = nn.Linear(128, 1, bias=False)    # v


class DateModel(nn.Module):
    def __init__(self, vs, vt):
        super().__init__()
        self.src_embedding = nn.Embedding(vs, 64)
        self.encoder = nn.LSTM(64, 128, num_layers=1, bidirectional=True, batch_first=True)
        self.bridge_h = nn.Linear(256, 128)
        self.bridge_c = nn.Linear(256, 128)
        self.attention = Attention()
        self.tgt_embedding = nn.Embedding(vt, 64)
        self.decoder = nn.LSTM(64 + 256, 128, num_layers=1, batch_first=True)
        self.output = nn.Linear(128 + 256, vt)

    def encode(self, src, lengths):
        """src [B, S] (padded with 0), lengths [B] -> enc [B, S, 256], keys, mask, (h0, c0)."""
        emb = self.src_embedding(src)
        packed = nn.utils.rnn.pack_padded_sequence(emb, lengths.cpu(), batch_first=True,
                                                   enforce_sorted=False)
        out, (h, c) = self.encoder(packed)
        enc, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
        # h, c: [2, B, 128]; index 0 = forward after the last true char,
        # index 1 = backward after reading back to the first char.
        h0 = torch.tanh(self.bridge_h(torch.cat([h[0], h[1]], dim=-1)))
        c0 = torch.tanh(self.bridge_c(torch.cat([c[0], c[1]], dim=-1)))
        keys = self.attention.key(enc)                                  # [B, S, 128]
        mask = torch.arange(src.shape[1])[None, :] < lengths[:, None]  # [B, S]
        return enc, keys, mask, (h0.unsqueeze(0), c0.unsqueeze(0))

    def step(self, y_prev, state, enc, keys, mask):
        """One Bahdanau step. y_prev [B] -> logits [B, Vt], attn [B, S], new state."""
        s_prev = state[0][0]                                             # [B, 128]
        score = self.attention.energy(torch.tanh(self.attention.query(s_prev)[:, None, :] + keys))
        score = score.squeeze(-1).masked_fill(~mask, float("-inf"))
        attn = torch.softmax(score, dim=-1)                              # [B, S]
        context = torch.bmm(attn[:, None, :], enc).squeeze(1)            # [B, 256]
        x = torch.cat([self.tgt_embedding(y_prev), context], dim=-1)[:, None, :]
        out, state = self.decoder(x, state)
        logits = self.output(torch.cat([out[:, 0], context], dim=-1))
        return logits, attn, state

    def forward(self, src, lengths, tgt_in):
        """Teacher forcing: tgt_in [B, T] starts with <bos>.
        Returns logits [B, T, Vt] and attention weights [B, T, S]."""
        enc, keys, mask, state = self.encode(src, lengths)
        logits, attns = [], []
        for t in range(tgt_in.shape[1]):
            lg, attn, state = self.step(tgt_in[:, t], state, enc, keys, mask)
            logits.append(lg)
            attns.append(attn)
        return torch.stack(logits, dim=1), torch.stack(attns, dim=1)

    @torch.no_grad()
    def greedy(self, src, lengths, max_steps=MAX_TGT_STEPS):
        """Greedy decoding. Returns per example: the token ids (up to and including
        <eos>), the attention row of each step, and the smallest top-1 minus top-2
        logit margin over its steps."""
        enc, keys, mask, state = self.encode(src, lengths)
        b = src.shape[0]
        y = torch.full((b,), BOS, dtype=torch.long)
        done = torch.zeros(b, dtype=torch.bool)
        toks = [[] for _ in range(b)]
        attns = [[] for _ in range(b)]
        margins = [float("inf")] * b
        for _ in range(max_steps):
            lg, attn, state = self.step(y, state, enc, keys, mask)
            top = lg.topk(2, dim=-1).values
            y = lg.argmax(-1)
            for i in range(b):
                if not done[i]:
                    toks[i].append(int(y[i]))
                    attns[i].append(attn[i, :int(lengths[i])].tolist())
                    margins[i] = min(margins[i], float(top[i, 0] - top[i, 1]))
            done |= y == EOS
            if bool(done.all()):
                break
        return toks, attns, margins


def batchify(sources, targets=None):
    ids = [encode_source(s) for s in sources]
    lengths = torch.tensor([len(x) for x in ids], dtype=torch.long)
    src = torch.zeros(len(ids), int(lengths.max()), dtype=torch.long)
    for i, x in enumerate(ids):
        src[i, :len(x)] = torch.tensor(x)
    if targets is None:
        return src, lengths
    tgt = torch.tensor([[BOS] + [TGT_ID[c] for c in t] + [EOS] for t in targets])
    return src, lengths, tgt


def alignment_targets(sources, targets, spans, src_len):
    """For the auxiliary attention loss: allowed [B, 11, S] marks the sensible source
    positions of each digit step (see sensible_positions); steps [B, 11] is 1 on the
    8 digit steps and 0 on the '-' and <eos> steps, which are left unsupervised."""
    allowed = torch.zeros(len(sources), 11, src_len, dtype=torch.bool)
    for i, (s, t, sp) in enumerate(zip(sources, targets, spans)):
        for k, pos in enumerate(sensible_positions(s, t, sp)):
            if pos is not None:
                allowed[i, k, sorted(pos)] = True
    return allowed, allowed.any(-1).float()


def decode_target(ids):
    out = []
    for i in ids:
        if i == EOS:
            break
        out.append(TARGET_VOCAB[i] if i >= len(SPECIALS) else SPECIALS[i])
    return "".join(out)


def evaluate(model, sources, targets, bs=500):
    model.eval()
    correct = 0
    for i in range(0, len(sources), bs):
        src, lengths = batchify(sources[i:i + bs])
        toks, _, _ = model.greedy(src, lengths)
        for t, ref in zip(toks, targets[i:i + bs]):
            correct += decode_target(t) == ref
    model.train()
    return correct / len(sources)


# --------------------------------------------------------------------------
# Alignment check.

def sensible_positions(source, iso, spans):
    """For each of the 10 output characters of `iso`, the set of source positions
    (in the preprocessed string) it is copied or derived from; None for '-'.

    A digit copied from the source maps to that one character. A digit that is
    not written in the source maps to all the digits of the field it is derived
    from: the leading '0' of a day or month written with one digit, the century
    of a two-digit year (either digit of the year); every digit of a month
    written as a word maps to any letter of the month word.
    """
    src = preprocess(source)
    y, m, d = iso[0:4], iso[5:7], iso[8:10]
    result = [None] * 10

    def field(name, out_digits, out_offset):
        a, b = spans[name]
        text = src[a:b]
        digits = [(a + k, ch) for k, ch in enumerate(text) if ch.isdigit()]
        if not digits:   # a month word
            letters = set(range(a, a + len(text.rstrip("."))))
            for k in range(len(out_digits)):
                result[out_offset + k] = letters
            return
        whole = set(p for p, _ in digits)
        written = "".join(ch for _, ch in digits)
        pad = len(out_digits) - len(written)   # digits of the output not in the source
        for k in range(len(out_digits)):
            if k < pad:
                result[out_offset + k] = whole
            else:
                p, ch = digits[k - pad]
                assert ch == out_digits[k], (source, iso, name)
                result[out_offset + k] = {p}

    field("year", y, 0)
    field("month", m, 5)
    field("day", d, 8)
    return result


EXAMPLES = [
    "3 March 1987",
    "March 3, 1987",
    "03/03/1987",
    "Tuesday 3rd of March 1987",
    "3.3.87",
    "1987 Mar 3",
    "mar 3 87",
    "Sat, 25 Dec 2021",
    "Wednesday, July 20, 1969",
    "the 1st of january, 2000",
    "12/31/99",
    "29-Feb-2024",
]


def example_spans(source):
    """Field spans for the fixed examples, found by re-parsing the string."""
    import re
    s = preprocess(source)
    spans = {}
    for m in re.finditer(r"[a-z]+\.?|\d+(?:st|nd|rd|th)?", s):
        tok = m.group(0)
        word = tok.rstrip(".")
        if word.isalpha():
            if any(mo.startswith(word) for mo in MONTHS) and len(word) >= 3 and word not in ("the", "of"):
                if not any(wd.startswith(word) for wd in WEEKDAYS):
                    spans["month"] = (m.start(), m.start() + len(tok))
            continue
        digits = re.match(r"\d+", tok).group(0)
        spans.setdefault("_nums", []).append((m.start(), m.start() + len(digits), tok))
    nums = spans.pop("_nums")
    # Assign numbers to fields with the generator's conventions.
    if "/" in s:                                    # US month/day/year
        order = ["month", "day", "year"]
    elif "." in s:                                  # day.month.year
        order = ["day", "month", "year"]
    elif re.match(r"\d{4}", s):                     # year first
        order = ["year", "month", "day"] if "month" not in spans else ["year", "day"]
    elif "month" in spans:
        order = ["day", "year"]
    else:
        order = ["year", "month", "day"]
    for (a, b, _), name in zip(nums, order):
        spans[name] = (a, b)
    return spans


def alignment_report(model, sources, log):
    src, lengths = batchify(sources)
    toks, attns, margins = model.greedy(src, lengths)
    records = []
    hits = total = 0
    field_hits = 0
    for source, tk, at, mg in zip(sources, toks, attns, margins):
        out = decode_target(tk)
        spans = example_spans(source)
        iso_ok = len(out) == 10
        sens = sensible_positions(source, out, spans) if iso_ok else [None] * 10
        fields = {"year": spans["year"], "month": spans["month"], "day": spans["day"]}
        steps = []
        for k, row in enumerate(at):
            arg = max(range(len(row)), key=lambda j: row[j])
            tok = TARGET_VOCAB[tk[k]]
            entry = {"token": tok, "attn_argmax": arg,
                     "attn_char": preprocess(source)[arg], "attn_max": round(row[arg], 4)}
            if k < 10 and sens[k] is not None:
                ok = arg in sens[k]
                entry["sensible"] = sorted(sens[k])
                entry["ok"] = ok
                hits += ok
                total += 1
                fname = "year" if k < 4 else "month" if k < 7 else "day"
                a, b = fields[fname]
                field_hits += a <= arg < b
            steps.append(entry)
        records.append({"source": source, "preprocessed": preprocess(source), "output": out,
                        "source_ids": encode_source(source), "output_ids": tk,
                        "min_top2_logit_margin": round(mg, 4),
                        "fields": {k: list(v) for k, v in fields.items()}, "steps": steps})
    frac = hits / max(total, 1)
    log("alignment check: %d/%d digit steps attend to a sensible source char (%.1f%%); "
        "%d/%d land inside the right field (%.1f%%)"
        % (hits, total, 100 * frac, field_hits, total, 100 * field_hits / max(total, 1)))
    return records, frac, [decode_target(t) for t in toks]


def heldout_alignment(model, sources, targets, spans, bs=500):
    """The same check over the held-out set, with the generator's own field spans
    (strict: sensible char; loose: anywhere inside the right field)."""
    hits = loose = total = 0
    for i in range(0, len(sources), bs):
        src, lengths = batchify(sources[i:i + bs])
        _, attns, _ = model.greedy(src, lengths)
        for s, t, sp, at in zip(sources[i:i + bs], targets[i:i + bs], spans[i:i + bs], attns):
            for k, pos in enumerate(sensible_positions(s, t, sp)):
                if pos is None or k >= len(at):
                    continue
                row = at[k]
                arg = max(range(len(row)), key=lambda j: row[j])
                a, b = sp["year" if k < 4 else "month" if k < 7 else "day"]
                hits += arg in pos
                loose += a <= arg < b
                total += 1
    return hits / total, loose / total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "dates"))
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--attn-weight", type=float, default=1.0,
                    help="weight of the auxiliary attention-supervision loss (0 = none)")
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    log_lines = []

    def log(msg):
        print(msg, flush=True)
        log_lines.append(msg)

    # Held-out set: 1000 dates from its own generator; training never sees these strings.
    held_rng = random.Random(args.seed + 1)
    held = [sample(held_rng) for _ in range(1000)]
    held_src = [h[0] for h in held]
    held_tgt = [h[1] for h in held]
    held_set = set(preprocess(s) for s in held_src) | set(preprocess(s) for s in EXAMPLES)

    train_rng = random.Random(args.seed)

    def train_batch():
        srcs, tgts, spans = [], [], []
        while len(srcs) < args.batch:
            s, t, sp = sample(train_rng)
            if preprocess(s) in held_set:
                continue
            srcs.append(s)
            tgts.append(t)
            spans.append(sp)
        src, lengths, tgt = batchify(srcs, tgts)
        allowed, steps = alignment_targets(srcs, tgts, spans, src.shape[1])
        return src, lengths, tgt, allowed, steps

    model = DateModel(len(SOURCE_VOCAB), len(TARGET_VOCAB))
    n_params = sum(p.numel() for p in model.parameters())
    log("dates: %d parameters, source vocab %d, target vocab %d, seed %d"
        % (n_params, len(SOURCE_VOCAB), len(TARGET_VOCAB), args.seed))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    t0 = time.process_time()
    acc = 0.0
    run_loss = None
    step = 0
    run_attn = 0.0
    for step in range(1, args.steps + 1):
        src, lengths, tgt, allowed, steps = train_batch()
        logits, attn = model(src, lengths, tgt[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt[:, 1:].reshape(-1))
        # Auxiliary attention supervision: -log of the attention mass on the
        # sensible source characters, averaged over the digit steps.
        mass = (attn * allowed).sum(-1).clamp_min(1e-9)
        attn_loss = -(mass.log() * steps).sum() / steps.sum()
        total = loss + args.attn_weight * attn_loss
        opt.zero_grad()
        total.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        run_loss = loss.item() if run_loss is None else 0.98 * run_loss + 0.02 * loss.item()
        run_attn = attn_loss.item() if step == 1 else 0.98 * run_attn + 0.02 * attn_loss.item()
        if step % args.eval_every == 0 or step == args.steps:
            acc = evaluate(model, held_src, held_tgt)
            log("step %5d  loss %.4f (last batch %.6f)  attn loss %.4f  held-out exact match %.1f%%  cpu %.0fs"
                % (step, run_loss, loss.item(), run_attn, 100 * acc, time.process_time() - t0))
    cpu = time.process_time() - t0
    log("trained %d steps in %.0f s CPU; final batch loss %.6f; held-out exact match %.2f%%"
        % (step, cpu, loss.item(), 100 * acc))
    log("final batch loss (cross-entropy only, full precision): %r" % loss.item())

    model.eval()
    torch.save(model.state_dict(), os.path.join(args.out, "model.pt"))
    with open(os.path.join(args.out, "vocab.json"), "w") as f:
        json.dump({"source": SOURCE_VOCAB, "target": TARGET_VOCAB}, f, indent=1)
        f.write("\n")
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump({"cell": "lstm", "attention": "bahdanau", "embedding": 64, "hidden": 128,
                   "decoder_hidden": 128, "encoder_layers": 1, "bidirectional": True,
                   "src_vocab": len(SOURCE_VOCAB), "tgt_vocab": len(TARGET_VOCAB),
                   "max_src_len": MAX_SRC_LEN, "max_tgt_len": MAX_TGT_STEPS,
                   "pad_token_id": PAD, "bos_token_id": BOS, "eos_token_id": EOS, "unk_token_id": UNK}, f,
                  indent=1)
        f.write("\n")

    # Everything below comes from the saved weights.
    reloaded = DateModel(len(SOURCE_VOCAB), len(TARGET_VOCAB))
    reloaded.load_state_dict(torch.load(os.path.join(args.out, "model.pt")))
    reloaded.eval()
    acc2 = evaluate(reloaded, held_src, held_tgt)
    log("held-out exact match from the saved weights: %.2f%% (%d/1000)" % (100 * acc2, round(acc2 * 1000)))
    strict, loose = heldout_alignment(reloaded, held_src, held_tgt, [h[2] for h in held])
    log("alignment check on the 1000 held-out dates: %.1f%% of digit steps on a sensible char, "
        "%.1f%% inside the right field" % (100 * strict, 100 * loose))
    records, frac, outs = alignment_report(reloaded, EXAMPLES, log)
    with open(os.path.join(args.out, "examples.txt"), "w") as f:
        f.write("\n".join(EXAMPLES) + "\n")
    with open(os.path.join(args.out, "examples_expected.txt"), "w") as f:
        f.write("\n".join(outs) + "\n")
    with open(os.path.join(args.out, "examples_alignment.json"), "w") as f:
        json.dump({"definition": sensible_positions.__doc__.strip(),
                   "digit_steps_sensible_fraction": round(frac, 4),
                   "examples": records}, f, indent=1)
        f.write("\n")
    for s, o in zip(EXAMPLES, outs):
        log("  %-28s -> %s" % (s, o))
    with open(os.path.join(args.out, "train_log.txt"), "w") as f:
        f.write("\n".join(log_lines) + "\n")


if __name__ == "__main__":
    main()
