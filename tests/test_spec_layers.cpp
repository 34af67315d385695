// Spec layer kinds, one small spec each: written with seeded random weights (a
// safetensors file), converted by the real converter, which stores a self-test whose
// expected outputs the double-precision reference evaluator computes and runs it on the
// engine. A kind passes when it converts with every checkpoint tensor used and the
// engine's outputs match the reference evaluator's within the self-test's tolerance.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "convert.h"
#include "support/safetensors_writer.h"

using nlohmann::json;
using namespace focal;

namespace {

struct NamedShape {
  std::string name;
  std::vector<int64_t> shape;
};

// A safetensors file of f32 tensors with normal random values (std 0.3, seeded).
void write_safetensors(const std::string& path, const std::vector<NamedShape>& tensors) {
  std::mt19937 random(1234);
  std::normal_distribution<float> normal(0.0f, 0.3f);
  std::vector<testing::NamedTensor> filled;
  for (const NamedShape& t : tensors) {
    size_t count = 1;
    for (int64_t d : t.shape) count *= static_cast<size_t>(d);
    filled.push_back({t.name, t.shape, std::vector<float>(count)});
    for (float& v : filled.back().values) v = normal(random);
  }
  testing::write_safetensors(path, filled);
}

// Converts `spec` with weights of `shapes`.
Result<convert::Converted> convert_spec(const json& spec, const std::vector<NamedShape>& shapes,
                                        DType dtype = DType::kF32) {
  char dir_template[] = "/tmp/focal_spec_layers_XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  write_safetensors(dir + "/weights.safetensors", shapes);
  std::ofstream(dir + "/spec.json") << spec.dump(2);
  convert::ConvertOptions options;
  options.spec = dir + "/spec.json";
  options.weights = {dir + "/weights.safetensors"};
  options.max_batch = 2;
  options.strict = true;
  options.dtype = dtype;
  auto converted = convert::convert_checkpoint(options);
  std::remove((dir + "/weights.safetensors").c_str());
  std::remove((dir + "/spec.json").c_str());
  std::remove(dir.c_str());
  return converted;
}

// Converts `spec` with weights of `shapes`; checks the stored self-test ran and passed.
void check_converts(const json& spec, const std::vector<NamedShape>& shapes) {
  const auto converted = convert_spec(spec, shapes);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  CHECK(converted->self_tests == 1);
  CHECK(converted->self_test_computed);
  CHECK(converted->self_test_worst_ratio <= 1.0f);
}

json f32_input(const char* name, json shape) {
  return {{"name", name}, {"dtype", "f32"}, {"shape", std::move(shape)}};
}
json i32_input(const char* name, json shape) {
  return {{"name", name}, {"dtype", "i32"}, {"shape", std::move(shape)}};
}

}  // namespace

TEST_CASE("spec layer dot_product_attention: causal grouped-query attention over projected q, k, v") {
  const json spec = {
      {"symbols", {{"seq", 8}}},
      {"inputs", {f32_input("x", {"batch", "seq", 16})}},
      {"layers",
       {{{"op", "dense"}, {"name", "q"}, {"input", "x"}, {"weight", "wq"}},
        {{"op", "dense"}, {"name", "k"}, {"input", "x"}, {"weight", "wk"}},
        {{"op", "dense"}, {"name", "v"}, {"input", "x"}, {"weight", "wv"}},
        {{"op", "dot_product_attention"}, {"name", "y"}, {"q", "q"}, {"k", "k"}, {"v", "v"}, {"heads", 4},
         {"kv_heads", 2}, {"causal", true}}}},
      {"outputs", {"y"}}};
  check_converts(spec, {{"wq", {16, 16}}, {"wk", {8, 16}}, {"wv", {8, 16}}});
}

TEST_CASE("spec layer copy: an f32 activation and an i32 mask keep their values and dtypes") {
  const json spec = {
      {"symbols", {{"seq", 8}}},
      {"inputs", {f32_input("x", {"batch", "seq", 6}), i32_input("mask", {"batch", "seq"})}},
      {"layers",
       {{{"op", "copy"}, {"name", "x_copy"}, {"input", "x"}},
        {{"op", "copy"}, {"name", "mask_copy"}, {"input", "mask"}},
        {{"op", "pool"}, {"name", "y"}, {"mode", "mean"}, {"input", "x_copy"}, {"mask", "mask_copy"}}}},
      {"outputs", {"x_copy", "y"}}};
  check_converts(spec, {});
}

