// Int8 activations (DenseInt8Dot weights) in every op that runs dense weights: Dense,
// MultiHeadAttention (projected keys with a ragged key mask, and a KV cache over
// prefill and decode steps), Recurrent (bidirectional LSTM, ragged), RecurrentStep (GRU),
// additive ScoreAttention and AttentionPool. Each small model is written twice by the
// ModelWriter, with f32 weights and with int8 weights and int8 activations, and the int8
// one must (1) match the converter's double-precision reference evaluator, which
// quantizes each row as the engine does, and (2) stay close to the f32 model.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/session.h"
#include "focal_generated.h"
#include "model_writer.h"
#include "reference/evaluator.h"
#include "support/aligned_buffer.h"
#include "support/random_values.h"

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

// How the dense weights are written.
struct WeightMode {
  DType type = DType::kF32;
  bool int8_activations = false;
};
constexpr WeightMode kF32Weights{};
constexpr WeightMode kInt8Activations{DType::kI8, true};

// The engine against the reference evaluator: both quantize the same f32 rows, so they
// differ by f32 rounding (1e-6 relative) unless an upstream f32-versus-double rounding
// moves an element of a row across a rounding boundary of its quantization (one step
// of amax / 127 in one of K products); no such flip happens at these seeds.
constexpr double kReferenceTolerance = 1e-4;
// Against the f32 model: per-row int8 rounding of activations and weights each adds
// about 0.3% relative noise per dense layer (half a step of amax / 127, for values
// spread over [-amax, amax]), so a few layers keep the cosine above 1 - 1e-4; 0.999
// leaves ten times that room while a wrong scale or a wrong row stays far below it.
constexpr double kMinCosine = 0.999;

struct Input {
  std::string name;
  Shape shape;
  std::vector<double> values;
};

Shape shape_of(std::vector<int64_t> dims) {
  Shape s;
  s.rank = static_cast<int>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) s.dims[i] = dims[i];
  return s;
}

Input random_input(const std::string& name, std::vector<int64_t> dims, uint32_t seed) {
  Input in{name, shape_of(dims), {}};
  for (float v : testing::random_values(static_cast<size_t>(in.shape.element_count()), seed, -2.0f, 2.0f)) {
    in.values.push_back(v);
  }
  return in;
}

// A [batch, seq] mask of 1s then 0s with the given lengths.
Input mask_input(const std::string& name, const std::vector<int64_t>& lengths, int64_t seq) {
  Input in{name, shape_of({static_cast<int64_t>(lengths.size()), seq}), {}};
  for (int64_t length : lengths) {
    for (int64_t s = 0; s < seq; ++s) in.values.push_back(s < length ? 1.0 : 0.0);
  }
  return in;
}

struct Loaded {
  std::unique_ptr<AlignedBuffer> file;
  std::unique_ptr<Model> model;
  std::unique_ptr<AlignedBuffer> arena;
  std::unique_ptr<Session> session;
};

Loaded load(const std::vector<uint8_t>& bytes) {
  Loaded l;
  REQUIRE(!bytes.empty());
  l.file = std::make_unique<AlignedBuffer>(bytes);
  auto model = Model::from_bytes(l.file->data(), l.file->size());
  REQUIRE_MESSAGE(model.ok(), model.status().message());
  l.model = std::make_unique<Model>(model.value());
  auto arena_bytes = Session::required_arena_bytes(*l.model, SessionOptions());
  REQUIRE_MESSAGE(arena_bytes.ok(), arena_bytes.status().message());
  l.arena = std::make_unique<AlignedBuffer>(arena_bytes.value());
  auto session = Session::create(*l.model, SessionOptions(), l.arena->data(), l.arena->size());
  REQUIRE_MESSAGE(session.ok(), session.status().message());
  l.session = std::make_unique<Session>(session.value());
  return l;
}

int input_index(const Model& model, const std::string& name) {
  for (int i = 0; i < model.input_count(); ++i) {
    if (name == model.tensor(model.input_tensor(i)).name) return i;
  }
  FAIL("no input ", name);
  return -1;
}

