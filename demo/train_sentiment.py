#!/usr/bin/env python3
"""Trains the `sentiment` demo model: short film reviews -> negative / positive.

The tutorial's "attention-enhanced LSTM for sentiment analysis" (an embedding, a
bidirectional LSTM, additive attention pooling and a softmax head), on synthetic reviews
from a seeded generator (no external data: IMDB is not in Debian). The reviews have the
structure that makes attention and the recurrence matter: negation ("was not great"),
contrast ("the plot was dull but the cast was superb": the clause after "but" decides),
concession ("although ..., ..."), intensifiers and neutral filler around the opinion.

    python3 demo/train_sentiment.py        # writes demo/sentiment/*

Writes, into --out (default demo/sentiment):
    model.pt              torch.save(model.state_dict()), float32, the tensor names of the
                          converter's rnn-classifier preset
    config.json           embedding, hidden, attention_units, num_classes, vocab_size,
                          max_len (the preset's keys) and id2label
    vocab.json            the words by id (0 <pad>, 1 <unk>)
    heldout.txt           2,000 held-out reviews (a generator stream of their own), one per
                          line: the label, a tab, the text
    heldout_expected.npy  PyTorch's probabilities for them in float64, [2000, 2]
    calibration/*.json    32 training reviews as `focal convert --calibration` cases
    train_log.txt         losses and accuracies

Preprocessing (the engine's caller does the same): the text is lower-case words and the
punctuation tokens "," and "." separated by single spaces; each is one id, unknown words
<unk> (id 1); the mask is 1 on the review's tokens.
"""

import argparse
import json
import os
import random
import time

# One core: torch.set_num_threads(1) below does not reach OpenBLAS's own thread pool.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

LABELS = ["negative", "positive"]
MAX_LEN = 48          # the generator never writes longer reviews

SUBJECTS = ["the movie", "this film", "the plot", "the acting", "the cast", "the script", "the ending",
            "the soundtrack", "the story", "the dialogue", "the pacing", "the characters", "the camera work",
            "the director", "the humour", "the music", "the lead actor", "the sequel", "the first half"]
VERBS = ["was", "is", "felt", "seemed", "looked", "turned out"]
POSITIVE = ["great", "wonderful", "brilliant", "excellent", "moving", "funny", "charming", "superb",
            "delightful", "gripping", "beautiful", "clever", "fresh", "powerful", "touching", "fantastic",
            "enjoyable", "memorable", "smart", "lovely"]
NEGATIVE = ["boring", "awful", "terrible", "dull", "weak", "predictable", "bland", "clumsy", "painful",
            "forgettable", "messy", "tedious", "silly", "flat", "lifeless", "confusing", "poor",
            "disappointing", "slow", "annoying"]
INTENSIFIERS = ["very", "really", "truly", "quite", "so", "incredibly", "rather", "pretty", "absolutely",
                "a bit"]
NEGATORS = ["not", "never", "hardly"]
OPENERS = ["i think", "honestly", "overall", "to be fair", "in short", "well", "frankly", "i must say",
           "all in all"]
FILLERS = ["i saw it on a rainy sunday", "we went with friends", "it runs two hours", "i watched it at home",
           "the cinema was full", "it came out last year", "my sister picked it", "the tickets were cheap"]


def clause(rng, polarity):
    """`subject verb [negator] [intensifier] adjective` with the given polarity (+1 / -1)."""
    negated = rng.random() < 0.3
    words = POSITIVE if (polarity > 0) != negated else NEGATIVE
    parts = [rng.choice(SUBJECTS), rng.choice(VERBS)]
    if negated:
        parts.append(rng.choice(NEGATORS))
    if rng.random() < 0.4:
        parts.append(rng.choice(INTENSIFIERS))
    parts.append(rng.choice(words))
    return " ".join(parts)


def review(rng):
    """One review and its label (0 negative, 1 positive)."""
    label = rng.randrange(2)
    polarity = 1 if label else -1
    form = rng.random()
    if form < 0.35:                         # one opinion
        body = clause(rng, polarity)
    elif form < 0.6:                        # two that agree
        body = f"{clause(rng, polarity)} and {clause(rng, polarity)}"
    elif form < 0.85:                       # contrast: the second decides
        body = f"{clause(rng, -polarity)} but {clause(rng, polarity)}"
    else:                                   # concession: the main clause decides
        body = f"although {clause(rng, -polarity)} , {clause(rng, polarity)}"
    if rng.random() < 0.5:
        body = f"{rng.choice(OPENERS)} , {body}"
    sentences = [body]
    if rng.random() < 0.4:
        sentences.insert(rng.randrange(2), rng.choice(FILLERS))
    return " . ".join(sentences) + " .", label


def vocabulary():
    words = set()
    for phrase in SUBJECTS + VERBS + POSITIVE + NEGATIVE + INTENSIFIERS + NEGATORS + OPENERS + FILLERS:
        words.update(phrase.split())
    words.update(["and", "but", "although", ",", "."])
    return ["<pad>", "<unk>"] + sorted(words)


def encode(texts, word_id):
    """ids and mask [N, longest] (int64), 0 after each review's tokens."""
    rows = [[word_id.get(w, 1) for w in text.split()] for text in texts]
    longest = max(len(r) for r in rows)
    assert longest <= MAX_LEN, longest
    ids = torch.zeros(len(rows), longest, dtype=torch.int64)
    mask = torch.zeros(len(rows), longest, dtype=torch.int64)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = torch.tensor(r)
        mask[i, :len(r)] = 1
    return ids, mask


