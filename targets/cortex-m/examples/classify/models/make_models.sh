#!/usr/bin/env bash
# Regenerates the example firmware's models: two PyTorch reference cases of
# tests/models/ (random weights, outputs in float64) converted with --dtype int8 for
# batch 1, each storing its first sequence as a self-test against PyTorch's float64
# outputs:
#   classifier_int8.focal  keyword-spotting-sized BiLSTM (2 x 64) with additive attention
#                          pooling over up to 64 words of a 1000-word vocabulary, 4
#                          classes; token table int8 too (--embedding-dtype int8)
#                          (rnn_classifier_kws_softmax4_e64_h64_a32_v1000)
#   classifier_static_int8.focal  the same classifier on static int8 activations
#                          (--quantize static, issue 36): int8 weights, activations and
#                          table, int16 cell state, f32 only from the logits on; ranges
#                          calibrated in float64 on all three of the case's sequences
#                          (64, 41 and 9 words); its self-test is its own outputs, bit
#                          for bit (attention and logits; the f32 softmax's within 0.1)
#   encoder_int8.focal     pre-LN GELU transformer encoder, 3 layers, d_model 48, 6 heads,
#                          [CLS] pooling, 5 classes, up to 16 tokens
#                          (torch_encoder_preln_gelu_cls_l3_d48_h6)
#   encoder_static_int8.focal  the same encoder on static int8 activations (--quantize
#                          static): integer attention, GELU by table, int8 layer norms and
#                          residuals, f32 only in the outputs' dequantization; calibrated in
#                          float64 on the case's four sequences (8, 5, 1 and 7 tokens); its
#                          self-test is its own outputs, bit for bit (logits within 0.05 of
#                          PyTorch's at conversion: 0.014)
# int8 stays within 0.1 of PyTorch's logits (about 3 %) through the classifier's 64 LSTM
# steps and within 0.02 for the encoder: the self-tests allow T + T |expected| with
# T = 0.1 and 0.05. In f32 the classifier's file would be 559 KB, with int8 weights
# 342 KB, with the int8 table too 154 KB.
# Usage: make_models.sh [BUILD_DIR]   (default build/host)
set -euo pipefail
cd "$(dirname "$0")/../../../../.."
focal="${1:-build/host}/bin/focal"
out=targets/cortex-m/examples/classify/models
cases=$(mktemp -d)
trap 'rm -rf "$cases"' EXIT
/usr/bin/python3 tests/models/make_rnn_reference.py "$cases" >/dev/null
/usr/bin/python3 tests/models/make_reference.py "$cases" --only torch-encoder >/dev/null

convert() {  # <output name> <case> <max seq> <tolerance> <quantization options> <expected outputs...>
  local name=$1 max_seq=$3 tolerance=$4 extra=$5 src="$cases/$2" self_test="$cases/self_test_$1"
  shift 5
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
  # shellcheck disable=SC2086  # the quantization options' words, split on purpose
  "$focal" convert --preset "$preset" --weights "$src/weights.safetensors" --config "$src/config.json" \
    $extra --max-batch 1 --max-seq "$max_seq" --strict --self-test "$self_test" --self-test-tolerance "$tolerance" \
    -o "$out/$name.focal"
}

classifier=rnn_classifier_kws_softmax4_e64_h64_a32_v1000
convert classifier_int8 $classifier 64 0.1 "--dtype int8 --embedding-dtype int8" logits probabilities attention
# The encoder's padded positions of last_hidden_state are unspecified: check its logits.
convert encoder_int8 torch_encoder_preln_gelu_cls_l3_d48_h6 16 0.05 "--dtype int8" logits
# Static int8: every sequence of a case, one calibration case (a .json of its inputs) each.
calibration() {  # <case> <output dir>
  mkdir -p "$2"
  /usr/bin/python3 -c "
import json, sys, numpy as np
ids, mask = (np.load(f'{sys.argv[1]}/inputs/{n}.npy') for n in ('input_ids', 'attention_mask'))
for row in range(ids.shape[0]):
    with open(f'{sys.argv[2]}/sequence{row}.json', 'w') as f:
        json.dump({'input_ids': ids[row:row + 1].tolist(), 'attention_mask': mask[row:row + 1].tolist()}, f)" \
    "$cases/$1" "$2"
}
calibration $classifier "$cases/calibration"
convert classifier_static_int8 $classifier 64 0.1 "--quantize static --calibration $cases/calibration" \
  logits probabilities attention
encoder=torch_encoder_preln_gelu_cls_l3_d48_h6
calibration $encoder "$cases/encoder_calibration"
convert encoder_static_int8 $encoder 16 0.05 "--quantize static --calibration $cases/encoder_calibration" logits
for model in "$out"/*.focal; do "$focal" plan "$model" --symbol model | sed -n '7,8p;11p'; done
# Held-out accuracy of the two classifier builds against PyTorch in float64 (README.md).
/usr/bin/python3 targets/cortex-m/examples/classify/models/accuracy.py "$focal" "$cases/$classifier" \
  "$out/classifier_int8.focal" "$out/classifier_static_int8.focal"
