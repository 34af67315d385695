// The int8 forms the static int8 encoder adds besides LayerNorm and Add (issue 36):
// Embedding with learned positions, MultiHeadAttention (grouped-query here: 2 query heads
// share one key/value head), Dense with GELU through its 256-entry table, Pool (CLS) and
// Scale (the dequantization into an f32 output), as one small model written with
// ModelWriter and run by a session on a ragged batch (a key mask of 5 and 2 tokens).
// Oracles: the same integers computed here from the records with the qint reference
// kernels (plain C dot products) and fixed_point.h's requantize, so what is checked is the
// ops' wiring (zero points from the tensors, strides of one head of a projection, the
// kv head of a query head, positions per token, the mask per batch row); and every
// malformed record refused at load with a message naming it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "focal/focal.h"
#include "model_writer.h"
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"
#include "support/aligned_buffer.h"
#include "support/lcg.h"

using namespace focal;
using focal::testing::AlignedBuffer;
using focal::testing::Lcg;

namespace {

constexpr int64_t kB = 2, kS = 5, kD = 4, kVocab = 9, kPositions = 6, kHeads = 2, kHeadDim = 2, kFf = 6;
constexpr int32_t kLengths[kB] = {5, 2};

struct Quant {
  float scale;
  int32_t zero_point;
};
constexpr Quant kE{0.04f, -3}, kA{0.05f, 6}, kF{0.03f, -100}, kPre{0.06f, 10};

// What a bad-model case breaks.
enum class Tamper {
  kNone, kNoAttentionRecord, kAttentionBias, kScoreShift, kContextShift, kVZeroPoint, kShortProjection, kRope,
  kNoLookup, kShortLookup, kLookupZeroPoint, kReluLookup, kNoPositionRecord, kPositionShift, kFewPositions,
  kMeanPool, kPoolQuant, kInt8Scale
};

int32_t multiplier_of(double real, int32_t* shift) {
  kernels::qint::FixedMultiplier m{};
  REQUIRE(kernels::qint::quantize_multiplier(real, &m));
  *shift = m.shift;
  return m.multiplier;
}

struct Weight {
  std::vector<int8_t> q;
  std::vector<float> scales;
  int64_t rows, cols;
};

Weight weight(int64_t rows, int64_t cols, uint32_t seed) {
  Lcg rng{seed};
  Weight w{{}, {}, rows, cols};
  for (int64_t i = 0; i < rows * cols; ++i) w.q.push_back(int8_t(rng.s8() | 1));
  for (int64_t r = 0; r < rows; ++r) w.scales.push_back(float(0.002 + 0.001 * double(r)));
  return w;
}

// A record into `out_scale` from input scale `in_scale`: biases and a multiplier per row.
std::unique_ptr<fb::RequantizationT> record(const Weight& w, double in_scale, double out_scale, int32_t bias_seed) {
  auto r = std::make_unique<fb::RequantizationT>();
  for (int64_t j = 0; j < w.rows; ++j) {
    int32_t shift = 0;
    r->bias.push_back(int32_t(bias_seed * (j - 1) * 37));
    r->multiplier.push_back(multiplier_of(in_scale * double(w.scales[size_t(j)]) / out_scale, &shift));
    r->shift.push_back(shift);
  }
  return r;
}

int constant(ModelWriter& m, const char* name, const Weight& w) {
  const int t = m.add_constant(name, DType::kI8, {w.rows, w.cols},
                               std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(w.q.data()),
                                                    reinterpret_cast<const uint8_t*>(w.q.data()) + w.q.size()));
  m.set_quantization(t, w.scales);
  return t;
}

int int8_tensor(ModelWriter& m, const char* name, std::vector<int64_t> shape, Quant q) {
  const int t = m.add_output(name, DType::kI8, std::move(shape));
  m.set_quantization(t, {q.scale}, {q.zero_point});
  return t;
}

// Everything the model is made of, kept for the oracle.
struct Parts {
  Weight table = weight(kVocab, kD, 1), positions = weight(kPositions, kD, 2);
  Weight wq = weight(kHeads * kHeadDim, kD, 3), wk = weight(kHeadDim, kD, 4), wv = weight(kHeadDim, kD, 5);
  Weight wo = weight(kD, kHeads * kHeadDim, 6), w1 = weight(kFf, kD, 7);
  fb::EmbeddingOptionsT embedding;
  fb::MultiHeadAttentionOptionsT attention;
  fb::DenseOptionsT dense;
};

