// Each op kind of the static-int8 classifier family written on int8 activations
// (static_ops.h). Weights are read back from the draft's stored bytes
// (reference/operand.h: packed or row-major, as the engine reads them) and quantized per
// output channel; activation scales come from the calibrated ranges.
#include "quantize/static_ops.h"

#include <cmath>
#include <memory>

#include "quantize/static_int8.h"
#include "reference/operand.h"

namespace focal {
namespace quantize {
namespace {

// Formats of the integer LSTM, GRU and attention pool (engine/src/kernels/qint/qint_kernels.h).
constexpr double kGateScale = 1.0 / 4096;   // gate pre-activations (a GRU's W_hn h + b_hn too) and keys, Q3.12
constexpr double kQ15 = 1.0 / 32768;        // gates, attention weights; the LSTM's o tanh(c) and the GRU's
                                            // h << 15 in Q0.30 = Q15 x Q15
constexpr double kScoreScale = 1.0 / 2048;  // scores, Q4.11

struct Op {
  StaticWriter& w;
  int index;
  const fb::Op& op;
  std::string name;

  const fb::Tensor& tensor(int t) const { return *w.draft.schema().tensors()->Get(static_cast<uint32_t>(t)); }
  int input(uint32_t slot) const { return slot < op.inputs()->size() ? op.inputs()->Get(slot) : -1; }
  int output(uint32_t slot) const { return slot < op.outputs()->size() ? op.outputs()->Get(slot) : -1; }
  bool int8(int t) const { return t >= 0 && w.int8[static_cast<size_t>(t)]; }

