#!/usr/bin/env bash
# Regenerates the example firmware's models: two PyTorch reference cases of
# tests/models/ (random weights, outputs in float64) converted with --dtype int8 for
# batch 1 and up to 16 tokens, each storing its first sequence as a self-test against
# PyTorch's float64 outputs:
#   classifier_int8.focal  BiLSTM with additive attention pooling, 4 classes
#                          (rnn_classifier_softmax4_e24_h20_a16)
#   encoder_int8.focal     pre-LN GELU transformer encoder, 3 layers, d_model 48, 6 heads,
#                          [CLS] pooling, 5 classes (torch_encoder_preln_gelu_cls_l3_d48_h6)
# int8 (per-channel weights) stays within 0.03 of PyTorch here; the self-tests allow
# 0.05 + 0.05 |expected|. Usage: make_models.sh [BUILD_DIR]   (default build/host)
set -euo pipefail
cd "$(dirname "$0")/../../../../.."
focal="${1:-build/host}/bin/focal"
out=targets/cortex-m/examples/classify/models
cases=$(mktemp -d)
trap 'rm -rf "$cases"' EXIT
/usr/bin/python3 tests/models/make_rnn_reference.py "$cases" >/dev/null
/usr/bin/python3 tests/models/make_reference.py "$cases" --only torch-encoder >/dev/null

convert() {  # <output name> <case> <expected outputs...>
  local name=$1 case=$2 src="$cases/$2" self_test="$cases/self_test_$1"
  shift 2
  mkdir -p "$self_test/inputs" "$self_test/expected"
  cp "$src"/inputs/*.npy "$self_test/inputs/"
  for output in "$@"; do cp "$src/expected/$output.npy" "$self_test/expected/"; done
  # The first sequence only: the firmware plans for batch 1.
  /usr/bin/python3 -c "
import glob, sys, numpy as np
for f in glob.glob(sys.argv[1] + '/*/*.npy'):
    np.save(f, np.load(f)[:1])" "$self_test"
  local preset
  preset=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['preset'])" "$src/case.json")
  "$focal" convert --preset "$preset" --weights "$src/weights.safetensors" --config "$src/config.json" \
    --dtype int8 --max-batch 1 --max-seq 16 --strict --self-test "$self_test" --self-test-tolerance 0.05 \
    -o "$out/$name.focal"
}

# The encoder's padded positions of last_hidden_state are unspecified: check its logits.
convert classifier_int8 rnn_classifier_softmax4_e24_h20_a16 logits probabilities attention
convert encoder_int8 torch_encoder_preln_gelu_cls_l3_d48_h6 logits
for model in "$out"/*.focal; do "$focal" plan "$model" --symbol model | sed -n '7,8p;11p'; done
