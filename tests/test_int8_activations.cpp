// The ops on static int8 activations (issue 36), as a model uses them: a small
// classifier (Embedding -> bidirectional LSTM or GRU -> additive AttentionPool -> Dense ->
// Softmax) written twice from the same real weights, once with f32 activations and once
// with int8 activations quantized by converter/src/quantize/static_int8.h. Two oracles:
//  - the integers: the int8 model's logits (dequantized sums) and attention weights equal
//    bit for bit a composition of the qint reference kernels (qint_reference_kernels(),
//    the plain-C twin) written here step by step, so the ops' wiring (slots, directions,
//    ragged rows, zero points, requantization records) is what is checked;
//  - the real values: its probabilities and attention weights stay within 0.03 of the f32
//    model's (whose ops are tested against PyTorch), with the same argmax.
// And the load-time checks: every malformed quantization gives a Status naming it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "focal/focal.h"
#include "model_writer.h"
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"
#include "quantize/static_int8.h"
#include "support/aligned_buffer.h"
#include "support/random_values.h"

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

constexpr int64_t kB = 2, kS = 7, kV = 20, kE = 8, kH = 6, kA = 5, kC = 3;
constexpr int64_t kLengths[kB] = {kS, 4};

std::vector<float> values(size_t count, uint32_t seed, float range = 0.5f) {
  return testing::random_values(count, seed, -range, range);
}

struct Weights {
  explicit Weights(bool gru_cell = false) : gru(gru_cell), g(gru_cell ? 3 : 4) {}
  bool gru;
  int64_t g;  // gate rows per unit: 4 (LSTM) or 3 (GRU)
  std::vector<float> table = values(kV * kE, 1, 1.0f);
  std::vector<float> w_ih[2] = {values(size_t(g * kH * kE), 2), values(size_t(g * kH * kE), 3)};
  std::vector<float> w_hh[2] = {values(size_t(g * kH * kH), 4), values(size_t(g * kH * kH), 5)};
  std::vector<float> b_ih[2] = {values(size_t(g * kH), 6), values(size_t(g * kH), 7)};
  std::vector<float> b_hh[2] = {values(size_t(g * kH), 8), values(size_t(g * kH), 9)};
  std::vector<float> w_a = values(kA * 2 * kH, 10, 1.0f), b_a = values(kA, 11), v_a = values(kA, 12, 2.0f);
  std::vector<float> w_d = values(kC * 2 * kH, 13, 2.0f), b_d = values(kC, 14);
};

// What a bad-model case breaks in the int8 model.
enum class Tamper { kNone, kMultiplier, kZeroPoint, kOtherCell, kDenseBias, kNoRequantization, kBias, kShortRecord };

struct Int8Parts {
  bool gru = false;
  quantize::ActivationParams e, h, pooled;
  quantize::Int8Weight table, w_ih[2], w_hh[2], w_a, w_d;
  std::vector<int8_t> v;
  float v_scale = 0;
  fb::RequantizationT embed, ih[2], hh[2], pool, head;
  int32_t hidden_multiplier = 0, hidden_shift = 0, score_multiplier = 0, score_shift = 0;
  int32_t output_multiplier = 0, output_shift = 0;
};

float range_max(const std::vector<float>& v, bool lowest) {
  return lowest ? *std::min_element(v.begin(), v.end()) : *std::max_element(v.begin(), v.end());
}