  Status fail(const std::string& why) const {
    const char* kind = fb::EnumNameOpOptions(op.options_type());
    return Status::error(StatusCode::kUnsupported, "--quantize static: op %d '%s' (%s): %s", index, name.c_str(), kind,
                         why.c_str());
  }
};

reference::Operand constant(const Op& o, int t) {
  reference::Operand operand;
  const fb::Tensor& tensor = o.tensor(t);
  operand.tensor = &tensor;
  operand.shape.rank = static_cast<int>(tensor.shape()->size());
  for (int d = 0; d < operand.shape.rank; ++d) operand.shape.dims[d] = tensor.shape()->Get(static_cast<uint32_t>(d));
  operand.bytes = o.w.draft.data_segment() + tensor.data()->offset();
  return operand;
}

// A weight [out, in] as the engine multiplies by it, row-major.
std::vector<float> matrix(const Op& o, int t, size_t* rows, size_t* cols) {
  const reference::Operand w = constant(o, t);
  *rows = w.dim(0), *cols = w.dim(1);
  std::vector<double> row(*cols);
  std::vector<float> values;
  for (size_t n = 0; n < *rows; ++n) {
    w.weight_row(n, row.data());
    for (double v : row) values.push_back(static_cast<float>(v));
  }
  return values;
}

// The weight quantized per output row (static_int8.h).
Int8Weight int8_matrix(const Op& o, int t) {
  size_t rows = 0, cols = 0;
  const std::vector<float> values = matrix(o, t, &rows, &cols);
  return quantize_weight(values, rows, cols);
}

// A row-major constant's values; empty for an absent slot.
std::vector<float> values_of(const Op& o, int t) {
  if (t < 0) return {};
  const reference::Operand c = constant(o, t);
  std::vector<float> values(c.count());
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(c.at(i));
  return values;
}

ActivationParams params(const Op& o, int t) {
  const TensorRange& r = o.w.ranges[static_cast<size_t>(t)];
  return activation_params(r.lo, r.hi);
}

std::vector<int64_t> shape_of(const fb::Tensor& t) { return std::vector<int64_t>(t.shape()->begin(), t.shape()->end()); }
std::vector<int32_t> symbols_of(const fb::Tensor& t) {
  return t.dim_symbols() == nullptr ? std::vector<int32_t>() : std::vector<int32_t>(t.dim_symbols()->begin(), t.dim_symbols()->end());
}

// A tensor already written (an input, an output, an earlier op's result); -1 stays -1.
int operand(const Op& o, int t) { return t < 0 ? -1 : o.w.mapped[static_cast<size_t>(t)]; }

// An op's result: an int8 activation with its calibrated quantization, or carried as is.
int result(const Op& o, int t) {
  int& mapped = o.w.mapped[static_cast<size_t>(t)];
  if (mapped >= 0) return mapped;
  const fb::Tensor& tensor = o.tensor(t);
  if (!o.int8(t)) {
    return mapped = o.w.out.add_activation(tensor.name()->str(), static_cast<DType>(tensor.dtype()), shape_of(tensor),
                                           symbols_of(tensor));
  }
  mapped = o.w.out.add_activation(tensor.name()->str(), DType::kI8, shape_of(tensor), symbols_of(tensor));
  const ActivationParams p = params(o, t);
  o.w.out.set_quantization(mapped, {static_cast<float>(p.scale)}, {p.zero_point});
  return mapped;
}

int int8_constant(const Op& o, int draft_tensor, const Int8Weight& q) {
  const int t = o.w.out.add_constant(o.tensor(draft_tensor).name()->str(), DType::kI8,
                                     {int64_t(q.rows), int64_t(q.cols)}, weight_bytes(q));
  o.w.out.set_quantization(t, q.scales);
  return t;
}

Status embedding(const Op& o) {
  for (uint32_t slot = 2; slot < 5; ++slot) {
    if (o.input(slot) >= 0) return o.fail("position and segment tables have no int8 form");
  }
  const int y = o.output(0);
  if (!o.int8(y)) return o.fail("its output is not read as int8 by a Recurrent, AttentionPool or Dense op");
  const float scale = o.op.options_as_EmbeddingOptions()->scale();
  if (!(scale > 0.0f)) return o.fail("a scale that is not positive");
  const reference::Operand table = constant(o, o.input(1));
  const size_t rows = table.dim(0), cols = table.dim(1);
  const Int8Weight q = quantize_weight(values_of(o, o.input(1)), rows, cols);
  const ActivationParams py = params(o, y);
  fb::EmbeddingOptionsT options;
  options.requantization = std::make_unique<fb::RequantizationT>();
  for (size_t r = 0; r < rows; ++r) {
    int32_t m = 0, s = 0;
    FOCAL_RETURN_IF_ERROR(fixed_multiplier(o.name, double(q.scales[r]) * scale / py.scale, &m, &s));
    options.requantization->multiplier.push_back(m);
    options.requantization->shift.push_back(s);
  }
  const int ids = operand(o, o.input(0)), t = int8_constant(o, o.input(1), q);
  o.w.out.add_op(o.name, std::move(options), {ids, t}, {result(o, y)});
  return Status();
}

// One direction's weights and requantization records; slots from `base` (2 or 6). LSTM
// and GRU alike: every row of both products into Q3.12 (qgemv_s16_accumulate).
Status recurrent_direction(const Op& o, uint32_t base, const ActivationParams& px, const ActivationParams& py,
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

Status recurrent(const Op& o) {
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
int pool_v(const Op& o, const std::vector<float>& v, double* scale) {
  float amax = 0.0f;
  for (float x : v) amax = std::fabs(x) > amax ? std::fabs(x) : amax;
  *scale = amax > 0.0f ? double(amax) / 127.0 : 1.0;
  std::vector<uint8_t> bytes;
  for (float x : v) bytes.push_back(static_cast<uint8_t>(static_cast<int8_t>(std::nearbyint(double(x) / *scale))));
  const int t = o.w.out.add_constant(o.tensor(o.input(4)).name()->str(), DType::kI8, {int64_t(v.size())}, bytes);
  o.w.out.set_quantization(t, std::vector<float>(v.size(), static_cast<float>(*scale)));
  return t;
}

Status attention_pool(const Op& o) {
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

Status dense(const Op& o) {
  const int x = o.input(0), y = o.output(0);
  if (!o.int8(x)) return o.fail("its input is not an int8 activation (only ops after an int8 Embedding run on int8)");
  const fb::Activation activation = o.op.options_as_DenseOptions()->activation();
  if (activation != fb::Activation_None && activation != fb::Activation_Relu) {
    return o.fail(std::string("activation ") + fb::EnumNameActivation(activation) + " has no int8 form (None or Relu)");
  }
  const Int8Weight w = int8_matrix(o, o.input(1));
  fb::DenseOptionsT options;
  options.activation = activation;
  options.requantization = std::make_unique<fb::RequantizationT>();
  const double output_scale = o.int8(y) ? params(o, y).scale : 0.0;  // 0: f32 output, dequantized
  FOCAL_RETURN_IF_ERROR(requantization(o.name, w, values_of(o, o.input(2)), params(o, x), output_scale,
                                       options.requantization.get()));
  const int wt = int8_constant(o, o.input(1), w);
  o.w.out.add_op(o.name, std::move(options), {operand(o, x), wt}, {result(o, y)});
  return Status();
}

Status softmax(const Op& o) {
  if (o.int8(o.input(0))) return o.fail("a softmax on int8 activations has no int8 form");
  o.w.out.add_softmax(o.name, operand(o, o.input(0)), result(o, o.output(0)));
  return Status();
}

}  // namespace

Status write_static_op(StaticWriter& w, int index) {
  const fb::Op& op = *w.draft.schema().ops()->Get(static_cast<uint32_t>(index));
  const Op o{w, index, op, op.name() != nullptr ? op.name()->str() : std::string()};
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
    default:
      return o.fail("no int8 form; --quantize static supports Embedding, Recurrent (LSTM or GRU), AttentionPool, "
                    "Dense and Softmax (the Embedding -> LSTM/GRU -> AttentionPool -> Dense classifiers)");
  }
}

}  // namespace quantize
}  // namespace focal
