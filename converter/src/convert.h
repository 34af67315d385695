// `focal convert` as a library call: checkpoints and a preset in, verified .focal bytes
// out. The CLI (targets/linux/cli/convert.cpp) and the tests call this.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "focal/status.h"
#include "focal/tensor.h"
#include "fit/fit_report.h"
#include "int8_accuracy.h"

namespace focal {
namespace convert {

struct ConvertOptions {
  std::string preset;  // a preset name, "auto" (from config.json or the tensor names), or empty with `spec`
  std::string spec;    // a declarative model spec (JSON file; converter/README.md)
  std::vector<std::string> weights;  // checkpoint files, searched in order
  std::string config;                // config.json; empty: none
  // --hf DIR: a Hugging Face folder as downloaded (hf/hf_folder.h lists the files read),
  // in place of weights and config: its weights (sharded too), its tokenizer unless
  // `tokenizer` is given, generation_config.json's ids (hyperparameters generation.*) and
  // a sentence-transformers pipeline (output sentence_embedding). The preset comes from
  // config.json when `preset` is "auto" or empty.
  std::string hf_dir;
  DType dtype = DType::kF32;         // Dense weights: kF32, kF16, kBF16, kI8 or kI4
  // --group-size: k per f16 scale of int4 weights (32, 64 or 128); 0: 32. Only with kI4.
  size_t group_size = 0;
  DType embedding_dtype = DType::kF32;  // token embedding tables: kF32, kF16 or kI8 (per-row scales)
  // KV caches: kF32, kF16 or kI8 (one scale per token and kv head, quantized as each token
  // is appended; ModelWriter::set_kv_cache_type).
  DType kv_dtype = DType::kF32;
  int64_t max_batch = 1;
  int64_t max_seq = 0;  // 0: the preset's default
  bool strict = false;  // unused checkpoint tensors are an error, not a warning
  bool logits_all = false;  // --logits all: a decoder's logits at every position, not only the last
  // --activations int8 (dtype must be kI8): dense weights in the int8-dot layout, their
  // input rows quantized to int8 at run time (W8A8). Each dense layer's error is
  // measured first (int8_accuracy.h) and reported in Converted::accuracy.
  bool int8_activations = false;
  // --quantize static: int8 weights per output channel and static int8
  // activations with calibrated scales and zero points, fixed-point requantization, for
  // the Embedding -> LSTM -> AttentionPool -> Dense -> Softmax classifiers
  // (quantize/static_graph.h; convert_static.h says how it is self-tested).
  bool quantize_static = false;
  // --keep-f32: layers kept in weight-only int8 (int8 weights, f32 activations): a comma
  // list of weight names and/or "auto" (every layer whose relative RMS error exceeds
  // keep_threshold; 0: kDefaultKeepThreshold). Empty: none.
  std::string keep_f32;
  double keep_threshold = 0.0;
  // --calibration DIR: the measurement's inputs (calibration_inputs.h); empty: the
  // generated self-test inputs. With quantize_static, the inputs activation ranges are
  // calibrated on.
  std::string calibration_dir;
  // --fit ram=64K,flash=256K[,...]: convert in each weight and activation choice and keep
  // the most accurate that fits the part (fit/fit.h, fit/fit_budget.h); empty: off.
  std::string fit;
  // Dense weights (tensor names as the model stores them) kept in f32 whatever `dtype`
  // says: --fit's per-layer choice (fit/fit_layers.h). A name that is no dense weight
  // changes nothing. Not with --quantize static.
  std::vector<std::string> float_weights;
  std::vector<std::string> overrides;  // --set NAME=VALUE, over the config (config_overrides.h)
  std::vector<std::string> renames;    // --rename FROM=TO, on the tensor names (presets/tensor_renames.h)
  // Every converted model stores a self-test, which the converter runs on what it wrote
  // and `focal verify` reruns wherever the model is deployed; an element passes when
  // |got - want| <= atol + rtol |want|.
  //  - self_test_dir empty: inputs are generated (reference/generated_inputs.h: batch 1,
  //    seq 8 or the plan's maximum if smaller, seeded token ids within the embedding
  //    tables, masks of 1s then 0s, floats in [-1, 1)) and every f32 output is checked;
  //  - DIR/inputs/<input>.npy for every model input, with DIR/expected/<output>.npy for
  //    the outputs to check (any subset; e.g. PyTorch's outputs in float64);
  //  - DIR/inputs only: every f32 output is checked.
  // Without expected files, the converter computes the expected outputs itself, in
  // double precision, from the weights as stored (after f16/bf16/int8 rounding) with the
  // reference evaluator (reference/evaluator.h): the self-test then checks the engine's
  // f32 arithmetic, not the storage dtype's rounding.
  std::string self_test_dir;
  bool self_test = true;  // false (--no-self-test): store none; conflicts with a dir
  // Tokenizers stored in the model (tokenizers/tokenizer_files.h); empty: none.
  std::string tokenizer;
  std::string target_tokenizer;
  // 0: the default, 1e-4 for expected files, else computed_self_test_tolerance(dtype).
  float self_test_atol = 0.0f;
  float self_test_rtol = 0.0f;
  // Called with a short line at each stage (reading, building with the share of
  // checkpoint tensors taken so far, writing, verifying); null: silent.
  std::function<void(const std::string&)> progress;
};

struct Converted {
  std::vector<uint8_t> bytes;
  std::vector<std::string> warnings;
  int self_tests = 0;                 // stored and passed on the host
  bool self_test_computed = false;    // expected outputs from the reference evaluator
  float self_test_worst_ratio = 0.0f;  // worst error over its tolerance (<= 1)
  AccuracyReport accuracy;             // with int8 activations: every dense layer, kept or not
  FitReport fit;                       // with --fit: every choice tried, one of them chosen
};

// --keep-f32 auto's default: a layer whose output moves by more than this relative RMS
// error under int8 activations keeps f32 activations.
constexpr double kDefaultKeepThreshold = 0.02;
// --group-size's default: k per scale of int4 weights.
constexpr size_t kDefaultInt4Group = 32;

Result<Converted> convert_checkpoint(const ConvertOptions& options);

// The self-test tolerance (atol = rtol) for expected outputs computed in double from
// the weights as stored, per Dense weight type. The engine reads f16, bf16 and int8
// weights back exactly and computes in f32 (int8 does not quantize activations: it sums
// x * q in f32 and multiplies by the channel's scale), so the only differences are f32
// rounding of sums, exp/tanh/erf and normalization, and one bound, 1e-4, serves every
// type. Measured worst element, as a share of it: BERT-base-sized random weights at seq
// 8, 0.04 (f32), 0.06 (f16), 0.04 (bf16), 0.04 (int8); the test model cases (every
// preset, f32), at most 0.05.
// With int8 activations the expected outputs quantize each dense layer's input rows as
// the engine does, but from double-precision rows, so the bound is wider:
// kInt8ActivationTolerance here, widened per model at conversion (convert_self_test.cpp).
// An int8 KV cache (kv_dtype kI8) also takes kInt8ActivationTolerance and an f16 one 1e-3:
// the expected outputs round appended keys and values from double-precision rows, so a
// value on a rounding boundary may land one step away from the engine's.
float computed_self_test_tolerance(DType dtype, bool int8_activations = false, DType kv_dtype = DType::kF32);

// "f32", "f16", "bf16", "int8", "int4" -> the Dense weight type; false for anything else.
bool parse_weight_dtype(const std::string& text, DType* dtype);

}  // namespace convert
}  // namespace focal