Parts parts() {
  Parts p;
  p.embedding.requantization = std::make_unique<fb::RequantizationT>();
  p.embedding.position_requantization = std::make_unique<fb::RequantizationT>();
  for (auto [w, r] : {std::pair{&p.table, p.embedding.requantization.get()},
                      std::pair{&p.positions, p.embedding.position_requantization.get()}}) {
    for (float s : w->scales) {
      int32_t shift = 0;
      r->multiplier.push_back(multiplier_of(double(s) * 20 / double(kE.scale), &shift));
      r->shift.push_back(shift);
    }
  }
  for (float& s : p.table.scales) s *= 20;  // rows of real values up to 5
  for (float& s : p.positions.scales) s *= 20;
  p.attention.num_heads = kHeads, p.attention.num_kv_heads = 1, p.attention.head_dim = kHeadDim;
  p.attention.quantized = std::make_unique<fb::MultiHeadAttentionQuantizationT>();
  fb::MultiHeadAttentionQuantizationT& q = *p.attention.quantized;
  const double s_q = 0.01, s_k = 0.012, s_v = 0.015, s_c = 0.02;
  q.q_projection = record(p.wq, kE.scale, s_q, 1);
  q.k_projection = record(p.wk, kE.scale, s_k, 2);
  q.v_projection = record(p.wv, kE.scale, s_v, 3);
  q.output_projection = record(p.wo, s_c, kA.scale, 4);
  q.v_zero_point = 7, q.context_zero_point = -9;
  q.score_multiplier = multiplier_of(s_q * s_k / std::sqrt(double(kHeadDim)) * 2048, &q.score_shift);
  q.context_multiplier = multiplier_of(s_v / (32768 * s_c), &q.context_shift);
  p.dense.activation = fb::Activation_GeluErf;
  p.dense.requantization = record(p.w1, kA.scale, kPre.scale, 5);
  p.dense.lookup = std::make_unique<fb::Int8LookupT>();
  p.dense.lookup->zero_point = kPre.zero_point;
  for (int v = -128; v < 128; ++v) {
    const double x = kPre.scale * (v - kPre.zero_point), gelu = 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    p.dense.lookup->values.push_back(int8_t(std::max(-128.0, std::min(127.0, std::nearbyint(gelu / kF.scale) + kF.zero_point))));
  }
  return p;
}

void tamper_records(Parts& p, Tamper tamper) {
  fb::MultiHeadAttentionQuantizationT& q = *p.attention.quantized;
  if (tamper == Tamper::kScoreShift) q.score_shift = 16;
  if (tamper == Tamper::kContextShift) q.context_shift = 7;
  if (tamper == Tamper::kVZeroPoint) q.v_zero_point = 200;
  if (tamper == Tamper::kShortProjection) q.k_projection->bias.pop_back();
  if (tamper == Tamper::kRope) p.attention.rope = fb::RopeLayout_HalfSplit;
  if (tamper == Tamper::kNoAttentionRecord) p.attention.quantized.reset();
  if (tamper == Tamper::kNoLookup) p.dense.lookup.reset();
  if (tamper == Tamper::kShortLookup) p.dense.lookup->values.pop_back();
  if (tamper == Tamper::kLookupZeroPoint) p.dense.lookup->zero_point = 300;
  if (tamper == Tamper::kReluLookup) p.dense.activation = fb::Activation_Relu;
  if (tamper == Tamper::kNoPositionRecord) p.embedding.position_requantization.reset();
  if (tamper == Tamper::kPositionShift) p.embedding.position_requantization->shift[1] = 23;
}

std::vector<uint8_t> model(Parts p, Tamper tamper = Tamper::kNone) {
  tamper_records(p, tamper);
  ModelWriter m;
  const int ids = m.add_input("input_ids", DType::kI32, {kB, kS});
  const int mask = m.add_input("attention_mask", DType::kI32, {kB, kS});
  const int e = int8_tensor(m, "e", {kB, kS, kD}, kE), a = int8_tensor(m, "a", {kB, kS, kD}, kA);
  const int f = int8_tensor(m, "f", {kB, kS, kFf}, kF);
  const Quant pooled_quant = tamper == Tamper::kPoolQuant ? Quant{kF.scale, kF.zero_point + 1} : kF;
  const int pooled = int8_tensor(m, "pooled", {kB, kFf}, pooled_quant);
  const int y = tamper == Tamper::kInt8Scale ? int8_tensor(m, "y", {kB, kFf}, kF) : m.add_output("y", DType::kF32, {kB, kFf});
  Weight positions = p.positions;
  if (tamper == Tamper::kFewPositions) positions = weight(kS - 1, kD, 2);
  m.add_op("embedding", std::move(p.embedding), {ids, constant(m, "table", p.table), constant(m, "positions", positions)}, {e});
  std::vector<int32_t> inputs = {e, constant(m, "wq", p.wq), -1, constant(m, "wk", p.wk), -1, constant(m, "wv", p.wv), -1,
                                 constant(m, "wo", p.wo), -1, mask};
  if (tamper == Tamper::kAttentionBias) inputs[2] = m.add_constant_f32("bq", {kHeads * kHeadDim}, std::vector<float>(4, 0.0f));
  m.add_op("attention", std::move(p.attention), inputs, {a});
  m.add_op("ffn", std::move(p.dense), {a, constant(m, "w1", p.w1)}, {f});
  fb::PoolOptionsT pool;
  pool.mode = tamper == Tamper::kMeanPool ? fb::PoolMode_Mean : fb::PoolMode_Cls;
  m.add_op("pool", std::move(pool), {f, mask}, {pooled});
  m.add_op("dequantize", fb::ScaleOptionsT(), {pooled}, {y});
  return m.finish().value();
}

