// The int8 forms of LayerNorm and Add (issue 36, the encoder's first two ops on static int8
// activations), as a model uses them: int8 inputs x and r, n = LayerNorm(x) and
// s = n + r, written with ModelWriter and run by a session. Oracles: the qint reference
// kernels (qlayer_norm_s8, qadd_s8, the plain C that tests/test_qint_encoder.cpp holds to
// double precision and to one fingerprint on every core) on the same integers, so what
// is checked is the ops' wiring (zero points from the tensors, the per-channel record,
// rows of a rank-3 batch, a negative gamma); and every malformed record refused at load
// with a message naming it, including those that would overflow an int32 step.
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
#include "support/random_values.h"

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

constexpr int64_t kB = 2, kS = 3, kD = 7;
constexpr size_t kCount = size_t(kB * kS * kD);

struct Quant {
  float scale;
  int32_t zero_point;
};
constexpr Quant kX{0.05f, 3}, kR{0.08f, -7}, kN{0.03f, -2}, kSum{0.13f, 5};

// What a bad-model case breaks.
enum class Tamper {
  kNone, kNegativeLimit, kPositiveShift, kBias, kEpsilon, kShortRecord, kNoLayerNormRecord, kGamma,
  kAddMultiplier, kAddShift, kNoAddRecord, kFloatSum
};

int32_t multiplier_of(double real, int32_t* shift) {
  kernels::qint::FixedMultiplier m{};
  REQUIRE(kernels::qint::quantize_multiplier(real, &m));
  *shift = m.shift;
  return m.multiplier;
}

// The record the converter would write for gamma and beta (qint_kernels.h's formulas).
fb::LayerNormQuantizationT layer_norm_record(double epsilon) {
  const std::vector<float> gamma = testing::random_values(kD, 31, -1.5f, 1.5f);
  const std::vector<float> beta = testing::random_values(kD, 32, -0.5f, 0.5f);
  fb::LayerNormQuantizationT q;
  q.epsilon_q = int64_t(std::nearbyint(double(kD) * double(kD) * epsilon / (double(kX.scale) * double(kX.scale))));
  q.requantization = std::make_unique<fb::RequantizationT>();
  for (int64_t i = 0; i < kD; ++i) {
    int32_t shift = 0;
    const int32_t m = multiplier_of(std::fabs(gamma[size_t(i)]) / (double(kN.scale) * double(1 << kernels::kQLayerNormFracBits)), &shift);
    q.requantization->multiplier.push_back(gamma[size_t(i)] < 0 ? -m : m);
    q.requantization->shift.push_back(shift);
    q.requantization->bias.push_back(int32_t(std::nearbyint(beta[size_t(i)] / kN.scale)));
  }
  return q;
}

// The converter's record: s_n / s_sum and s_r / s_sum in units of 2^-shift, the larger
// within 2^21.
fb::AddQuantizationT add_record() {
  fb::AddQuantizationT q;
  q.shift = 21;  // the larger, s_r / s_sum = 0.62: 0.62 2^21 < 2^21
  q.a_multiplier = int32_t(std::nearbyint(std::ldexp(double(kN.scale) / double(kSum.scale), q.shift)));
  q.b_multiplier = int32_t(std::nearbyint(std::ldexp(double(kR.scale) / double(kSum.scale), q.shift)));
  return q;
}

void tamper_layer_norm(fb::LayerNormQuantizationT& q, Tamper tamper) {
  fb::RequantizationT& r = *q.requantization;
  if (tamper == Tamper::kNegativeLimit) r.multiplier[2] = INT32_MIN;
  if (tamper == Tamper::kPositiveShift) r.shift[4] = 1;
  if (tamper == Tamper::kBias) r.bias[1] = int32_t(1) << 30;
  if (tamper == Tamper::kEpsilon) q.epsilon_q = int64_t(1) << 46;
  if (tamper == Tamper::kShortRecord) r.shift.pop_back();
}

int int8_tensor(ModelWriter& m, const char* name, Quant q, bool input, bool output = false) {
  const std::vector<int64_t> shape = {kB, kS, kD};
  const int t = input ? m.add_input(name, DType::kI8, shape)
                      : output ? m.add_output(name, DType::kI8, shape) : m.add_activation(name, DType::kI8, shape);
  m.set_quantization(t, {q.scale}, {q.zero_point});
  return t;
}

std::vector<uint8_t> model(Tamper tamper = Tamper::kNone) {
  ModelWriter m;
  const int x = int8_tensor(m, "x", kX, true), r = int8_tensor(m, "r", kR, true);
  const int n = int8_tensor(m, "n", kN, false, true);
  fb::LayerNormOptionsT ln;
  ln.epsilon = 1e-5f;
  if (tamper != Tamper::kNoLayerNormRecord) {
    ln.quantized = std::make_unique<fb::LayerNormQuantizationT>(layer_norm_record(1e-5));
    tamper_layer_norm(*ln.quantized, tamper);
  }
  std::vector<int32_t> ln_inputs = {x};
  if (tamper == Tamper::kGamma) ln_inputs.push_back(m.add_constant_f32("gamma", {kD}, std::vector<float>(kD, 1.0f)));
  m.add_op("norm", std::move(ln), ln_inputs, {n});
  const int s = tamper == Tamper::kFloatSum ? m.add_output("s", DType::kF32, {kB, kS, kD}) : int8_tensor(m, "s", kSum, false, true);
  fb::AddOptionsT add;
  if (tamper != Tamper::kNoAddRecord) {
    add.quantized = std::make_unique<fb::AddQuantizationT>(add_record());
    if (tamper == Tamper::kAddMultiplier) add.quantized->b_multiplier = (1 << 21) + 1;
    if (tamper == Tamper::kAddShift) add.quantized->shift = 0;
  }
  m.add_op("residual", std::move(add), {n, r}, {s});
  return m.finish().value();
}

