// LayerNorm on int8 activations (schema LayerNormOptions, LayerNormQuantization;
// kernels/qint, qlayer_norm_s8): each row of the last axis normalized in integers, then
// per channel requantized by gamma / (s_y 2^20) plus round(beta / s_y); gamma and beta
// are folded into the record, so x is the only input.
#include <cstdlib>

#include "ops/int8_operands.h"
#include "qint/fixed_point.h"

namespace focal {
namespace {

// The kernel's sums stay exact below 2^16 channels (qlayer_norm.cpp).
constexpr int64_t kMaxWidth = int64_t(1) << 16;
constexpr int64_t kEpsilonLimit = int64_t(1) << 46;
constexpr int32_t kBiasLimit = int32_t(1) << 30;

// Per channel: a multiplier whose magnitude is 0 or in [2^30, 2^31) (a negative gamma is a
// negative multiplier) and a shift in [kMinShift, 0], so that |requantized| stays below
// the kernel's |u| < 2^28 and adding a bias below 2^30 cannot overflow int32.
Status check_channel(const OpCheck& c, int32_t multiplier, int32_t shift, int32_t bias, uint32_t channel) {
  const bool magnitude_ok = multiplier == 0 || (multiplier != INT32_MIN && std::abs(multiplier) >= (int32_t(1) << 30));
  if (!magnitude_ok || shift < kernels::qint::kMinShift || shift > 0) {
    return c.fail("layer norm channel %lu: multiplier %ld shift %ld, expected |multiplier| 0 or in [2^30, 2^31) and "
                  "a shift in [%d, 0]",
                  static_cast<unsigned long>(channel), static_cast<long>(multiplier), static_cast<long>(shift),
                  static_cast<int>(kernels::qint::kMinShift));
  }
  if (bias <= -kBiasLimit || bias >= kBiasLimit) {
    return c.fail("layer norm channel %lu: bias %ld outside (-2^30, 2^30)", static_cast<unsigned long>(channel),
                  static_cast<long>(bias));
  }
  return Status();
}

Status check_quantized(const OpCheck& c, int64_t width) {
  const fb::LayerNormQuantization* q = c.op.options_as_LayerNormOptions()->quantized();
  if (q == nullptr || q->requantization() == nullptr) return c.fail("an int8 layer norm needs its quantization");
  if (q->epsilon_q() < 0 || q->epsilon_q() >= kEpsilonLimit) {
    return c.fail("layer norm epsilon_q %lld outside [0, 2^46)", static_cast<long long>(q->epsilon_q()));
  }
  const fb::Requantization& r = *q->requantization();
  const auto entries = [width](const flatbuffers::Vector<int32_t>* v) {
    return v != nullptr && static_cast<int64_t>(v->size()) == width;
  };
  if (!entries(r.bias()) || !entries(r.multiplier()) || !entries(r.shift())) {
    return c.fail("layer norm requantization needs %lld bias, multiplier and shift entries",
                  static_cast<long long>(width));
  }
  for (uint32_t i = 0; i < static_cast<uint32_t>(width); ++i) {
    FOCAL_RETURN_IF_ERROR(check_channel(c, r.multiplier()->Get(i), r.shift()->Get(i), r.bias()->Get(i), i));
  }
  return Status();
}

Status check_layernorm_int8(const OpCheck& c) {
  const fb::Tensor& x = c.input(0);
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, x));
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, y));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, x, 1, kMaxRank));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, x, y));
  if (dim_symbol(x, -1) != -1) return c.fail("input features must be fixed");
  const int64_t width = dim(x, -1);
  if (width < 1 || width > kMaxWidth) {
    return c.fail("an int8 layer norm has 1 to %lld channels, not %lld", static_cast<long long>(kMaxWidth),
                  static_cast<long long>(width));
  }
  if (c.has_input(1) || c.has_input(2)) return c.fail("an int8 layer norm's gamma and beta are its quantization's");
  return check_quantized(c, width);
}

Status run_layernorm_int8(const OpRun& r) {
  const fb::LayerNormQuantization& q = *r.options<fb::LayerNormOptions>().quantized();
  const fb::Requantization& rq = *q.requantization();
  const Shape& shape = r.inputs[0].shape;
  kernels::QLayerNormParams p;
  p.width = static_cast<size_t>(shape.dims[shape.rank - 1]);
  p.x_zero_point = activation_quant(*r.inputs[0].tensor).zero_point;
  p.epsilon_q = q.epsilon_q();
  p.multiplier = rq.multiplier()->data(), p.shift = rq.shift()->data(), p.bias = rq.bias()->data();
  p.output_zero_point = activation_quant(*r.outputs[0].tensor).zero_point;
  const size_t rows = static_cast<size_t>(shape.element_count()) / p.width;
  const auto* x = static_cast<const int8_t*>(r.inputs[0].data);
  auto* y = static_cast<int8_t*>(r.outputs[0].data);
  for (size_t row = 0; row < rows; ++row) kernels::qlayer_norm_s8(p, x + row * p.width, y + row * p.width);
  return Status();
}

}  // namespace

const OpDef& layernorm_int8_op_def() {
  static const OpDef def = {"LayerNorm", 1, 3, 1, check_layernorm_int8, run_layernorm_int8, nullptr, 0b110};
  return def;
}

}  // namespace focal