// The converter's arithmetic: fixed ranges (the table's, [-1, 1] for the LSTM's h and
// the pooled mix of them) instead of calibration.
Int8Parts quantize_parts(const Weights& w) {
  Int8Parts q;
  q.gru = w.gru;
  q.e = quantize::activation_params(range_max(w.table, true), range_max(w.table, false));
  q.h = quantize::activation_params(-1.0, 1.0);
  q.pooled = quantize::activation_params(-1.0, 1.0);
  q.table = quantize::quantize_weight(w.table, kV, kE);
  for (int64_t r = 0; r < kV; ++r) {
    int32_t m = 0, s = 0;
    REQUIRE(quantize::fixed_multiplier("embed", q.table.scales[size_t(r)] / q.e.scale, &m, &s).ok());
    q.embed.multiplier.push_back(m), q.embed.shift.push_back(s);
  }
  for (int d = 0; d < 2; ++d) {
    q.w_ih[d] = quantize::quantize_weight(w.w_ih[d], size_t(w.g * kH), kE);
    q.w_hh[d] = quantize::quantize_weight(w.w_hh[d], size_t(w.g * kH), kH);
    REQUIRE(quantize::requantization("ih", q.w_ih[d], w.b_ih[d], q.e, 1.0 / 4096, &q.ih[d]).ok());
    REQUIRE(quantize::requantization("hh", q.w_hh[d], w.b_hh[d], q.h, 1.0 / 4096, &q.hh[d]).ok());
  }
  REQUIRE(quantize::fixed_multiplier("hidden", std::ldexp(1.0, -30) / q.h.scale, &q.hidden_multiplier, &q.hidden_shift).ok());
  q.w_a = quantize::quantize_weight(w.w_a, kA, 2 * kH);
  REQUIRE(quantize::requantization("pool", q.w_a, w.b_a, q.h, 1.0 / 4096, &q.pool).ok());
  float amax = 0;
  for (float x : w.v_a) amax = std::max(amax, std::fabs(x));
  q.v_scale = amax / 127;
  for (float x : w.v_a) q.v.push_back(int8_t(std::nearbyint(x / q.v_scale)));
  // score = v_scale 2^-15 sum into Q4.11; pooled = 2^-15 h_scale sum into pooled's scale.
  REQUIRE(quantize::fixed_multiplier("score", q.v_scale / 16.0, &q.score_multiplier, &q.score_shift).ok());
  REQUIRE(quantize::fixed_multiplier("output", std::ldexp(q.h.scale, -15) / q.pooled.scale, &q.output_multiplier,
                                     &q.output_shift)
              .ok());
  q.w_d = quantize::quantize_weight(w.w_d, kC, 2 * kH);
  REQUIRE(quantize::requantization("head", q.w_d, w.b_d, q.pooled, 0.0, &q.head).ok());
  return q;
}

std::unique_ptr<fb::RequantizationT> copy(const fb::RequantizationT& r) {
  return std::make_unique<fb::RequantizationT>(r);
}

struct Io {
  int ids, mask;
};

Io add_inputs(ModelWriter& m) {
  return {m.add_input("input_ids", DType::kI32, {kB, kS}), m.add_input("attention_mask", DType::kI32, {kB, kS})};
}

int int8_constant(ModelWriter& m, const char* name, const quantize::Int8Weight& w) {
  const int t = m.add_constant(name, DType::kI8, {int64_t(w.rows), int64_t(w.cols)}, quantize::weight_bytes(w));
  m.set_quantization(t, w.scales);
  return t;
}

int int8_activation(ModelWriter& m, const char* name, std::vector<int64_t> shape, const quantize::ActivationParams& p,
                    Tamper tamper) {
  const int t = m.add_activation(name, DType::kI8, std::move(shape));
  m.set_quantization(t, {float(p.scale)}, {tamper == Tamper::kZeroPoint ? 200 : p.zero_point});
  return t;
}

void add_recurrent(ModelWriter& m, const Int8Parts& q, int e, int mask, int h, Tamper tamper) {
  fb::RecurrentOptionsT o;
  o.cell = q.gru != (tamper == Tamper::kOtherCell) ? fb::RecurrentCell_Gru : fb::RecurrentCell_Lstm;
  o.hidden = int32_t(kH);
  o.bidirectional = true;
  o.quantized = std::make_unique<fb::RecurrentQuantizationT>();
  std::vector<int32_t> inputs = {e, mask};
  for (int d = 0; d < 2; ++d) {
    o.quantized->input_to_gates.push_back(copy(q.ih[d]));
    o.quantized->hidden_to_gates.push_back(copy(q.hh[d]));
    inputs.push_back(int8_constant(m, d == 0 ? "w_ih" : "w_ih_r", q.w_ih[d]));
    inputs.push_back(int8_constant(m, d == 0 ? "w_hh" : "w_hh_r", q.w_hh[d]));
    inputs.push_back(-1), inputs.push_back(-1);
  }
  if (tamper == Tamper::kShortRecord) o.quantized->hidden_to_gates[1]->shift.pop_back();
  o.quantized->hidden_multiplier = tamper == Tamper::kMultiplier ? 12345 : q.hidden_multiplier;
  o.quantized->hidden_shift = q.hidden_shift;
  inputs.push_back(-1), inputs.push_back(-1);
  m.add_op(q.gru ? "gru" : "lstm", std::move(o), inputs, {h});
}