TEST_CASE("spec layer concat: two and three inputs along the last axis") {
  const json spec = {
      {"symbols", {{"seq", 8}}},
      {"inputs", {f32_input("x", {"batch", "seq", 6})}},
      {"layers",
       {{{"op", "dense"}, {"name", "a"}, {"input", "x"}, {"weight", "w"}, {"activation", "tanh"}},
        {{"op", "concat"}, {"name", "pair"}, {"inputs", {"x", "a"}}},
        {{"op", "concat"}, {"name", "y"}, {"inputs", {"a", "pair", "x"}}}}},
      {"outputs", {"pair", "y"}}};
  check_converts(spec, {{"w", {4, 6}}});
}

TEST_CASE("spec layer recurrent: a masked bidirectional LSTM with final states, and a GRU from h0") {
  const json spec = {
      {"symbols", {{"seq", 8}}},
      {"inputs", {f32_input("x", {"batch", "seq", 5}), i32_input("mask", {"batch", "seq"}),
                  f32_input("h0", {"batch", 3})}},
      {"layers",
       {{{"op", "recurrent"}, {"name", "lstm"}, {"input", "x"}, {"mask", "mask"}, {"cell", "lstm"},
         {"w_ih", "l.w_ih"}, {"w_hh", "l.w_hh"}, {"b_ih", "l.b_ih"}, {"b_hh", "l.b_hh"},
         {"reverse", {{"w_ih", "l.w_ih_r"}, {"w_hh", "l.w_hh_r"}, {"b_ih", "l.b_ih_r"}, {"b_hh", "l.b_hh_r"}}},
         {"h_n", "lstm_h"}, {"c_n", "lstm_c"}},
        {{"op", "recurrent"}, {"name", "gru"}, {"input", "lstm"}, {"cell", "gru"}, {"h0", "h0"},
         {"w_ih", "g.w_ih"}, {"w_hh", "g.w_hh"}, {"b_hh", "g.b_hh"}}}},
      {"outputs", {"lstm_h", "lstm_c", "gru"}}};
  check_converts(spec, {{"l.w_ih", {16, 5}}, {"l.w_hh", {16, 4}}, {"l.b_ih", {16}}, {"l.b_hh", {16}},
                        {"l.w_ih_r", {16, 5}}, {"l.w_hh_r", {16, 4}}, {"l.b_ih_r", {16}}, {"l.b_hh_r", {16}},
                        {"g.w_ih", {9, 8}}, {"g.w_hh", {9, 3}}, {"g.b_hh", {9}}});
}

TEST_CASE("spec layer recurrent_step: one LSTM step and one GRU step from given states") {
  const json spec = {
      {"inputs", {f32_input("x", {"batch", 5}), f32_input("h0", {"batch", 4}), f32_input("c0", {"batch", 4})}},
      {"layers",
       {{{"op", "recurrent_step"}, {"name", "lstm"}, {"input", "x"}, {"cell", "lstm"}, {"h0", "h0"}, {"c0", "c0"},
         {"w_ih", "l.w_ih"}, {"w_hh", "l.w_hh"}, {"b_ih", "l.b_ih"}},
        {{"op", "recurrent_step"}, {"name", "gru"}, {"input", "lstm"}, {"cell", "gru"}, {"h0", "h0"},
         {"w_ih", "g.w_ih"}, {"w_hh", "g.w_hh"}, {"b_ih", "g.b_ih"}, {"b_hh", "g.b_hh"}}}},
      {"outputs", {"lstm", "gru"}}};
  check_converts(spec, {{"l.w_ih", {16, 5}}, {"l.w_hh", {16, 4}}, {"l.b_ih", {16}},
                        {"g.w_ih", {12, 4}}, {"g.w_hh", {12, 4}}, {"g.b_ih", {12}}, {"g.b_hh", {12}}});
}

