#!/usr/bin/env bash
# Writes tests/goldens/static_int8_sentiment/: the trained sentiment demo model
# (demo/sentiment) converted with --quantize static (calibrated on its 32 calibration
# reviews) for batch 16, its self-test the first 16 held-out reviews. That self-test holds
# the int8 model's own logits and attention weights, bit for bit (atol = rtol = 0), as the
# host computed them at conversion; tests/test_goldens.cpp runs it on every instruction
# set of every Linux target (natively and under qemu), so the same integers come out on
# x86-64, aarch64 and armv7. inputs/ and expected/ hold the reviews and PyTorch's float64
# probabilities. Usage: tests/models/make_static_int8_golden.sh [BUILD_DIR] (default build/host)
set -euo pipefail
cd "$(dirname "$0")/../.."
focal="${1:-build/host}/bin/focal"
demo=demo/sentiment
dst=tests/goldens/static_int8_sentiment
self_test=$(mktemp -d)
trap 'rm -rf "$self_test"' EXIT
rm -rf "$dst"
mkdir -p "$dst/inputs" "$dst/expected" "$self_test/inputs" "$self_test/expected"
/usr/bin/python3 - "$demo" "$dst" <<'PY'
import json, sys
import numpy as np
demo, dst = sys.argv[1], sys.argv[2]
word_id = {w: i for i, w in enumerate(json.load(open(f"{demo}/vocab.json")))}
rows = [[word_id.get(w, 1) for w in line.rstrip("\n").split("\t")[1].split()] for line in open(f"{demo}/heldout.txt")][:16]
ids = np.zeros((len(rows), max(map(len, rows))), np.int32)
mask = np.zeros_like(ids)
for i, row in enumerate(rows):
    ids[i, :len(row)], mask[i, :len(row)] = row, 1
np.save(f"{dst}/inputs/input_ids.npy", ids)
np.save(f"{dst}/inputs/attention_mask.npy", mask)
np.save(f"{dst}/expected/probabilities.npy", np.load(f"{demo}/heldout_expected.npy")[:16])
json.dump({"family": "static-int8", "preset": "rnn-classifier", "source": demo, "inputs": ["input_ids", "attention_mask"],
           "outputs": ["probabilities"], "atol": 0.02, "rtol": 0.0}, open(f"{dst}/case.json", "w"), indent=2)
PY
cp "$dst"/inputs/*.npy "$self_test/inputs/"
cp "$dst"/expected/*.npy "$self_test/expected/"
"$focal" convert --preset rnn-classifier --weights "$demo/model.pt" --config "$demo/config.json" \
  --quantize static --calibration "$demo/calibration" --max-batch 16 --max-seq 48 --strict \
  --self-test "$self_test" --self-test-tolerance 0.02 -o "$dst/model.focal"