void add_pool(ModelWriter& m, const Int8Parts& q, int h, int mask, int pooled, int weights) {
  fb::AttentionPoolOptionsT o;
  o.quantized = std::make_unique<fb::AttentionPoolQuantizationT>();
  o.quantized->projection = copy(q.pool);
  o.quantized->score_multiplier = q.score_multiplier, o.quantized->score_shift = q.score_shift;
  o.quantized->output_multiplier = q.output_multiplier, o.quantized->output_shift = q.output_shift;
  const int w = int8_constant(m, "w_a", q.w_a);
  std::vector<uint8_t> v_bytes(q.v.size());
  std::memcpy(v_bytes.data(), q.v.data(), q.v.size());
  const int v = m.add_constant("v_a", DType::kI8, {kA}, v_bytes);
  m.set_quantization(v, std::vector<float>(size_t(kA), q.v_scale));
  m.add_op("pool", std::move(o), {h, mask, w, -1, v}, {pooled, weights});
}

void add_head(ModelWriter& m, const Int8Parts& q, const Weights& w, int pooled, Tamper tamper) {
  const int logits = m.add_output("logits", DType::kF32, {kB, kC});
  fb::DenseOptionsT o;
  if (tamper != Tamper::kNoRequantization) o.requantization = copy(q.head);
  if (tamper == Tamper::kBias) o.requantization->bias[1] = int32_t(1) << 30;
  std::vector<int32_t> inputs = {pooled, int8_constant(m, "w_d", q.w_d)};
  if (tamper == Tamper::kDenseBias) inputs.push_back(m.add_constant_f32("b_d", {kC}, w.b_d));
  m.add_op("head", std::move(o), inputs, {logits});
  m.add_softmax("softmax", logits, m.add_output("probabilities", DType::kF32, {kB, kC}));
}

std::vector<uint8_t> int8_model(const Weights& w, const Int8Parts& q, Tamper tamper = Tamper::kNone) {
  ModelWriter m;
  const Io io = add_inputs(m);
  const int e = int8_activation(m, "e", {kB, kS, kE}, q.e, Tamper::kNone);
  fb::EmbeddingOptionsT eo;
  eo.requantization = copy(q.embed);
  m.add_op("embed", std::move(eo), {io.ids, int8_constant(m, "table", q.table)}, {e});
  const int h = int8_activation(m, "h", {kB, kS, 2 * kH}, q.h, Tamper::kNone);
  add_recurrent(m, q, e, io.mask, h, tamper);
  const int pooled = int8_activation(m, "pooled", {kB, 2 * kH}, q.pooled, tamper);
  add_pool(m, q, h, io.mask, pooled, m.add_output("attention", DType::kF32, {kB, kS}));
  add_head(m, q, w, pooled, tamper);
  return m.finish().value();
}

std::vector<uint8_t> f32_model(const Weights& w) {
  ModelWriter m;
  const Io io = add_inputs(m);
  const int e = m.add_activation("e", DType::kF32, {kB, kS, kE});
  m.add_embedding("embed", io.ids, m.add_constant_f32("table", {kV, kE}, w.table), -1, -1, -1, e);
  ModelWriter::RecurrentSpec r;
  r.x = e, r.mask = io.mask, r.hidden = int(kH);
  r.cell = w.gru ? fb::RecurrentCell_Gru : fb::RecurrentCell_Lstm;
  const int64_t rows = w.g * kH;
  r.w_ih = m.add_constant_f32("w_ih", {rows, kE}, w.w_ih[0]);
  r.w_hh = m.add_constant_f32("w_hh", {rows, kH}, w.w_hh[0]);
  r.b_ih = m.add_constant_f32("b_ih", {rows}, w.b_ih[0]);
  r.b_hh = m.add_constant_f32("b_hh", {rows}, w.b_hh[0]);
  r.w_ih_r = m.add_constant_f32("w_ih_r", {rows, kE}, w.w_ih[1]);
  r.w_hh_r = m.add_constant_f32("w_hh_r", {rows, kH}, w.w_hh[1]);
  r.b_ih_r = m.add_constant_f32("b_ih_r", {rows}, w.b_ih[1]);
  r.b_hh_r = m.add_constant_f32("b_hh_r", {rows}, w.b_hh[1]);
  const int h = m.add_activation("h", DType::kF32, {kB, kS, 2 * kH});
  m.add_recurrent("lstm", r, {h});
  const int pooled = m.add_activation("pooled", DType::kF32, {kB, 2 * kH});
  m.add_attention_pool("pool", h, io.mask, m.add_constant_f32("w_a", {kA, 2 * kH}, w.w_a),
                       m.add_constant_f32("b_a", {kA}, w.b_a), m.add_constant_f32("v_a", {kA}, w.v_a), pooled,
                       m.add_output("attention", DType::kF32, {kB, kS}));
  const int logits = m.add_output("logits", DType::kF32, {kB, kC});
  m.add_dense("head", pooled, m.add_constant_f32("w_d", {kC, 2 * kH}, w.w_d), m.add_constant_f32("b_d", {kC}, w.b_d),
              logits);
  m.add_softmax("softmax", logits, m.add_output("probabilities", DType::kF32, {kB, kC}));
  return m.finish().value();
}