class SentimentClassifier(nn.Module):
    """The rnn-classifier preset's model (tests/models/make_rnn_reference.py's RnnClassifier):
    a = softmax over valid s of v(tanh(W h_s)), logits = classifier(sum_s a_s h_s)."""

    def __init__(self, vocab_size, embedding, hidden, units, cell="lstm", layers=1):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding)
        # Named by its cell ("lstm", "gru"): the preset reads the cell from the name.
        self.cell = cell
        setattr(self, cell, (nn.LSTM if cell == "lstm" else nn.GRU)(embedding, hidden, num_layers=layers,
                                                                      bidirectional=True, batch_first=True))
        self.attention = nn.Module()
        self.attention.W = nn.Linear(2 * hidden, units)
        self.attention.v = nn.Linear(units, 1, bias=False)
        self.classifier = nn.Linear(2 * hidden, len(LABELS))

    def forward(self, ids, mask):
        x = self.embedding(ids)
        # Packed, so that the backward direction starts at each review's last token.
        packed = nn.utils.rnn.pack_padded_sequence(x, mask.sum(1).cpu(), batch_first=True, enforce_sorted=False)
        states, _ = getattr(self, self.cell)(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=ids.shape[1])
        scores = self.attention.v(torch.tanh(self.attention.W(states)))[..., 0]
        weights = scores.masked_fill(mask == 0, float("-inf")).softmax(-1)
        return self.classifier((weights[..., None] * states).sum(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "sentiment"))
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--train", type=int, default=24000, help="training reviews")
    ap.add_argument("--heldout", type=int, default=2000, help="held-out reviews")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--label-noise", type=float, default=0.1, help="fraction of training labels flipped")
    ap.add_argument("--embedding", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--units", type=int, default=16, help="attention units")
    ap.add_argument("--cell", choices=["lstm", "gru"], default="lstm",
                    help="the recurrent layer (tests/cli/test_static_int8_gru.py trains a GRU at test time)")
    ap.add_argument("--layers", type=int, default=1, help="stacked bidirectional layers")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    started = time.process_time()
    log = []

    def say(line):
        print(line, flush=True)
        log.append(line)

    vocab = vocabulary()
    word_id = {w: i for i, w in enumerate(vocab)}
    train_rng, heldout_rng = random.Random(args.seed), random.Random(args.seed + 1)
    train = [review(train_rng) for _ in range(args.train)]
    heldout = [review(heldout_rng) for _ in range(args.heldout)]
    seen = {text for text, _ in train}
    say(f"{len(vocab)} words; {args.train} training reviews, {args.heldout} held out "
        f"({sum(t not in seen for t, _ in heldout)} of them not in the training set)")

    model = SentimentClassifier(len(vocab), args.embedding, args.hidden, args.units, args.cell, args.layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    order = torch.Generator().manual_seed(args.seed)
    ids, mask = encode([t for t, _ in train], word_id)
    # Raters disagree: a tenth of the training labels are flipped (a seeded draw), so the
    # model learns calibrated probabilities instead of saturating at 0 and 1 on a task
    # its rules decide exactly.
    flip = random.Random(args.seed + 2)
    labels = torch.tensor([1 - y if flip.random() < args.label_noise else y for _, y in train])
    for epoch in range(args.epochs):
        model.train()
        total, batches = 0.0, 0
        for batch in torch.randperm(len(train), generator=order).split(64):
            longest = int(mask[batch].sum(1).max())
            loss = F.cross_entropy(model(ids[batch, :longest], mask[batch, :longest]), labels[batch])
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total, batches = total + loss.item(), batches + 1
        say(f"epoch {epoch + 1}: training loss {total / batches:.4f}")

    model.eval()
    held_ids, held_mask = encode([t for t, _ in heldout], word_id)
    held_labels = torch.tensor([y for _, y in heldout])
    with torch.no_grad():
        probabilities = model.double()(held_ids, held_mask).softmax(-1)
    model.float()
    accuracy = (probabilities.argmax(-1) == held_labels).double().mean().item()
    say(f"held-out accuracy {accuracy:.4f} ({args.heldout} reviews, PyTorch float64)")
    say(f"CPU time {time.process_time() - started:.1f} s")

    os.makedirs(os.path.join(args.out, "calibration"), exist_ok=True)
    torch.save(model.state_dict(), os.path.join(args.out, "model.pt"))
    config = {"embedding": args.embedding, "hidden": args.hidden, "attention_units": args.units,
              "num_classes": len(LABELS), "vocab_size": len(vocab), "max_len": MAX_LEN,
              "id2label": {str(i): name for i, name in enumerate(LABELS)}}
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    with open(os.path.join(args.out, "vocab.json"), "w") as f:
        json.dump(vocab, f, indent=0)
        f.write("\n")
    with open(os.path.join(args.out, "heldout.txt"), "w") as f:
        f.writelines(f"{LABELS[y]}\t{text}\n" for text, y in heldout)
    np.save(os.path.join(args.out, "heldout_expected.npy"), probabilities.numpy())
    for n, (text, _) in enumerate(train[:32]):
        case_ids, case_mask = encode([text], word_id)
        with open(os.path.join(args.out, "calibration", f"review_{n:02d}.json"), "w") as f:
            json.dump({"input_ids": case_ids.tolist(), "attention_mask": case_mask.tolist()}, f)
            f.write("\n")
    with open(os.path.join(args.out, "train_log.txt"), "w") as f:
        f.write("\n".join(log) + "\n")


if __name__ == "__main__":
    main()