// Runs the session on `inputs`; every f32 output, concatenated in output order.
std::vector<double> run_engine(Session& session, const std::vector<Input>& inputs) {
  const Model& model = session.model();
  for (const Input& in : inputs) {
    const int i = input_index(model, in.name);
    std::vector<uint8_t> raw(in.values.size() * 4);
    const bool ids = model.tensor(model.input_tensor(i)).dtype == DType::kI32;
    for (size_t k = 0; k < in.values.size(); ++k) {
      const float f = static_cast<float>(in.values[k]);
      const int32_t n = static_cast<int32_t>(in.values[k]);
      std::memcpy(raw.data() + 4 * k, ids ? static_cast<const void*>(&n) : &f, 4);
    }
    REQUIRE(session.set_input(i, in.shape, raw.data(), raw.size()).ok());
  }
  const Status run = session.run();
  REQUIRE_MESSAGE(run.ok(), run.message());
  std::vector<double> out;
  for (int i = 0; i < model.output_count(); ++i) {
    const TensorView view = session.output(i);
    out.insert(out.end(), view.as<float>(), view.as<float>() + view.shape.element_count());
  }
  return out;
}

std::vector<double> run_reference(reference::Evaluator& evaluator, const std::vector<Input>& inputs) {
  const Model& model = evaluator.model();
  for (const Input& in : inputs) REQUIRE(evaluator.set_input(input_index(model, in.name), in.shape, in.values).ok());
  const Status run = evaluator.run();
  REQUIRE_MESSAGE(run.ok(), run.message());
  std::vector<double> out;
  for (int i = 0; i < model.output_count(); ++i) {
    const reference::Value v = evaluator.value(model.output_tensor(i));
    out.insert(out.end(), v.values.begin(), v.values.end());
  }
  return out;
}

double worst_error(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  double worst = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = std::fabs(got[i] - want[i]) / (1.0 + std::fabs(want[i]));
    worst = std::isnan(e) ? INFINITY : std::max(worst, e);
  }
  return worst;
}

