#!/usr/bin/env bash
# Regenerates tests/goldens/: a few reference cases (tests/models/make_reference.py,
# PyTorch float64) converted to .focal by the host build's `focal convert`, with their
# inputs and expected outputs, so the golden tests run where PyTorch cannot: under
# qemu for aarch64 and armv7, and in Cortex-M firmware. Usage:
#   tests/models/make_goldens.sh [BUILD_DIR]      (default build/host)
set -euo pipefail
cd "$(dirname "$0")/../.."
focal="${1:-build/host}/bin/focal"
cases=$(mktemp -d)
trap 'rm -rf "$cases"' EXIT
/usr/bin/python3 tests/models/make_reference.py "$cases" >/dev/null
/usr/bin/python3 tests/models/make_rnn_reference.py "$cases" >/dev/null

# case name, --max-seq: the encoders' position tables are short; decoders plan 80.
# Each golden also stores a self-test (PyTorch's outputs), which `focal verify` and the
# Cortex-M firmware run: the outputs named below (padded positions of
# last_hidden_state are unspecified, so the encoders check their pooled outputs).
goldens=(
  "bert_l2_d32_h4 16"
  "torch_encoder_postln_relu_mean_l2_d32_h4 16"
  "gpt2_l2_d32_h4 80"
  "llama_mqa_hd16_l3_d32_h4_kv1 80"
  "torch_transformer_postln_relu_e2_d1_d32_h4 16"
  "rnn_bahdanau_lstm_bi_l1_e16_h16_hd24 16"
  "rnn_classifier_sigmoid_e16_h16_a12 16"
)
rm -rf tests/goldens
for entry in "${goldens[@]}"; do
  read -r name max_seq <<<"$entry"
  src="$cases/$name"
  dst="tests/goldens/$name"
  mkdir -p "$dst"
  preset=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['preset'])" "$src/case.json")
  weights=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['weights'])" "$src/case.json")
  self_test="$cases/self_test_$name"
  mkdir -p "$self_test/inputs" "$self_test/expected"
  case "$preset" in
    bert|torch-encoder)
      cp "$src"/inputs/*.npy "$self_test/inputs/"
      for out in pooler_output logits; do
        [[ -f "$src/expected/$out.npy" ]] && cp "$src/expected/$out.npy" "$self_test/expected/"
      done ;;
    gpt2|llama)
      cp "$src/inputs/prompt_ids.npy" "$self_test/inputs/input_ids.npy"
      cp "$src/expected/prefill_logits.npy" "$self_test/expected/logits.npy" ;;
    torch-transformer)
      cp "$src"/inputs/*.npy "$self_test/inputs/"
      cp "$src/expected/output.npy" "$self_test/expected/" ;;
    rnn-seq2seq)  # encode, then the first decoder step from <bos>
      cp "$src"/inputs/*.npy "$self_test/inputs/"
      /usr/bin/python3 - "$src" "$self_test" <<'PY'
import sys, numpy as np
src, out = sys.argv[1], sys.argv[2]
ids = np.load(f"{src}/inputs/source_ids.npy")
np.save(f"{out}/inputs/prev_ids.npy", np.full((ids.shape[0],), 1, dtype=np.int32))
np.save(f"{out}/expected/logits.npy", np.load(f"{src}/expected/greedy_logits.npy")[:, 0])
np.save(f"{out}/expected/attention.npy", np.load(f"{src}/expected/greedy_attention.npy")[:, 0])
PY
      ;;
    rnn-classifier)
      cp "$src"/inputs/*.npy "$self_test/inputs/"
      cp "$src"/expected/*.npy "$self_test/expected/" ;;
  esac
  "$focal" convert --preset "$preset" --weights "$src/$weights" --config "$src/config.json" \
    --max-batch 4 --max-seq "$max_seq" --strict --self-test "$self_test" -o "$dst/model.focal"
  cp "$src/case.json" "$dst/"
  cp -r "$src/inputs" "$dst/"
  mkdir -p "$dst/expected"
  # Per-step logits are large; the greedy tokens and prefill logits check the decoders.
  find "$src/expected" -name '*.npy' ! -name step_logits.npy -exec cp {} "$dst/expected/" \;
done
# The static int8 golden: the trained sentiment model, bit for bit on every core.
tests/models/make_static_int8_golden.sh "${1:-build/host}"
du -sh tests/goldens
