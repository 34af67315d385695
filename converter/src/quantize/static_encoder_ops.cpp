// The transformer encoder's ops written on static int8 activations (static_operands.h):
// LayerNorm, the residual Add, self-attention, pooling, and the 256-entry tables of the
// feed-forward layer's activation. The records' formulas are the engine kernels'
// (engine/src/kernels/qint/qint_kernels.h: qlayer_norm_s8, qadd_s8, qattention_head,
// qlookup_s8).
#include <cmath>
#include <memory>

#include "qint/qint_kernels.h"
#include "quantize/static_operands.h"
#include "reference/reference_ops.h"

namespace focal {
namespace quantize {
namespace {

// MultiHeadAttention's slots (schema/focal.fbs).
enum MhaSlot { kX = 0, kWq, kBq, kWk, kBk, kWv, kBv, kWo, kBo, kKeyMask, kFirstState };

Status expect_int8_io(const StaticOp& o, int x, int y) {
  if (!o.int8(x) || !o.int8(y)) return o.fail("its input and output must both be int8 activations");
  return Status();
}

}  // namespace

Status layer_norm(const StaticOp& o) {
  const int x = o.input(0), y = o.output(0);
  FOCAL_RETURN_IF_ERROR(expect_int8_io(o, x, y));
  const ActivationParams px = params(o, x), py = params(o, y);
  const std::vector<float> gamma = values_of(o, o.input(1)), beta = values_of(o, o.input(2));
  const size_t width = static_cast<size_t>(o.tensor(x).shape()->Get(o.tensor(x).shape()->size() - 1));
  const double epsilon = o.op.options_as_LayerNormOptions()->epsilon();
  fb::LayerNormOptionsT options;
  options.epsilon = static_cast<float>(epsilon);
  options.quantized = std::make_unique<fb::LayerNormQuantizationT>();
  options.quantized->epsilon_q = static_cast<int64_t>(std::nearbyint(double(width) * double(width) * epsilon / (px.scale * px.scale)));
  options.quantized->requantization = std::make_unique<fb::RequantizationT>();
  fb::RequantizationT& r = *options.quantized->requantization;
  for (size_t i = 0; i < width; ++i) {
    const double g = gamma.empty() ? 1.0 : double(gamma[i]), b = beta.empty() ? 0.0 : double(beta[i]);
    int32_t m = 0, s = 0;
    FOCAL_RETURN_IF_ERROR(fixed_multiplier(o.name, std::fabs(g) / (py.scale * std::ldexp(1.0, kernels::kQLayerNormFracBits)), &m, &s));
    r.multiplier.push_back(g < 0.0 ? -m : m);
    r.shift.push_back(s);
    r.bias.push_back(static_cast<int32_t>(std::nearbyint(b / py.scale)));
  }
  o.w.out.add_op(o.name, std::move(options), {operand(o, x)}, {result(o, y)});
  return Status();
}

// The add's two multipliers s_a / s_y and s_b / s_y in units of 2^-shift: the largest
// shift that keeps both within 2^21 (qadd_s8), at most 31.
Status add_record(const StaticOp& o, double a, double b, fb::AddQuantizationT* q) {
  const double larger = std::fmax(a, b);
  int32_t shift = 31;
  while (shift > 0 && std::nearbyint(std::ldexp(larger, shift)) > double(kernels::kQAddMaxMultiplier)) --shift;
  if (shift < 1) return o.fail("input scales over 2^20 times the output's");
  q->shift = shift;
  q->a_multiplier = static_cast<int32_t>(std::nearbyint(std::ldexp(a, shift)));
  q->b_multiplier = static_cast<int32_t>(std::nearbyint(std::ldexp(b, shift)));
  return Status();
}

Status add(const StaticOp& o) {
  const int a = o.input(0), b = o.input(1), y = o.output(0);
  if (!o.int8(a) || !o.int8(b) || !o.int8(y)) return o.fail("both inputs and the sum must be int8 activations");
  const ActivationParams pa = params(o, a), pb = params(o, b), py = params(o, y);
  fb::AddOptionsT options;
  options.quantized = std::make_unique<fb::AddQuantizationT>();
  FOCAL_RETURN_IF_ERROR(add_record(o, pa.scale / py.scale, pb.scale / py.scale, options.quantized.get()));
  o.w.out.add_op(o.name, std::move(options), {operand(o, a), operand(o, b)}, {result(o, y)});
  return Status();
}

namespace {

// One projection of the attention: its int8 weight and record into `scale` (a symmetric
// int8 when `zero_point` is 0), from x with params `px`.
Status projection(const StaticOp& o, int slot, const ActivationParams& px, double scale, int* weight,
                  std::unique_ptr<fb::RequantizationT>* record) {
  const Int8Weight w = int8_matrix(o, o.input(static_cast<uint32_t>(slot)));
  *record = std::make_unique<fb::RequantizationT>();
  FOCAL_RETURN_IF_ERROR(requantization(o.name, w, values_of(o, o.input(static_cast<uint32_t>(slot) + 1)), px, scale,
                                       record->get()));
  *weight = int8_constant(o, o.input(static_cast<uint32_t>(slot)), w);
  return Status();
}

Status expect_self_attention(const StaticOp& o, const fb::MultiHeadAttentionOptions& mha) {
  for (uint32_t slot = kFirstState; slot < o.op.inputs()->size(); ++slot) {
    if (o.input(slot) >= 0) return o.fail("states, memory, relative bias and q/k norms have no int8 form");
  }
  if (mha.rope() != fb::RopeLayout_None) return o.fail("RoPE has no int8 form");
  if (o.input(kWk) < 0 || o.input(kWv) < 0) return o.fail("integer attention projects its own keys and values");
  return Status();
}

}  // namespace

Status multi_head_attention(const StaticOp& o) {
  const fb::MultiHeadAttentionOptions& mha = *o.op.options_as_MultiHeadAttentionOptions();
  FOCAL_RETURN_IF_ERROR(expect_self_attention(o, mha));
  const int x = o.input(kX), y = o.output(0);
  FOCAL_RETURN_IF_ERROR(expect_int8_io(o, x, y));
  const ActivationParams px = params(o, x), py = params(o, y);
  // q and k symmetric (their dot products need no zero points); v and the context asymmetric.
  const double s_q = symmetric_scale(products_of(o, o.input(kWq)).output);
  const double s_k = symmetric_scale(products_of(o, o.input(kWk)).output);
  const TensorRange& v_range = products_of(o, o.input(kWv)).output;
  const TensorRange& context_range = products_of(o, o.input(kWo)).input;
  const ActivationParams pv = activation_params(v_range.lo, v_range.hi);
  const ActivationParams pc = activation_params(context_range.lo, context_range.hi);
  fb::MultiHeadAttentionOptionsT options;
  mha.UnPackTo(&options);
  options.quantized = std::make_unique<fb::MultiHeadAttentionQuantizationT>();
  fb::MultiHeadAttentionQuantizationT& q = *options.quantized;
  int wq = -1, wk = -1, wv = -1, wo = -1;
  FOCAL_RETURN_IF_ERROR(projection(o, kWq, px, s_q, &wq, &q.q_projection));
  FOCAL_RETURN_IF_ERROR(projection(o, kWk, px, s_k, &wk, &q.k_projection));
  FOCAL_RETURN_IF_ERROR(projection(o, kWv, px, pv.scale, &wv, &q.v_projection));
  FOCAL_RETURN_IF_ERROR(projection(o, kWo, pc, py.scale, &wo, &q.output_projection));
  q.v_zero_point = pv.zero_point;
  q.context_zero_point = pc.zero_point;
  const double scale = mha.scale() != 0.0f ? double(mha.scale()) : 1.0 / std::sqrt(double(mha.head_dim()));
  FOCAL_RETURN_IF_ERROR(fixed_multiplier(o.name, s_q * s_k * scale / kScoreScale, &q.score_multiplier, &q.score_shift));
  FOCAL_RETURN_IF_ERROR(fixed_multiplier(o.name, kQ15 * pv.scale / pc.scale, &q.context_multiplier, &q.context_shift));
  const std::vector<int32_t> inputs = {operand(o, x), wq, -1, wk, -1, wv, -1, wo, -1, operand(o, o.input(kKeyMask))};
  o.w.out.add_op(o.name, std::move(options), inputs, {result(o, y)});
  return Status();
}

Status pool(const StaticOp& o) {
  const int x = o.input(0), y = o.output(0);
  FOCAL_RETURN_IF_ERROR(expect_int8_io(o, x, y));
  const fb::PoolMode mode = o.op.options_as_PoolOptions()->mode();
  if (mode == fb::PoolMode_Mean) return o.fail("mean pooling has no int8 form (Cls, Last and Max do)");
  const ActivationParams px = params(o, x);  // picked values keep their quantization
  fb::PoolOptionsT options;
  options.mode = mode;
  o.w.out.add_op(o.name, std::move(options), {operand(o, x), operand(o, o.input(1))}, {result(o, y, &px)});
  return Status();
}

Status activation_lookup(const StaticOp& o, fb::Activation activation, const ActivationParams& pre,
                         const ActivationParams& y, fb::Int8LookupT* lookup) {
  if (activation > fb::Activation_MAX) return o.fail("an unknown activation");
  lookup->zero_point = pre.zero_point;
  for (int32_t q = -128; q <= 127; ++q) {
    const double real = reference::activation(activation, pre.scale * double(q - pre.zero_point));
    const double level = std::nearbyint(real / y.scale) + double(y.zero_point);
    lookup->values.push_back(static_cast<int8_t>(level < -128.0 ? -128.0 : level > 127.0 ? 127.0 : level));
  }
  return Status();
}

}  // namespace quantize
}  // namespace focal