double cosine(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double ab = 0.0, aa = 0.0, bb = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

size_t count_layout(const Model& model, fb::TensorLayout layout) {
  size_t n = 0;
  for (const fb::Tensor* t : *model.schema().tensors()) n += t->layout() == layout ? 1 : 0;
  return n;
}

// ---- The models ----------------------------------------------------------------------

using Build = std::function<std::vector<uint8_t>(const WeightMode&)>;

struct Weights {
  ModelWriter& w;
  uint32_t seed;
  int operator()(const char* name, std::vector<int64_t> shape) {
    size_t count = 1;
    for (int64_t d : shape) count *= static_cast<size_t>(d);
    return w.add_constant_f32(name, std::move(shape), testing::random_values(count, ++seed, -0.6f, 0.6f));
  }
};

void set_mode(ModelWriter& w, const WeightMode& mode) {
  w.set_dense_weight_type(mode.type);
  w.set_int8_activations(mode.int8_activations);
}

// A model under construction: the writer in `mode`, weights drawn from consecutive seeds
// after `seed`, symbols batch and seq, and the input x [batch, seq, features].
struct Draft {
  ModelWriter w;
  Weights weight;
  int batch, seq, x;
  Draft(const WeightMode& mode, uint32_t seed, int64_t max_batch, int64_t max_seq, int64_t features)
      : weight{w, seed} {
    set_mode(w, mode);
    batch = w.add_symbol("batch", max_batch);
    seq = w.add_symbol("seq", max_seq);
    x = w.add_input("x", DType::kF32, {max_batch, max_seq, features}, {batch, seq, -1});
  }
};

// Self-attention over x [.., 16]: 4 query heads over 2 kv heads of 4, K/V of 8 features.
ModelWriter::MultiHeadAttentionSpec attention_spec(Weights& weight, int x, bool biases) {
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = x;
  s.wq = weight("wq", {16, 16});
  s.wk = weight("wk", {8, 16});
  s.wv = weight("wv", {8, 16});
  s.wo = weight("wo", {16, 16});
  if (biases) {
    s.bq = weight("bq", {16});
    s.bk = weight("bk", {8});
    s.bv = weight("bv", {8});
    s.bo = weight("bo", {16});
  }
  s.num_heads = 4;
  s.num_kv_heads = 2;
  s.head_dim = 4;
  return s;
}

// x [B, S, 16] -> self-attention (4 query heads over 2 kv heads, head_dim 4, biases,
// key mask) -> Dense GELU [.., 24] -> Dense [.., 16].
std::vector<uint8_t> encoder(const WeightMode& mode) {
  Draft d(mode, 10, 3, 7, 16);
  ModelWriter& w = d.w;
  const int batch = d.batch, seq = d.seq;
  const int mask = w.add_input("mask", DType::kI32, {3, 7}, {batch, seq});
  ModelWriter::MultiHeadAttentionSpec s = attention_spec(d.weight, d.x, /*biases=*/true);
  s.key_mask = mask;
  const int a = w.add_activation("a", DType::kF32, {3, 7, 16}, {batch, seq, -1});
  w.add_multi_head_attention("attention", s, a);
  const int h = w.add_activation("h", DType::kF32, {3, 7, 24}, {batch, seq, -1});
  w.add_dense("ffn_in", a, d.weight("w1", {24, 16}), d.weight("b1", {24}), h, fb::Activation_GeluErf);
  const int y = w.add_output("y", DType::kF32, {3, 7, 16}, {batch, seq, -1});
  w.add_dense("ffn_out", h, d.weight("w2", {16, 24}), d.weight("b2", {16}), y);
  return w.finish().value();
}

// x [1, S, 16] -> causal self-attention with a KV cache of 8 and RoPE -> y.
std::vector<uint8_t> decoder(const WeightMode& mode) {
  Draft d(mode, 30, 1, 8, 16);
  ModelWriter& w = d.w;
  const int batch = d.batch, seq = d.seq;
  ModelWriter::MultiHeadAttentionSpec s = attention_spec(d.weight, d.x, /*biases=*/false);
  s.k_state = w.add_state("k_cache", DType::kF32, {1, 8, 8}, {batch, -1, -1});
  s.v_state = w.add_state("v_cache", DType::kF32, {1, 8, 8}, {batch, -1, -1});
  s.causal = true;
  s.rope = fb::RopeLayout_HalfSplit;
  const int y = w.add_output("y", DType::kF32, {1, 8, 16}, {batch, seq, -1});
  w.add_multi_head_attention("attention", s, y);
  return w.finish().value();
}

// x [B, S, 12] (mask) -> bidirectional LSTM, hidden 10 -> y [B, S, 20], h_n, c_n; then
// attention pooling of y (9 units) -> pooled [B, 20] and its weights.
std::vector<uint8_t> recurrent(const WeightMode& mode) {
  Draft d(mode, 50, 3, 9, 12);
  ModelWriter& w = d.w;
  Weights& weight = d.weight;
  const int batch = d.batch, seq = d.seq;
  const int mask = w.add_input("mask", DType::kI32, {3, 9}, {batch, seq});
  ModelWriter::RecurrentSpec s;
  s.x = d.x;
  s.mask = mask;
  s.w_ih = weight("w_ih", {40, 12});
  s.w_hh = weight("w_hh", {40, 10});
  s.b_ih = weight("b_ih", {40});
  s.b_hh = weight("b_hh", {40});
  s.w_ih_r = weight("w_ih_r", {40, 12});
  s.w_hh_r = weight("w_hh_r", {40, 10});
  s.b_ih_r = weight("b_ih_r", {40});
  s.b_hh_r = weight("b_hh_r", {40});
  s.hidden = 10;
  const int y = w.add_output("y", DType::kF32, {3, 9, 20}, {batch, seq, -1});
  const int h_n = w.add_output("h_n", DType::kF32, {3, 20}, {batch, -1});
  const int c_n = w.add_output("c_n", DType::kF32, {3, 20}, {batch, -1});
  w.add_recurrent("lstm", s, {y, h_n, c_n});
  const int pooled = w.add_output("pooled", DType::kF32, {3, 20}, {batch, -1});
  const int pool_weights = w.add_output("pool_weights", DType::kF32, {3, 9}, {batch, seq});
  w.add_attention_pool("pool", y, mask, weight("pool_w", {9, 20}), weight("pool_b", {9}), weight("pool_v", {9}),
                       pooled, pool_weights);
  return w.finish().value();
}

// One GRU decoder step (state h [B, 10]) on x [B, 12], then additive attention of its
// output over keys [B, 5, 9] and values [B, 5, 12] (mask) -> context [B, 12].
std::vector<uint8_t> decoder_step(const WeightMode& mode) {
  ModelWriter w;
  set_mode(w, mode);
  Weights weight{w, 70};
  const int batch = w.add_symbol("batch", 2), src = w.add_symbol("src", 5);
  const int x = w.add_input("x", DType::kF32, {2, 12}, {batch, -1});
  const int keys = w.add_input("keys", DType::kF32, {2, 5, 9}, {batch, src, -1});
  const int values = w.add_input("values", DType::kF32, {2, 5, 12}, {batch, src, -1});
  const int mask = w.add_input("mask", DType::kI32, {2, 5}, {batch, src});
  const int h = w.add_state("h", DType::kF32, {2, 10}, {batch, -1});
  const int y = w.add_output("y", DType::kF32, {2, 10}, {batch, -1});
  w.add_recurrent_step("gru", fb::RecurrentCell_Gru, 10, x, weight("w_ih", {30, 12}), weight("w_hh", {30, 10}),
                       weight("b_ih", {30}), weight("b_hh", {30}), h, -1, y);
  const int context = w.add_output("context", DType::kF32, {2, 12}, {batch, -1});
  w.add_score_attention("attention", fb::ScoreKind_Additive, 1.0f, y, keys, values, mask, weight("wa", {9, 10}),
                        weight("ba", {9}), weight("va", {9}), context, -1);
  return w.finish().value();
}

struct Case {
  const char* name;
  Build build;
  size_t dense_weights;                   // the packed dense weights it holds
  std::vector<std::vector<Input>> runs;   // run in order on one session (states carry over)
};

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"encoder", encoder, 6,
               {{random_input("x", {3, 7, 16}, 1), mask_input("mask", {7, 4, 1}, 7)},
                {random_input("x", {2, 5, 16}, 2), mask_input("mask", {2, 5}, 5)}}});
  c.push_back({"decoder", decoder, 4,
               {{random_input("x", {1, 3, 16}, 3)}, {random_input("x", {1, 1, 16}, 4)},
                {random_input("x", {1, 2, 16}, 5)}, {random_input("x", {1, 1, 16}, 6)}}});
  c.push_back({"recurrent", recurrent, 5,
               {{random_input("x", {3, 9, 12}, 7), mask_input("mask", {9, 6, 2}, 9)},
                {random_input("x", {1, 4, 12}, 8), mask_input("mask", {4}, 4)}}});
  const auto step = [](uint32_t seed, int64_t batch) {
    return std::vector<Input>{random_input("x", {batch, 12}, seed), random_input("keys", {batch, 5, 9}, seed + 1),
                              random_input("values", {batch, 5, 12}, seed + 2),
                              mask_input("mask", batch == 2 ? std::vector<int64_t>{5, 3} : std::vector<int64_t>{5}, 5)};
  };
  c.push_back({"decoder step", decoder_step, 3, {step(9, 2), step(20, 2), step(30, 2)}});
  return c;
}

}  // namespace

