// A tied LM head stored once (GPT-2; Llama with tie_word_embeddings): the token table is
// the output layer's packed Dense weight, read by the embedding gather too. Each small
// random model is converted twice from one checkpoint: tied (one [vocab, d] tensor) and
// untied (config.json's tie_word_embeddings false, lm_head.weight a copy of the table,
// the table stored row-major in the same type with --embedding-dtype). Both files must
// give the same logits bit for bit (f32, f16, int8 weights, int8 activations) over a
// prefill and greedy KV-cached steps, and the tied file must be smaller by the table's
// bytes.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "convert.h"
#include "support/model_cases.h"
#include "support/random_values.h"
#include "support/safetensors_writer.h"
#include "support/scratch_dir.h"

using namespace focal;
using focal::testing::NamedTensor;

namespace {

constexpr int64_t kVocab = 301;  // ragged: 9 full panels of 32 outputs and 13 rows
constexpr int64_t kWidth = 32, kLayers = 2, kHeads = 4, kPositions = 40;

struct Family {
  const char* preset;
  const char* table;  // the token table's checkpoint name
  nlohmann::json config;
  std::vector<NamedTensor> tensors;  // without lm_head.weight
};

uint32_t next_seed = 1;

NamedTensor random_tensor(const std::string& name, std::vector<int64_t> shape, float center = 0.0f) {
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d);
  std::vector<float> values = testing::random_values(count, next_seed++, center - 0.3f, center + 0.3f);
  return {name, std::move(shape), std::move(values)};
}

Family gpt2() {
  Family f{"gpt2", "wte.weight",
           {{"vocab_size", kVocab}, {"n_embd", kWidth}, {"n_layer", kLayers}, {"n_head", kHeads},
            {"n_positions", kPositions}, {"layer_norm_epsilon", 1e-5}, {"activation_function", "gelu_new"}},
           {}};
  f.tensors = {random_tensor("wte.weight", {kVocab, kWidth}), random_tensor("wpe.weight", {kPositions, kWidth}),
               random_tensor("ln_f.weight", {kWidth}, 1.0f), random_tensor("ln_f.bias", {kWidth})};
  for (int64_t l = 0; l < kLayers; ++l) {
    const std::string p = "h." + std::to_string(l) + ".";
    for (const char* ln : {"ln_1", "ln_2"}) {
      f.tensors.push_back(random_tensor(p + ln + ".weight", {kWidth}, 1.0f));
      f.tensors.push_back(random_tensor(p + ln + ".bias", {kWidth}));
    }
    f.tensors.push_back(random_tensor(p + "attn.c_attn.weight", {kWidth, 3 * kWidth}));  // Conv1D [in, out]
    f.tensors.push_back(random_tensor(p + "attn.c_attn.bias", {3 * kWidth}));
    f.tensors.push_back(random_tensor(p + "attn.c_proj.weight", {kWidth, kWidth}));
    f.tensors.push_back(random_tensor(p + "attn.c_proj.bias", {kWidth}));
    f.tensors.push_back(random_tensor(p + "mlp.c_fc.weight", {kWidth, 4 * kWidth}));
    f.tensors.push_back(random_tensor(p + "mlp.c_fc.bias", {4 * kWidth}));
    f.tensors.push_back(random_tensor(p + "mlp.c_proj.weight", {4 * kWidth, kWidth}));
    f.tensors.push_back(random_tensor(p + "mlp.c_proj.bias", {kWidth}));
  }
  return f;
}

Family llama() {
  const int64_t head_dim = 8, kv_heads = 2, inner = 48;
  Family f{"llama", "model.embed_tokens.weight",
           {{"vocab_size", kVocab}, {"hidden_size", kWidth}, {"intermediate_size", inner},
            {"num_hidden_layers", kLayers}, {"num_attention_heads", kHeads}, {"num_key_value_heads", kv_heads},
            {"head_dim", head_dim}, {"rms_norm_eps", 1e-6}, {"rope_theta", 10000.0},
            {"max_position_embeddings", kPositions}},
           {}};
  f.tensors = {random_tensor("model.embed_tokens.weight", {kVocab, kWidth}),
               random_tensor("model.norm.weight", {kWidth}, 1.0f)};
  for (int64_t l = 0; l < kLayers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    f.tensors.push_back(random_tensor(p + "input_layernorm.weight", {kWidth}, 1.0f));
    f.tensors.push_back(random_tensor(p + "post_attention_layernorm.weight", {kWidth}, 1.0f));
    f.tensors.push_back(random_tensor(p + "self_attn.q_proj.weight", {kHeads * head_dim, kWidth}));
    f.tensors.push_back(random_tensor(p + "self_attn.k_proj.weight", {kv_heads * head_dim, kWidth}));
    f.tensors.push_back(random_tensor(p + "self_attn.v_proj.weight", {kv_heads * head_dim, kWidth}));
    f.tensors.push_back(random_tensor(p + "self_attn.o_proj.weight", {kWidth, kHeads * head_dim}));
    f.tensors.push_back(random_tensor(p + "mlp.gate_proj.weight", {inner, kWidth}));
    f.tensors.push_back(random_tensor(p + "mlp.up_proj.weight", {inner, kWidth}));
    f.tensors.push_back(random_tensor(p + "mlp.down_proj.weight", {kWidth, inner}));
  }
  return f;
}

