// The PyTorch goldens (tests/goldens: BERT and nn.TransformerEncoder encoders, a GPT-2
// and a Llama decoder, an nn.Transformer encoder-decoder, an LSTM seq2seq model with
// Bahdanau attention and the attention-pooled BiLSTM classifier) run from flash on a
// Cortex-M: each model is loaded and verified in place, given a session over one
// static arena, and its stored self-test (inputs and PyTorch's float64 outputs) must
// pass, the same vectors the host and qemu-user runs check. The tiny test model written
// with int8 activations (DenseInt8Dot weights) runs its own self-test alongside them.
#include <algorithm>
#include <cstdio>

#include "focal/focal.h"
#include "golden_bert.h"
#include "golden_bert_plan.h"
#include "golden_gpt2.h"
#include "golden_gpt2_plan.h"
#include "golden_llama.h"
#include "golden_llama_plan.h"
#include "golden_rnn_classifier.h"
#include "golden_rnn_classifier_plan.h"
#include "golden_rnn_seq2seq.h"
#include "golden_rnn_seq2seq_plan.h"
#include "golden_torch_encoder.h"
#include "golden_torch_encoder_plan.h"
#include "golden_torch_transformer.h"
#include "golden_torch_transformer_plan.h"
#include "tiny_int8.h"
#include "tiny_int8_plan.h"

namespace {

// One arena for all, one model at a time: the largest of their plans (focal plan, at
// build time), so it grows with the goldens and never wastes RAM.
constexpr unsigned long kArenaBytes =
    std::max({golden_bert_arena_bytes, golden_torch_encoder_arena_bytes, golden_gpt2_arena_bytes,
              golden_llama_arena_bytes, golden_torch_transformer_arena_bytes, golden_rnn_seq2seq_arena_bytes,
              golden_rnn_classifier_arena_bytes, tiny_int8_arena_bytes});
alignas(64) uint8_t g_arena[kArenaBytes];

bool run_golden(const char* name, const unsigned char* bytes, unsigned long size) {
  auto model = focal::Model::from_bytes(bytes, size);
  if (!model.ok()) {
    std::printf("%s: load failed: %s\n", name, model.status().message());
    return false;
  }
  auto session = focal::Session::create(*model, focal::SessionOptions(), g_arena, sizeof(g_arena));
  if (!session.ok()) {
    std::printf("%s: session failed: %s\n", name, session.status().message());
    return false;
  }
  auto report = focal::run_self_tests(session.value());
  if (!report.ok()) {
    std::printf("%s: self-test could not run: %s\n", name, report.status().message());
    return false;
  }
  const bool passed = report->cases > 0 && report->failed_cases == 0;
  // %lu, not %llu: newlib-nano's printf has no long long.
  std::printf("%s: %s, %lu parameters, arena %lu bytes: %s (max abs error %.3g, worst %.3g of tolerance)\n",
              name, model->architecture(), static_cast<unsigned long>(model->parameter_count()),
              static_cast<unsigned long>(model->arena_bytes()), passed ? "PASS" : "FAIL",
              static_cast<double>(report->max_abs_error), static_cast<double>(report->worst_tolerance_ratio));
  return passed;
}

}  // namespace

int main() {
  bool ok = run_golden("bert", golden_bert, golden_bert_size);
  ok = run_golden("torch-encoder", golden_torch_encoder, golden_torch_encoder_size) && ok;
  ok = run_golden("gpt2", golden_gpt2, golden_gpt2_size) && ok;
  ok = run_golden("llama", golden_llama, golden_llama_size) && ok;
  ok = run_golden("torch-transformer", golden_torch_transformer, golden_torch_transformer_size) && ok;
  ok = run_golden("rnn-seq2seq", golden_rnn_seq2seq, golden_rnn_seq2seq_size) && ok;
  ok = run_golden("rnn-classifier", golden_rnn_classifier, golden_rnn_classifier_size) && ok;
  ok = run_golden("tiny-int8-activations", tiny_int8, tiny_int8_size) && ok;
  std::printf("goldens: %s\n", ok ? "all PASS" : "FAILED");
  return ok ? 0 : 1;
}