std::vector<int32_t> token_ids() { return {3, 1, 8, 0, 5, 7, 2, 0, 0, 0}; }
std::vector<int32_t> mask_rows() {
  std::vector<int32_t> mask;
  for (int64_t b = 0; b < kB; ++b) {
    for (int64_t s = 0; s < kS; ++s) mask.push_back(s < kLengths[b] ? 1 : 0);
  }
  return mask;
}

struct Outputs {
  std::vector<int8_t> e, a, f;
  std::vector<float> y;
};

Status run(const std::vector<uint8_t>& bytes, Outputs* out) {
  AlignedBuffer file(bytes);
  auto loaded = Model::from_bytes(file.data(), file.size());
  if (!loaded.ok()) return loaded.status();
  auto need = Session::required_arena_bytes(*loaded, SessionOptions());
  if (!need.ok()) return need.status();
  AlignedBuffer arena(*need);
  auto session = Session::create(*loaded, SessionOptions(), arena.data(), arena.size());
  if (!session.ok()) return session.status();
  const Shape shape{2, {kB, kS}};
  const std::vector<int32_t> ids = token_ids(), mask = mask_rows();
  FOCAL_RETURN_IF_ERROR(session->set_input(session->find_input("input_ids"), shape, ids.data(), ids.size() * 4));
  FOCAL_RETURN_IF_ERROR(session->set_input(session->find_input("attention_mask"), shape, mask.data(), mask.size() * 4));
  FOCAL_RETURN_IF_ERROR(session->run());
  for (const auto& [name, into] : {std::pair<const char*, std::vector<int8_t>*>{"e", &out->e}, {"a", &out->a}, {"f", &out->f}}) {
    const TensorView view = session->output(session->find_output(name));
    into->assign(static_cast<const int8_t*>(view.data), static_cast<const int8_t*>(view.data) + view.shape.element_count());
  }
  const TensorView y = session->output(session->find_output("y"));
  out->y.assign(y.as<float>(), y.as<float>() + y.shape.element_count());
  return Status();
}

// The projection of `rows` int8 rows through a record, on the plain C dot products.
std::vector<int8_t> project(const Weight& w, const fb::RequantizationT& r, int32_t zero_point, const std::vector<int8_t>& x,
                            size_t rows, int32_t min = -128) {
  kernels::QGemvParams p;
  p.n = size_t(w.rows), p.k = size_t(w.cols), p.w = w.q.data(), p.w_stride = p.k;
  p.bias = r.bias.data(), p.multiplier = r.multiplier.data(), p.shift = r.shift.data();
  p.output_zero_point = zero_point, p.output_min = min;
  std::vector<int8_t> y(rows * p.n);
  for (size_t i = 0; i < rows; ++i) kernels::qgemv_s8(kernels::qint_reference_kernels(), p, x.data() + i * p.k, y.data() + i * p.n);
  return y;
}