// How the weights are stored: the dense type, and the untied file's table type (the
// same element type, so that both files hold the same table values).
struct Storage {
  const char* name;
  DType dtype;
  bool int8_activations;
  DType untied_table;
  size_t table_element_bytes;
};
const Storage kStorages[] = {{"f32", DType::kF32, false, DType::kF32, 4},
                             {"f16", DType::kF16, false, DType::kF16, 2},
                             {"int8", DType::kI8, false, DType::kI8, 1},
                             {"int8 activations", DType::kI8, true, DType::kI8, 1}};

std::vector<uint8_t> convert(const Family& f, const std::string& dir, bool tied, const Storage& s) {
  const std::string name = tied ? "tied" : "untied";
  nlohmann::json config = f.config;
  config["tie_word_embeddings"] = tied;
  std::ofstream(dir + "/" + name + ".json") << config.dump();
  std::vector<NamedTensor> tensors = f.tensors;
  if (!tied) tensors.push_back({"lm_head.weight", tensors[0].shape, tensors[0].values});  // tensors[0]: the table
  testing::write_safetensors(dir + "/" + name + ".safetensors", tensors);
  convert::ConvertOptions o;
  o.preset = f.preset;
  o.weights = {dir + "/" + name + ".safetensors"};
  o.config = dir + "/" + name + ".json";
  o.max_seq = kPositions;
  o.strict = true;
  o.dtype = s.dtype;
  o.int8_activations = s.int8_activations;
  // Quantized weights share the table only with an int8 table type (ModelWriter::shares_tied_tables).
  o.embedding_dtype = tied && s.dtype != DType::kI8 ? DType::kF32 : s.untied_table;
  auto converted = convert::convert_checkpoint(o);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  CHECK(converted->self_tests == 1);  // the engine against the reference evaluator, on this file
  return converted->bytes;
}

// Tensors of shape [vocab, d]: the token table and the head.
int vocab_tables(const Model& m) {
  int count = 0;
  for (int t = 0; t < m.tensor_count(); ++t) {
    const Shape& shape = m.tensor(t).shape;
    count += shape.rank == 2 && shape.dims[0] == kVocab && shape.dims[1] == kWidth;
  }
  return count;
}

// Last-position logits of a prompt, then of `steps` greedy steps, all concatenated.
std::vector<float> greedy_logits(Session& session, int steps, std::vector<int32_t>* tokens) {
  std::vector<int32_t> ids = {5, 300, 17, 0, 42, 299, 128, 64};
  std::vector<float> all;
  session.reset_state();
  for (int step = 0; step <= steps; ++step) {
    Shape shape;
    shape.rank = 2;
    shape.dims[0] = 1;
    shape.dims[1] = static_cast<int64_t>(ids.size());
    REQUIRE(session.set_input(0, shape, ids.data(), ids.size() * sizeof(int32_t)).ok());
    REQUIRE(session.run().ok());
    const TensorView logits = session.output(0);
    const float* row = logits.as<float>();
    all.insert(all.end(), row, row + kVocab);
    int32_t best = 0;
    for (int32_t v = 1; v < kVocab; ++v) best = row[v] > row[best] ? v : best;
    tokens->push_back(best);
    ids = {best};
  }
  return all;
}

void check_tied_equals_untied(const Family& f) {
  const focal::testing::ScratchDir scratch("tied-head");  // removed with its files at the end
  const std::string& dir = scratch.path();
  for (const Storage& s : kStorages) {
    CAPTURE(f.preset);
    CAPTURE(s.name);
    const std::vector<uint8_t> tied_bytes = convert(f, dir, true, s);
    const std::vector<uint8_t> untied_bytes = convert(f, dir, false, s);
    auto tied = testing::load_model_bytes(tied_bytes);
    auto untied = testing::load_model_bytes(untied_bytes);
    CHECK(vocab_tables(*tied->model) == 1);
    CHECK(vocab_tables(*untied->model) == 2);
    // The table's bytes, stored once less (an int8 table's row scales, the untied file's
    // tensor entry and alignment are the rest).
    const size_t table_bytes = static_cast<size_t>(kVocab * kWidth) * s.table_element_bytes;
    const size_t saved = untied_bytes.size() - tied_bytes.size();
    CHECK(untied_bytes.size() > tied_bytes.size());
    CHECK(saved >= table_bytes);
    CHECK(saved <= table_bytes + static_cast<size_t>(kVocab) * 4 + 1024);
    std::vector<int32_t> tied_tokens, untied_tokens;
    const std::vector<float> a = greedy_logits(*tied->session, 8, &tied_tokens);
    const std::vector<float> b = greedy_logits(*untied->session, 8, &untied_tokens);
    REQUIRE(a.size() == b.size());
    CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    CHECK(tied_tokens == untied_tokens);
  }
}

}  // namespace

TEST_CASE("tied LM head: GPT-2 stores wte once; logits bit for bit the untied file's, f32 to int8 activations") {
  check_tied_equals_untied(gpt2());
}

TEST_CASE("tied LM head: Llama with tie_word_embeddings stores the table once; logits bit for bit") {
  check_tied_equals_untied(llama());
}
