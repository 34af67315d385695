// Each op kind of the static-int8 classifier family written on int8 activations
// (static_ops.h), and the dispatch by kind; the encoder's ops are in
// static_encoder_ops.cpp, the operands' helpers in static_operands.h.
#include "quantize/static_ops.h"

#include <cmath>
#include <memory>

#include "quantize/static_operands.h"

namespace focal {
namespace quantize {
namespace {

// Formats of the integer LSTM, GRU and attention pool (engine/src/kernels/qint/qint_kernels.h).
// kQ15 and kScoreScale (static_operands.h); the LSTM's o tanh(c) and the GRU's h << 15
// are Q0.30 = Q15 x Q15.
constexpr double kGateScale = 1.0 / 4096;  // gate pre-activations (a GRU's W_hn h + b_hn too) and keys, Q3.12

// Per row of `q`: its scale times `scale` into the output's, as multiplier and shift.
Status row_records(const StaticOp& o, const Int8Weight& q, double scale, const ActivationParams& y,
                   fb::RequantizationT* out) {
  for (size_t r = 0; r < q.rows; ++r) {
    int32_t m = 0, s = 0;
    FOCAL_RETURN_IF_ERROR(fixed_multiplier(o.name, double(q.scales[r]) * scale / y.scale, &m, &s));
    out->multiplier.push_back(m);
    out->shift.push_back(s);
  }
  return Status();
}

Status embedding(const StaticOp& o) {
  for (uint32_t slot = 3; slot < 5; ++slot) {
    if (o.input(slot) >= 0) return o.fail("segment tables have no int8 form");
  }
  const int y = o.output(0);
  if (!o.int8(y)) return o.fail("its output is not read as int8 by an op with an int8 form");
  const float scale = o.op.options_as_EmbeddingOptions()->scale();
  if (!(scale > 0.0f)) return o.fail("a scale that is not positive");
  const Int8Weight q = int8_matrix(o, o.input(1));
  const ActivationParams py = params(o, y);
  fb::EmbeddingOptionsT options;
  options.requantization = std::make_unique<fb::RequantizationT>();
  FOCAL_RETURN_IF_ERROR(row_records(o, q, scale, py, options.requantization.get()));
  std::vector<int32_t> inputs = {operand(o, o.input(0)), int8_constant(o, o.input(1), q)};
  if (o.input(2) >= 0) {  // learned positions, added unscaled
    const Int8Weight positions = int8_matrix(o, o.input(2));
    options.position_requantization = std::make_unique<fb::RequantizationT>();
    FOCAL_RETURN_IF_ERROR(row_records(o, positions, 1.0, py, options.position_requantization.get()));
    inputs.push_back(int8_constant(o, o.input(2), positions));
  }
  o.w.out.add_op(o.name, std::move(options), inputs, {result(o, y)});
  return Status();
}

// One direction's weights and requantization records; slots from `base` (2 or 6). LSTM
// and GRU alike: every row of both products into Q3.12 (qgemv_s16_accumulate).
Status recurrent_direction(const StaticOp& o, uint32_t base, const ActivationParams& px, const ActivationParams& py,
                      fb::RecurrentQuantizationT* q, std::vector<int32_t>* inputs) {
  const Int8Weight ih = int8_matrix(o, o.input(base));
  const Int8Weight hh = int8_matrix(o, o.input(base + 1));
  auto in = std::make_unique<fb::RequantizationT>(), hidden = std::make_unique<fb::RequantizationT>();
  FOCAL_RETURN_IF_ERROR(requantization(o.name + " input-to-gates", ih, values_of(o, o.input(base + 2)), px, kGateScale, in.get()));
  FOCAL_RETURN_IF_ERROR(
      requantization(o.name + " hidden-to-gates", hh, values_of(o, o.input(base + 3)), py, kGateScale, hidden.get()));
  q->input_to_gates.push_back(std::move(in));
  q->hidden_to_gates.push_back(std::move(hidden));
  inputs->push_back(int8_constant(o, o.input(base), ih));
  inputs->push_back(int8_constant(o, o.input(base + 1), hh));
  inputs->push_back(-1), inputs->push_back(-1);
  return Status();
}

Status recurrent(const StaticOp& o) {
  const fb::RecurrentOptions& ro = *o.op.options_as_RecurrentOptions();
  if (o.input(10) >= 0 || o.input(11) >= 0 || o.op.outputs()->size() > 1) {
    return o.fail("initial or final states (h0, c0, h_n, c_n) have no int8 form");
  }
  const int x = o.input(0), y = o.output(0);
  if (!o.int8(x) || !o.int8(y)) return o.fail("its input and output must both be int8 activations");
  const ActivationParams px = params(o, x), py = params(o, y);
  fb::RecurrentOptionsT options;
  options.cell = ro.cell();
  options.hidden = ro.hidden();
  options.bidirectional = ro.bidirectional();
  options.quantized = std::make_unique<fb::RecurrentQuantizationT>();
  options.quantized->cell_frac_bits = 11;  // the LSTM's cell; a GRU carries h in Q0.15
  FOCAL_RETURN_IF_ERROR(fixed_multiplier(o.name, kQ15 * kQ15 / py.scale, &options.quantized->hidden_multiplier,
                                         &options.quantized->hidden_shift));
  std::vector<int32_t> inputs = {operand(o, x), operand(o, o.input(1))};
  FOCAL_RETURN_IF_ERROR(recurrent_direction(o, 2, px, py, options.quantized.get(), &inputs));
  if (ro.bidirectional()) {
    FOCAL_RETURN_IF_ERROR(recurrent_direction(o, 6, px, py, options.quantized.get(), &inputs));
  } else {
    inputs.insert(inputs.end(), {-1, -1, -1, -1});
  }
  inputs.insert(inputs.end(), {-1, -1});
  o.w.out.add_op(o.name, std::move(options), inputs, {result(o, y)});
  return Status();
}

// v symmetric per tensor (its one scale enters the score multiplier), stored with that
// scale repeated per element as an int8 constant's quantization has one per channel.
int pool_v(const StaticOp& o, const std::vector<float>& v, double* scale) {
  float amax = 0.0f;
  for (float x : v) amax = std::fabs(x) > amax ? std::fabs(x) : amax;
  *scale = amax > 0.0f ? double(amax) / 127.0 : 1.0;
  std::vector<uint8_t> bytes;
  for (float x : v) bytes.push_back(static_cast<uint8_t>(static_cast<int8_t>(std::nearbyint(double(x) / *scale))));
  const int t = o.w.out.add_constant(o.tensor(o.input(4)).name()->str(), DType::kI8, {int64_t(v.size())}, bytes);
  o.w.out.set_quantization(t, std::vector<float>(v.size(), static_cast<float>(*scale)));
  return t;
}

Status attention_pool(const StaticOp& o) {
  const int x = o.input(0), y = o.output(0);
  if (!o.int8(x) || !o.int8(y)) return o.fail("its input and pooled output must both be int8 activations");
  const ActivationParams px = params(o, x), py = params(o, y);
  const Int8Weight w = int8_matrix(o, o.input(2));
  fb::AttentionPoolOptionsT options;
  options.quantized = std::make_unique<fb::AttentionPoolQuantizationT>();
  fb::AttentionPoolQuantizationT& q = *options.quantized;
  q.projection = std::make_unique<fb::RequantizationT>();
  FOCAL_RETURN_IF_ERROR(requantization(o.name, w, values_of(o, o.input(3)), px, kGateScale, q.projection.get()));
  double v_scale = 1.0;
  const int v = pool_v(o, values_of(o, o.input(4)), &v_scale);
  // score = v_scale * 2^-15 * sum(v_q tanh_q15) into Q4.11; y = 2^-15 * sum(a_q15 (x - zp)) * s_x into y.
  FOCAL_RETURN_IF_ERROR(fixed_multiplier(o.name, v_scale * kQ15 / kScoreScale, &q.score_multiplier, &q.score_shift));
  FOCAL_RETURN_IF_ERROR(fixed_multiplier(o.name, kQ15 * px.scale / py.scale, &q.output_multiplier, &q.output_shift));
  const int wt = int8_constant(o, o.input(2), w);
  std::vector<int32_t> outputs = {result(o, y)};
  if (o.output(1) >= 0) outputs.push_back(result(o, o.output(1)));
  o.w.out.add_op(o.name, std::move(options), {operand(o, x), operand(o, o.input(1)), wt, -1, v}, outputs);
  return Status();
}

Status dense(const StaticOp& o) {
  const int x = o.input(0), y = o.output(0);
  if (!o.int8(x)) return o.fail("its input is not an int8 activation (only ops after an int8 Embedding run on int8)");
  const fb::Activation activation = o.op.options_as_DenseOptions()->activation();
  const bool tabulated = activation != fb::Activation_None && activation != fb::Activation_Relu;
  if (tabulated && !o.int8(y)) {
    return o.fail(std::string("activation ") + fb::EnumNameActivation(activation) + " on int8 needs an int8 output");
  }
  const Int8Weight w = int8_matrix(o, o.input(1));
  fb::DenseOptionsT options;
  options.activation = activation;
  options.requantization = std::make_unique<fb::RequantizationT>();
  double output_scale = o.int8(y) ? params(o, y).scale : 0.0;  // 0: f32 output, dequantized
  if (tabulated) {  // the product into its pre-activation's int8, then the table into y's
    const TensorRange& pre_range = products_of(o, o.input(1)).output;
    const ActivationParams pre = activation_params(pre_range.lo, pre_range.hi);
    options.lookup = std::make_unique<fb::Int8LookupT>();
    FOCAL_RETURN_IF_ERROR(activation_lookup(o, activation, pre, params(o, y), options.lookup.get()));
    output_scale = pre.scale;
  }
  FOCAL_RETURN_IF_ERROR(requantization(o.name, w, values_of(o, o.input(2)), params(o, x), output_scale,
                                       options.requantization.get()));
  const int wt = int8_constant(o, o.input(1), w);
  o.w.out.add_op(o.name, std::move(options), {operand(o, x), wt}, {result(o, y)});
  return Status();
}

Status softmax(const StaticOp& o) {
  if (o.int8(o.input(0))) return o.fail("a softmax on int8 activations has no int8 form");
  o.w.out.add_softmax(o.name, operand(o, o.input(0)), result(o, o.output(0)));
  return Status();
}

}  // namespace

Status write_static_op(StaticWriter& w, int index) {
  const fb::Op& op = *w.draft.schema().ops()->Get(static_cast<uint32_t>(index));
  const StaticOp o{w, index, op, op.name() != nullptr ? op.name()->str() : std::string()};
  switch (op.options_type()) {
    case fb::OpOptions_EmbeddingOptions:
      return embedding(o);
    case fb::OpOptions_RecurrentOptions:
      return recurrent(o);
    case fb::OpOptions_AttentionPoolOptions:
      return attention_pool(o);
    case fb::OpOptions_DenseOptions:
      return dense(o);
    case fb::OpOptions_SoftmaxOptions:
      return softmax(o);
    case fb::OpOptions_LayerNormOptions:
      return layer_norm(o);
    case fb::OpOptions_AddOptions:
      return add(o);
    case fb::OpOptions_MultiHeadAttentionOptions:
      return multi_head_attention(o);
    case fb::OpOptions_PoolOptions:
      return pool(o);
    default:
      return o.fail("no int8 form; --quantize static supports Embedding, Recurrent (LSTM or GRU), AttentionPool, "
                    "Dense, Softmax, LayerNorm, Add, MultiHeadAttention and Pool (the Embedding -> LSTM/GRU -> "
                    "AttentionPool -> Dense classifiers and the post- or pre-LN transformer encoders)");
  }
}

}  // namespace quantize
}  // namespace focal