std::vector<int8_t> int8_values(uint32_t seed) {
  std::vector<int8_t> v;
  for (float f : testing::random_values(kCount, seed, -128.0f, 128.0f)) v.push_back(int8_t(std::floor(f)));
  v[0] = -128, v[1] = 127;  // the extremes
  for (size_t i = 0; i < size_t(kD); ++i) v[size_t(kD) + i] = 9;  // a constant row: variance 0, epsilon only
  return v;
}

struct Outputs {
  std::vector<int8_t> n, s;
};

Status run(const std::vector<uint8_t>& bytes, const std::vector<int8_t>& x, const std::vector<int8_t>& r,
           Outputs* out) {
  AlignedBuffer file(bytes);
  auto loaded = Model::from_bytes(file.data(), file.size());
  if (!loaded.ok()) return loaded.status();
  auto need = Session::required_arena_bytes(*loaded, SessionOptions());
  if (!need.ok()) return need.status();
  AlignedBuffer arena(*need);
  auto session = Session::create(*loaded, SessionOptions(), arena.data(), arena.size());
  if (!session.ok()) return session.status();
  Shape shape;
  shape.rank = 3, shape.dims[0] = kB, shape.dims[1] = kS, shape.dims[2] = kD;
  FOCAL_RETURN_IF_ERROR(session->set_input(session->find_input("x"), shape, x.data(), x.size()));
  FOCAL_RETURN_IF_ERROR(session->set_input(session->find_input("r"), shape, r.data(), r.size()));
  FOCAL_RETURN_IF_ERROR(session->run());
  for (const auto& [name, into] : {std::pair<const char*, std::vector<int8_t>*>{"n", &out->n}, {"s", &out->s}}) {
    const TensorView view = session->output(session->find_output(name));
    const auto* data = static_cast<const int8_t*>(view.data);
    into->assign(data, data + view.shape.element_count());
  }
  return Status();
}

}  // namespace

TEST_CASE("int8 LayerNorm and Add: a model's integers are the qint reference kernels' on the same integers") {
  const std::vector<int8_t> x = int8_values(41), r = int8_values(42);
  Outputs got;
  const Status status = run(model(), x, r, &got);
  REQUIRE_MESSAGE(status.ok(), std::string(status.message()));
  const fb::LayerNormQuantizationT ln = layer_norm_record(1e-5);
  kernels::QLayerNormParams lp;
  lp.width = size_t(kD), lp.x_zero_point = kX.zero_point, lp.epsilon_q = ln.epsilon_q;
  lp.multiplier = ln.requantization->multiplier.data(), lp.shift = ln.requantization->shift.data();
  lp.bias = ln.requantization->bias.data(), lp.output_zero_point = kN.zero_point;
  std::vector<int8_t> n(kCount), s(kCount);
  for (size_t row = 0; row < kCount / size_t(kD); ++row) {
    kernels::qlayer_norm_s8(lp, x.data() + row * size_t(kD), n.data() + row * size_t(kD));
  }
  const fb::AddQuantizationT a = add_record();
  kernels::QAddParams ap;
  ap.a_zero_point = kN.zero_point, ap.a_multiplier = a.a_multiplier;
  ap.b_zero_point = kR.zero_point, ap.b_multiplier = a.b_multiplier;
  ap.shift = a.shift, ap.output_zero_point = kSum.zero_point;
  kernels::qadd_s8(ap, n.data(), r.data(), kCount, s.data());
  CHECK(got.n == n);
  CHECK(got.s == s);
  // And the sum means what it should: the real sum of n and r, within one output step
  // (s's scale covers every sum, so nothing saturates).
  for (size_t i = 0; i < kCount; ++i) {
    const double want = kN.scale * (n[i] - kN.zero_point) + kR.scale * (r[i] - kR.zero_point);
    CHECK(std::fabs(kSum.scale * (got.s[i] - kSum.zero_point) - want) <= 1.01 * kSum.scale);
  }
}

TEST_CASE("int8 LayerNorm and Add: malformed records are refused at load, naming them") {
  const std::vector<int8_t> x = int8_values(41), r = int8_values(42);
  const std::pair<Tamper, const char*> cases[] = {
      {Tamper::kNegativeLimit, "layer norm channel 2: multiplier -2147483648"},
      {Tamper::kPositiveShift, "layer norm channel 4: multiplier"},
      {Tamper::kBias, "layer norm channel 1: bias 1073741824 outside"},
      {Tamper::kEpsilon, "epsilon_q 70368744177664 outside [0, 2^46)"},
      {Tamper::kShortRecord, "needs 7 bias, multiplier and shift entries"},
      {Tamper::kNoLayerNormRecord, "an int8 layer norm needs its quantization"},
      {Tamper::kGamma, "gamma and beta are its quantization's"},
      {Tamper::kAddMultiplier, "int8 add multiplier 2097153 outside [0, 2^21]"},
      {Tamper::kAddShift, "int8 add shift 0 outside [1, 31]"},
      {Tamper::kNoAddRecord, "an int8 add needs its quantization"},
      {Tamper::kFloatSum, "'s' is F32; this op's int8 form takes int8 activations"},
  };
  for (const auto& c : cases) {
    Outputs out;
    const Status status = run(model(c.first), x, r, &out);
    CHECK(status.code() == StatusCode::kInvalidModel);
    CHECK_MESSAGE(std::strstr(status.message(), c.second) != nullptr, std::string(status.message()));
  }
}