struct Inputs {
  std::vector<int32_t> ids, mask;
};

Inputs make_inputs() {
  Inputs in;
  const std::vector<float> r = testing::random_values(size_t(kB * kS), 99, 0.0f, float(kV));
  for (float x : r) in.ids.push_back(int32_t(x) % int32_t(kV));
  for (int64_t b = 0; b < kB; ++b) {
    for (int64_t t = 0; t < kS; ++t) in.mask.push_back(t < kLengths[b] ? 1 : 0);
  }
  return in;
}

struct Outputs {
  std::vector<float> logits, probabilities, attention;
};

Shape shape2(int64_t a, int64_t b) {
  Shape s;
  s.rank = 2, s.dims[0] = a, s.dims[1] = b;
  return s;
}

std::vector<float> read(const Session& s, const char* name, size_t count) {
  const float* p = s.output(s.find_output(name)).as<float>();
  return std::vector<float>(p, p + count);
}

Status run(const std::vector<uint8_t>& bytes, const Inputs& in, Outputs* out) {
  AlignedBuffer file(bytes);
  auto model = Model::from_bytes(file.data(), file.size());
  if (!model.ok()) return model.status();
  auto need = Session::required_arena_bytes(*model, SessionOptions());
  if (!need.ok()) return need.status();
  AlignedBuffer arena(*need);
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
  if (!session.ok()) return session.status();
  FOCAL_RETURN_IF_ERROR(session->set_input(0, shape2(kB, kS), in.ids.data(), in.ids.size() * 4));
  FOCAL_RETURN_IF_ERROR(session->set_input(1, shape2(kB, kS), in.mask.data(), in.mask.size() * 4));
  FOCAL_RETURN_IF_ERROR(session->run());
  out->logits = read(*session, "logits", size_t(kB * kC));
  out->probabilities = read(*session, "probabilities", size_t(kB * kC));
  out->attention = read(*session, "attention", size_t(kB * kS));
  return Status();
}

// ---- The integer reference: the qint plain-C kernels composed step by step. ----

kernels::QGemvParams gemv(const quantize::Int8Weight& w, const fb::RequantizationT& r) {
  kernels::QGemvParams p;
  p.n = w.rows, p.k = w.cols, p.w = w.q.data(), p.w_stride = w.cols;
  p.bias = r.bias.data();
  p.multiplier = r.multiplier.empty() ? nullptr : r.multiplier.data();
  p.shift = r.shift.empty() ? nullptr : r.shift.data();
  return p;
}

// The rows [first, first + count) of a GEMV.
kernels::QGemvParams rows_of(kernels::QGemvParams p, size_t first, size_t count) {
  p.w += first * p.w_stride, p.bias += first, p.multiplier += first, p.shift += first;
  p.n = count;
  return p;
}