TEST_CASE("spec layer score_attention: dot, general and additive scores over a masked source") {
  const json spec = {
      {"symbols", {{"seq", 8}}},
      {"inputs", {f32_input("query", {"batch", 6}), f32_input("memory", {"batch", "seq", 6}),
                  i32_input("mask", {"batch", "seq"})}},
      {"layers",
       {{{"op", "score_attention"}, {"name", "dot"}, {"query", "query"}, {"keys", "memory"}, {"mask", "mask"},
         {"score", "dot"}, {"scale", 0.5}, {"weights_output", "dot_weights"}},
        {{"op", "score_attention"}, {"name", "general"}, {"query", "query"}, {"keys", "memory"}, {"score", "general"},
         {"weight", "W"}},
        {{"op", "dense"}, {"name", "keys"}, {"input", "memory"}, {"weight", "key"}},
        {{"op", "score_attention"}, {"name", "additive"}, {"query", "query"}, {"keys", "keys"}, {"values", "memory"},
         {"mask", "mask"}, {"score", "additive"}, {"weight", "query_w"}, {"bias", "query_b"}, {"v", "energy"}}}},
      {"outputs", {"dot", "dot_weights", "general", "additive"}}};
  check_converts(spec, {{"W", {6, 6}}, {"key", {7, 6}}, {"query_w", {7, 6}}, {"query_b", {7}}, {"energy", {7}}});
}

TEST_CASE("spec layer score_attention: concat scores, Linear(dq + dk, 1) with and without tanh") {
  const json spec = {
      {"symbols", {{"seq", 8}}},
      {"inputs", {f32_input("query", {"batch", 5}), f32_input("memory", {"batch", "seq", 6}),
                  i32_input("mask", {"batch", "seq"})}},
      {"layers",
       {{{"op", "score_attention"}, {"name", "linear"}, {"query", "query"}, {"keys", "memory"}, {"mask", "mask"},
         {"score", "concat"}, {"weight", "attn.weight"}, {"bias", "attn.bias"}, {"weights_output", "alignment"}},
        {{"op", "score_attention"}, {"name", "tanh"}, {"query", "query"}, {"keys", "memory"}, {"mask", "mask"},
         {"score", "concat"}, {"weight", "attn.weight"}, {"activation", "tanh"}, {"scale", 3.0}}}},
      {"outputs", {"linear", "alignment", "tanh"}}};
  check_converts(spec, {{"attn.weight", {1, 11}}, {"attn.bias", {1}}});
}

TEST_CASE("spec layer score_attention refuses a concat score it cannot write, naming the layer") {
  const json inputs = json::array({f32_input("query", {"batch", 5}), f32_input("memory", {"batch", 8, 6})});
  const json base = {{"op", "score_attention"}, {"name", "a"}, {"query", "query"}, {"keys", "memory"},
                     {"score", "concat"}, {"weight", "attn.weight"}};
  const std::pair<json, const char*> bad[] = {
      {{{"activation", "relu"}}, "layer 0 'a': a concat score's activation must be none or tanh"},
      {{{"score", "bilinear"}}, "score must be additive, dot, general or concat"},
      {{{"weight", "wrong.weight"}}, "wrong.weight"},
  };
  for (const auto& [change, expected] : bad) {
    json layer = base;
    layer.update(change);
    CAPTURE(layer.dump());
    const json spec = {{"inputs", inputs}, {"layers", json::array({layer})}, {"outputs", {"a"}}};
    const auto converted = convert_spec(spec, {{"attn.weight", {1, 11}}, {"wrong.weight", {1, 10}}});
    REQUIRE(!converted.ok());
    const std::string message = converted.status().message();
    CAPTURE(message);
    CHECK(message.find(expected) != std::string::npos);
  }
}

TEST_CASE("spec layer attention_pool: learned pooling over the valid positions, with its weights") {
  const json spec = {
      {"symbols", {{"seq", 8}}},
      {"inputs", {f32_input("x", {"batch", "seq", 6}), i32_input("mask", {"batch", "seq"})}},
      {"layers",
       {{{"op", "attention_pool"}, {"name", "pooled"}, {"input", "x"}, {"mask", "mask"}, {"weight", "W"},
         {"bias", "b"}, {"v", "v"}, {"weights_output", "alignment"}},
        {{"op", "attention_pool"}, {"name", "unmasked"}, {"input", "x"}, {"weight", "W2"}, {"v", "v2"}}}},
      {"outputs", {"pooled", "alignment", "unmasked"}}};
  check_converts(spec, {{"W", {5, 6}}, {"b", {5}}, {"v", {5}}, {"W2", {3, 6}}, {"v2", {3}}});
}