Outputs oracle(const Parts& p) {
  Outputs want;
  const std::vector<int32_t> ids = token_ids();
  const fb::RequantizationT &tr = *p.embedding.requantization, &pr = *p.embedding.position_requantization;
  for (size_t t = 0; t < ids.size(); ++t) {
    const size_t id = size_t(ids[t]), at = t % size_t(kS);
    for (size_t d = 0; d < size_t(kD); ++d) {
      const int32_t v = kernels::qint::requantize(p.table.q[id * kD + d], tr.multiplier[id], tr.shift[id]) +
                        kernels::qint::requantize(p.positions.q[at * kD + d], pr.multiplier[at], pr.shift[at]) + kE.zero_point;
      want.e.push_back(int8_t(kernels::qint::clamp(v, -128, 127)));
    }
  }
  const fb::MultiHeadAttentionQuantizationT& q = *p.attention.quantized;
  const size_t rows = size_t(kB * kS);
  const std::vector<int8_t> qs = project(p.wq, *q.q_projection, 0, want.e, rows), ks = project(p.wk, *q.k_projection, 0, want.e, rows),
                            vs = project(p.wv, *q.v_projection, q.v_zero_point, want.e, rows);
  std::vector<int8_t> context(rows * size_t(kHeads * kHeadDim));
  kernels::QAttentionParams ap;
  ap.queries = ap.keys = size_t(kS), ap.head_dim = size_t(kHeadDim);
  ap.q_stride = ap.out_stride = size_t(kHeads * kHeadDim), ap.k_stride = ap.v_stride = size_t(kHeadDim);
  ap.score_multiplier = q.score_multiplier, ap.score_shift = q.score_shift, ap.v_zero_point = q.v_zero_point;
  ap.output_multiplier = q.context_multiplier, ap.output_shift = q.context_shift, ap.output_zero_point = q.context_zero_point;
  std::vector<int32_t> scores(kS), accumulators(kHeadDim);
  std::vector<uint8_t> seen(kS), valid(kS);
  for (int64_t b = 0; b < kB; ++b) {
    for (int64_t s = 0; s < kS; ++s) valid[size_t(s)] = uint8_t(s < kLengths[b]);
    const size_t row0 = size_t(b * kS);
    for (int64_t h = 0; h < kHeads; ++h) {  // both query heads read the one kv head
      kernels::qattention_head(kernels::qint_reference_kernels(), ap, qs.data() + row0 * 4 + size_t(h * kHeadDim),
                               ks.data() + row0 * 2, vs.data() + row0 * 2, valid.data(),
                               {scores.data(), seen.data(), accumulators.data()}, nullptr,
                               context.data() + row0 * 4 + size_t(h * kHeadDim));
    }
  }
  want.a = project(p.wo, *q.output_projection, kA.zero_point, context, rows);
  want.f = project(p.w1, *p.dense.requantization, kPre.zero_point, want.a, rows);
  for (int8_t& v : want.f) v = p.dense.lookup->values[size_t(v + 128)];
  for (int64_t b = 0; b < kB; ++b) {
    for (int64_t j = 0; j < kFf; ++j) want.y.push_back(kF.scale * float(want.f[size_t(b * kS * kFf + j)] - kF.zero_point));
  }
  return want;
}

}  // namespace

TEST_CASE("int8 Embedding with positions, grouped-query attention, GELU table, CLS pool and Scale: the oracle's integers") {
  const Parts p = parts();
  Outputs got;
  const Status status = run(model(parts()), &got);
  REQUIRE_MESSAGE(status.ok(), std::string(status.message()));
  const Outputs want = oracle(p);
  CHECK(got.e == want.e);
  CHECK(got.a == want.a);
  CHECK(got.f == want.f);
  CHECK(got.y == want.y);
  // Not a degenerate case: the attention output varies, and GELU's table is not the identity.
  CHECK(*std::max_element(got.a.begin(), got.a.end()) > *std::min_element(got.a.begin(), got.a.end()) + 10);
}

TEST_CASE("int8 attention, Dense table, positions, Pool and Scale: malformed records are refused at load, naming them") {
  const std::pair<Tamper, const char*> cases[] = {
      {Tamper::kNoAttentionRecord, "integer attention needs its records"},
      {Tamper::kAttentionBias, "integer attention's biases are its records' (slot 2 given)"},
      {Tamper::kScoreShift, "score shift 16 above 15 for head_dim 2"},
      {Tamper::kContextShift, "context shift 7 above 6"},
      {Tamper::kVZeroPoint, "zero point 200 outside [-128, 127]"},
      {Tamper::kShortProjection, "k projection requantization has 1 bias entries, expected 2"},
      {Tamper::kRope, "integer attention has no RoPE"},
      {Tamper::kNoLookup, "activation GeluErf on int8 activations needs int8 outputs and its lookup table"},
      {Tamper::kShortLookup, "an activation's lookup table has 256 entries"},
      {Tamper::kLookupZeroPoint, "lookup zero point 300 outside [-128, 127]"},
      {Tamper::kReluLookup, "a lookup table for activation None or Relu"},
      {Tamper::kNoPositionRecord, "embedding positions: the int8 form needs its requantization"},
      {Tamper::kPositionShift, "embedding positions row 1: shift 23 above 22"},
      {Tamper::kFewPositions, "sequences of up to 5 tokens, and 4 positions"},
      {Tamper::kMeanPool, "an int8 pool is Cls, Last or Max"},
      {Tamper::kPoolQuant, "an int8 pool's output has its input's scale and zero point"},
      {Tamper::kInt8Scale, "'y' is I8"},
  };
  for (const auto& c : cases) {
    Outputs out;
    const Status status = run(model(parts(), c.first), &out);
    CAPTURE(c.second);
    CHECK(status.code() == StatusCode::kInvalidModel);
    CHECK_MESSAGE(std::strstr(status.message(), c.second) != nullptr, std::string(status.message()));
  }
}