// h [S][2H] of one row: each direction over its first `length` steps; zero point after.
std::vector<int8_t> reference_recurrent(const Int8Parts& q, const std::vector<int8_t>& e, size_t length) {
  const auto& k = kernels::qint_reference_kernels();
  const size_t H = size_t(kH);
  std::vector<int8_t> y(size_t(kS * 2 * kH), int8_t(q.h.zero_point));
  for (int d = 0; d < 2; ++d) {
    std::vector<int16_t> cell(H, 0), gates(q.w_ih[d].rows), hidden_n(H);
    std::vector<int8_t> h(H, int8_t(q.h.zero_point));
    kernels::QLstmCellParams c;
    c.hidden = H, c.cell_frac_bits = 11, c.hidden_multiplier = q.hidden_multiplier;
    c.hidden_shift = q.hidden_shift, c.hidden_zero_point = q.h.zero_point;
    kernels::QGruCellParams g;
    g.hidden = H, g.hidden_multiplier = q.hidden_multiplier, g.hidden_shift = q.hidden_shift;
    g.hidden_zero_point = q.h.zero_point;
    for (size_t i = 0; i < length; ++i) {
      const size_t t = d == 0 ? i : length - 1 - i;
      std::fill(gates.begin(), gates.end(), int16_t(0));
      kernels::qgemv_s16_accumulate(k, gemv(q.w_ih[d], q.ih[d]), e.data() + t * size_t(kE), gates.data());
      if (q.gru) {  // r and z summed; n's recurrent part apart, for r to multiply
        std::fill(hidden_n.begin(), hidden_n.end(), int16_t(0));
        kernels::qgemv_s16_accumulate(k, rows_of(gemv(q.w_hh[d], q.hh[d]), 0, 2 * H), h.data(), gates.data());
        kernels::qgemv_s16_accumulate(k, rows_of(gemv(q.w_hh[d], q.hh[d]), 2 * H, H), h.data(), hidden_n.data());
        kernels::qgru_cell(g, gates.data(), hidden_n.data(), cell.data(), h.data());
      } else {
        kernels::qgemv_s16_accumulate(k, gemv(q.w_hh[d], q.hh[d]), h.data(), gates.data());
        kernels::qlstm_cell(c, gates.data(), cell.data(), h.data());
      }
      std::copy(h.begin(), h.end(), y.begin() + long(t * size_t(2 * kH) + size_t(d * kH)));
    }
  }
  return y;
}

Outputs reference_int8(const Int8Parts& q, const Inputs& in) {
  const auto& k = kernels::qint_reference_kernels();
  Outputs out;
  for (int64_t b = 0; b < kB; ++b) {
    std::vector<int8_t> e(size_t(kS * kE));
    kernels::QEmbeddingParams ep;
    ep.vocab = size_t(kV), ep.width = size_t(kE), ep.table = q.table.q.data();
    ep.multiplier = q.embed.multiplier.data(), ep.shift = q.embed.shift.data(), ep.output_zero_point = q.e.zero_point;
    REQUIRE(kernels::qembedding_gather(ep, in.ids.data() + b * kS, size_t(kS), e.data()));
    const std::vector<int8_t> h = reference_recurrent(q, e, size_t(kLengths[b]));
    kernels::QAttentionPoolParams pp;
    pp.steps = size_t(kS), pp.features = size_t(2 * kH), pp.units = size_t(kA);
    pp.projection = gemv(q.w_a, q.pool);
    pp.v = q.v.data(), pp.score_multiplier = q.score_multiplier, pp.score_shift = q.score_shift;
    pp.x_zero_point = q.h.zero_point, pp.output_multiplier = q.output_multiplier, pp.output_shift = q.output_shift;
    pp.output_zero_point = q.pooled.zero_point;
    std::vector<int16_t> key(static_cast<size_t>(kA)), weights(static_cast<size_t>(kS));
    std::vector<int32_t> scores(static_cast<size_t>(kS));
    std::vector<int8_t> pooled(size_t(2 * kH));
    kernels::qattention_pool(k, pp, h.data(), size_t(kLengths[b]), key.data(), scores.data(), weights.data(),
                             pooled.data());
    for (int16_t a : weights) out.attention.push_back(float(a) * (1.0f / 32768.0f));
    for (int64_t j = 0; j < kC; ++j) {
      int32_t sum = q.head.bias[size_t(j)];
      for (int64_t i = 0; i < 2 * kH; ++i) sum += int32_t(pooled[size_t(i)]) * q.w_d.q[size_t(j * 2 * kH + i)];
      out.logits.push_back(float(sum) * (float(q.pooled.scale) * q.w_d.scales[size_t(j)]));
    }
  }
  return out;
}