TEST_CASE("spec layer l2_normalize: unit rows of a rank-2 and a rank-3 tensor, default and given epsilon") {
  const json spec = {
      {"symbols", {{"seq", 8}}},
      {"inputs", {f32_input("x", {"batch", "seq", 7})}},
      {"layers",
       {{{"op", "l2_normalize"}, {"name", "unit"}, {"input", "x"}},
        {{"op", "pool"}, {"name", "pooled"}, {"mode", "mean"}, {"input", "x"}},
        {{"op", "l2_normalize"}, {"name", "y"}, {"input", "pooled"}, {"epsilon", 1e-6}}}},
      {"outputs", {"unit", "y"}}};
  check_converts(spec, {});
}

TEST_CASE("spec layer scale: a constant factor, and a factor with a shift") {
  const json spec = {
      {"inputs", {f32_input("x", {"batch", 5})}},
      {"layers",
       {{{"op", "dense"}, {"name", "logits"}, {"input", "x"}, {"weight", "w"}, {"bias", "b"}},
        {{"op", "scale"}, {"name", "tempered"}, {"input", "logits"}, {"scale", 1.0 / 0.07}},
        {{"op", "scale"}, {"name", "shifted"}, {"input", "tempered"}, {"scale", -0.5}, {"shift", 2.25}}}},
      {"outputs", {"tempered", "shifted"}}};
  check_converts(spec, {{"w", {3, 5}}, {"b", {3}}});
}

TEST_CASE("spec layers l2_normalize and scale refuse what they cannot write, naming the layer and the fix") {
  const json x_input = json::array({f32_input("x", {"batch", 5})});
  // Option values are judged once, by the engine op's load-time check, which the
  // converter runs on what it writes: its message names the op, which takes the layer's name.
  const std::pair<json, const char*> bad[] = {
      {{{"op", "scale"}, {"name", "s"}, {"input", "x"}}, "layer 0 's': needs \"scale\""},
      {{{"op", "scale"}, {"name", "s"}, {"input", "x"}, {"scale", 1e39}},  // past f32's range
       "op 0 's' (ScaleOptions): scale and shift must be finite, found inf and 0"},
      {{{"op", "l2_normalize"}, {"name", "n"}, {"input", "x"}, {"epsilon", 0.0}},
       "op 0 'n' (L2NormalizeOptions): epsilon must be positive and finite, found 0"},
      {{{"op", "l2_normalize"}, {"name", "n"}, {"input", "nope"}}, "layer 0 'n': reads 'nope'"},
  };
  for (const auto& [layer, expected] : bad) {
    CAPTURE(layer.dump());
    const json spec = {{"inputs", x_input}, {"layers", json::array({layer})}, {"outputs", {layer.at("name")}}};
    const auto converted = convert_spec(spec, {});
    REQUIRE(!converted.ok());
    const std::string message = converted.status().message();
    CAPTURE(message);
    CHECK(message.find(expected) != std::string::npos);
  }
}

TEST_CASE("spec layer clip: ReLU6, hardtanh-style bounds that cut the values, and one open side") {
  // The dense outputs (std about 0.5: generated inputs uniform in [-1, 1), weights and
  // biases std 0.3) straddle +-0.25, so the middle layer clamps on both sides; the
  // self-test compares the engine with the reference evaluator on every element.
  const json spec = {
      {"symbols", {{"seq", 6}}},
      {"inputs", {f32_input("x", {"batch", "seq", 5})}},
      {"layers",
       {{{"op", "dense"}, {"name", "h"}, {"input", "x"}, {"weight", "w"}, {"bias", "b"}},
        {{"op", "clip"}, {"name", "relu6"}, {"input", "h"}, {"min", 0.0}, {"max", 6.0}},
        {{"op", "clip"}, {"name", "tight"}, {"input", "h"}, {"min", -0.25}, {"max", 0.25}},
        {{"op", "clip"}, {"name", "capped"}, {"input", "h"}, {"max", 0.1}}}},
      {"outputs", {"relu6", "tight", "capped"}}};
  check_converts(spec, {{"w", {4, 5}}, {"b", {4}}});
}