TEST_CASE("int8 activations: every dense weight is DenseInt8Dot, and the loader accepts each op holding one") {
  for (const Case& c : cases()) {
    CAPTURE(std::string(c.name));
    Loaded int8 = load(c.build(kInt8Activations));
    CHECK(count_layout(*int8.model, fb::TensorLayout_DenseInt8Dot) == c.dense_weights);
    CHECK(count_layout(*int8.model, fb::TensorLayout_DensePacked) == 0);
    Loaded f32 = load(c.build(kF32Weights));
    CHECK(count_layout(*f32.model, fb::TensorLayout_DenseInt8Dot) == 0);
    CHECK(int8.file->size() < f32.file->size());
  }
}

TEST_CASE("int8 activations: each op matches the reference evaluator and stays close to f32, ragged and stepped") {
  for (const Case& c : cases()) {
    CAPTURE(std::string(c.name));
    Loaded int8 = load(c.build(kInt8Activations));
    Loaded f32 = load(c.build(kF32Weights));
    auto evaluator = reference::Evaluator::create(*int8.model);
    REQUIRE_MESSAGE(evaluator.ok(), evaluator.status().message());
    auto f32_evaluator = reference::Evaluator::create(*f32.model);
    REQUIRE(f32_evaluator.ok());
    for (size_t run = 0; run < c.runs.size(); ++run) {
      CAPTURE(run);
      const std::vector<double> engine = run_engine(*int8.session, c.runs[run]);
      const std::vector<double> want = run_reference(evaluator.value(), c.runs[run]);
      const std::vector<double> engine_f32 = run_engine(*f32.session, c.runs[run]);
      const std::vector<double> exact_f32 = run_reference(f32_evaluator.value(), c.runs[run]);
      const double error = worst_error(engine, want);
      const double similarity = cosine(engine, engine_f32);
      MESSAGE(std::string(c.name), " run ", run, ": error against the reference ", error, ", cosine to f32 ", similarity);
      CHECK(error <= kReferenceTolerance);
      CHECK(similarity >= kMinCosine);
      // The reference really quantizes: its int8 model differs from its f32 one by far
      // more than the tolerance the engine is held to.
      CHECK(worst_error(want, exact_f32) > 10 * kReferenceTolerance);
    }
  }
}