size_t argmax(const float* p) { return size_t(std::max_element(p, p + kC) - p); }

void check_integers(bool gru) {
  const Weights w(gru);
  const Int8Parts q = quantize_parts(w);
  const Inputs in = make_inputs();
  Outputs got;
  const Status status = run(int8_model(w, q), in, &got);
  REQUIRE_MESSAGE(status.ok(), status.message());
  const Outputs want = reference_int8(q, in);
  for (size_t i = 0; i < want.logits.size(); ++i) CHECK_MESSAGE(got.logits[i] == want.logits[i], "logit " << i);
  for (size_t i = 0; i < want.attention.size(); ++i) {
    CHECK_MESSAGE(got.attention[i] == want.attention[i], "attention " << i);
  }
  // Row 1 has 4 valid steps: the padded ones get no attention.
  for (int64_t t = kLengths[1]; t < kS; ++t) CHECK(got.attention[size_t(kS + t)] == 0.0f);
}

void check_against_f32(bool gru) {
  const Weights w(gru);
  const Inputs in = make_inputs();
  Outputs int8, f32;
  const Status s8 = run(int8_model(w, quantize_parts(w)), in, &int8);
  REQUIRE_MESSAGE(s8.ok(), s8.message());
  const Status s32 = run(f32_model(w), in, &f32);
  REQUIRE_MESSAGE(s32.ok(), s32.message());
  double worst = 0;
  for (size_t i = 0; i < f32.probabilities.size(); ++i) {
    worst = std::max(worst, double(std::fabs(int8.probabilities[i] - f32.probabilities[i])));
  }
  for (size_t i = 0; i < f32.attention.size(); ++i) {
    worst = std::max(worst, double(std::fabs(int8.attention[i] - f32.attention[i])));
  }
  MESSAGE(std::string(gru ? "GRU" : "LSTM") << ": largest probability or attention difference int8 vs f32: " << worst);
  CHECK(worst < 0.03);
  for (int64_t b = 0; b < kB; ++b) {
    CHECK(argmax(int8.probabilities.data() + b * kC) == argmax(f32.probabilities.data() + b * kC));
  }
}

}  // namespace

TEST_CASE("int8 activations: the classifier's integers equal the qint reference kernels composed") {
  SUBCASE("LSTM") { check_integers(false); }
  SUBCASE("GRU") { check_integers(true); }
}

TEST_CASE("int8 activations: the classifier's probabilities stay within 0.03 of f32's") {
  SUBCASE("LSTM") { check_against_f32(false); }
  SUBCASE("GRU") { check_against_f32(true); }
}

TEST_CASE("int8 activations: an id outside the vocabulary is an error of the run") {
  const Weights w;
  Inputs in = make_inputs();
  in.ids[3] = int32_t(kV);
  Outputs out;
  const Status status = run(int8_model(w, quantize_parts(w)), in, &out);
  CHECK(status.code() == StatusCode::kOutOfRange);
  CHECK(std::strstr(status.message(), "ids[3] = 20") != nullptr);
}

TEST_CASE("int8 activations: malformed quantization is refused at load, naming it") {
  const Weights w;
  const Int8Parts q = quantize_parts(w);
  const Inputs in = make_inputs();
  const std::pair<Tamper, const char*> cases[] = {
      {Tamper::kMultiplier, "hidden multiplier 12345"},
      {Tamper::kZeroPoint, "needs one positive scale and one zero point in [-128, 127]"},
      {Tamper::kOtherCell, "int8 weight 'w_ih' must be a row-major i8 [18, 8]"},  // a GRU of LSTM weights
      {Tamper::kDenseBias, "bias is its requantization's"},
      {Tamper::kNoRequantization, "needs its requantization"},
      {Tamper::kBias, "bias 1 is 1073741824"},
      {Tamper::kShortRecord, "hidden-to-gates requantization has 23 shift entries, expected 24"},
  };
  for (const auto& c : cases) {
    Outputs out;
    const Status status = run(int8_model(w, q, c.first), in, &out);
    CHECK_MESSAGE(std::strstr(status.message(), c.second) != nullptr, status.message());
  }
}