TEST_CASE("spec layer clip refuses what it cannot write, naming the layer") {
  const json x_input = json::array({f32_input("x", {"batch", 5})});
  // Bounds are judged by the engine op's load-time check (its op takes the layer's name).
  const std::pair<json, const char*> bad[] = {
      {{{"op", "clip"}, {"name", "c"}, {"input", "x"}}, "layer 0 'c': needs \"min\", \"max\" or both"},
      {{{"op", "clip"}, {"name", "c"}, {"input", "x"}, {"min", 6.0}, {"max", 0.0}},
       "op 0 'c' (ClipOptions): min must be at most max and neither NaN (an open side is -inf or inf), "
       "found min 6 and max 0"},
      {{{"op", "clip"}, {"name", "c"}, {"input", "nope"}, {"min", 0.0}}, "layer 0 'c': reads 'nope'"},
  };
  for (const auto& [layer, expected] : bad) {
    CAPTURE(layer.dump());
    const json spec = {{"inputs", x_input}, {"layers", json::array({layer})}, {"outputs", {layer.at("name")}}};
    const auto converted = convert_spec(spec, {});
    REQUIRE(!converted.ok());
    const std::string message = converted.status().message();
    CAPTURE(message);
    CHECK(message.find(expected) != std::string::npos);
  }
}

TEST_CASE("a spec that repeats past the engine's op limit is refused before the arena is planned") {
  // 20,000 softmax layers: more ops than the engine loads (kMaxOps). The planner's work grows
  // with the square of the tensors, so this must be an error at once, not a long plan
  // (the fuzzer found it as a timeout: tests/fuzz/corpus/fuzz_spec/repeat_past_op_limit.json).
  const json x_input = json::array({{{"name", "x"}, {"dtype", "f32"}, {"shape", {"batch", "seq", 8}}}});
  const json layers = json::array(
      {{{"repeat", 20000}, {"layers", json::array({{{"op", "softmax"}, {"name", "s{i}"}, {"input", "x"}}})}}});
  const json spec = {{"inputs", x_input}, {"layers", layers}, {"outputs", {"s5"}}};
  const auto converted = convert_spec(spec, {});
  REQUIRE(!converted.ok());
  CHECK(std::string(converted.status().message()).find("the engine loads at most 16384") != std::string::npos);
}

TEST_CASE("a 16,001-op chain converts and loads: the placement checks are not quadratic") {
  // Every op's output is read by the next, so the plan reuses two arena slots all along the
  // chain: the pairwise check this replaced compared each tensor with every other (tens of
  // seconds under the sanitizers); the sweep in engine/src/load/verify_overlaps.cpp sorts
  // once. The converter loads the model it wrote for its self-test, so the verifier runs.
  const json x_input = json::array({{{"name", "x"}, {"dtype", "f32"}, {"shape", {"batch", 4}}}});
  const json layers = json::array(
      {{{"op", "softmax"}, {"name", "s-1"}, {"input", "x"}},
       {{"repeat", 16000}, {"layers", json::array({{{"op", "softmax"}, {"name", "s{i}"}, {"input", "s{i-1}"}}})}}});
  const json spec = {{"inputs", x_input}, {"layers", layers}, {"outputs", {"s15999"}}};
  const auto converted = convert_spec(spec, {});
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  CHECK(converted->self_tests == 1);
  CHECK(converted->self_test_worst_ratio <= 1.0f);
}

TEST_CASE("--dtype int4 converts dense layers whose outputs are not a multiple of 32") {
  // A 10-class head and a 50-wide layer: the self-test's planning load of the zero-filled
  // skeleton read the padding past the last output as q = -8 and refused the model
  // ("int4 weight 'h' is malformed ... re-convert the model").
  const json spec = {
      {"inputs", {f32_input("x", {"batch", 64})}},
      {"layers",
       {{{"op", "dense"}, {"name", "h"}, {"input", "x"}, {"weight", "w1"}},
        {{"op", "dense"}, {"name", "y"}, {"input", "h"}, {"weight", "w2"}}}},
      {"outputs", {"y"}}};
  const auto converted = convert_spec(spec, {{"w1", {50, 64}}, {"w2", {10, 50}}}, DType::kI4);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  CHECK(converted->self_tests == 1);
  CHECK(converted->self_test_worst_ratio <= 1.0f);
}