TEST_CASE("int8 activations: keep_weight_only and keep_f32 keep the named weights out of DenseInt8Dot") {
  ModelWriter w;
  w.set_dense_weight_type(DType::kI8);
  w.set_int8_activations(true);
  w.keep_weight_only({"w_only"});
  w.keep_f32({"w_f32"});
  const int batch = w.add_symbol("batch", 2);
  const int x = w.add_input("x", DType::kF32, {2, 8}, {batch, -1});
  Weights weight{w, 90};
  const int a = w.add_activation("a", DType::kF32, {2, 8}, {batch, -1});
  const int b = w.add_activation("b", DType::kF32, {2, 8}, {batch, -1});
  const int y = w.add_output("y", DType::kF32, {2, 8}, {batch, -1});
  w.add_dense("dot", x, weight("w_dot", {8, 8}), -1, a);
  w.add_dense("only", a, weight("w_only", {8, 8}), -1, b);
  w.add_dense("f32", b, weight("w_f32", {8, 8}), -1, y);
  Loaded l = load(w.finish().value());
  const auto layout_of = [&](const char* name) { return l.model->schema().tensors()->Get(l.model->find_tensor(name)); };
  CHECK(layout_of("w_dot")->layout() == fb::TensorLayout_DenseInt8Dot);
  CHECK(layout_of("w_dot")->dtype() == fb::DType_I8);
  CHECK(layout_of("w_only")->layout() == fb::TensorLayout_DensePacked);
  CHECK(layout_of("w_only")->dtype() == fb::DType_I8);
  CHECK(layout_of("w_f32")->layout() == fb::TensorLayout_DensePacked);
  CHECK(layout_of("w_f32")->dtype() == fb::DType_F32);
  auto evaluator = reference::Evaluator::create(*l.model);
  REQUIRE(evaluator.ok());
  const std::vector<Input> inputs{random_input("x", {2, 8}, 91)};
  CHECK(worst_error(run_engine(*l.session, inputs), run_reference(evaluator.value(), inputs)) <= kReferenceTolerance);
}

TEST_CASE("int8 activations: with weights other than int8 the option changes nothing") {
  ModelWriter w;
  w.set_dense_weight_type(DType::kF16);
  w.set_int8_activations(true);
  const int x = w.add_input("x", DType::kF32, {1, 8});
  const int y = w.add_output("y", DType::kF32, {1, 4});
  w.add_dense("dense", x, w.add_constant_f32("w", {4, 8}, testing::random_values(32, 3)), -1, y);
  Loaded l = load(w.finish().value());
  const fb::Tensor* t = l.model->schema().tensors()->Get(l.model->find_tensor("w"));
  CHECK(t->layout() == fb::TensorLayout_DensePacked);
  CHECK(t->dtype() == fb::DType_F16);
}
