// Additive attention pooling on int8 activations (schema AttentionPoolOptions,
// AttentionPoolQuantization; kernels/qint, qattention_pool): keys in int16, scores and
// their softmax in Q4.11 / Q0.15, the pooled row requantized into y.
//
// Workspace (bytes): key int16 [A] | scores int32 [S] | weights int16 [S] |
// lengths int32 [B], each region 64-aligned.
#include "focal/internal/graph.h"
#include "ops/int8_operands.h"
#include "ops/sequence_mask.h"

namespace focal {
namespace {

enum Slot { kX = 0, kMask, kW, kB, kV, kSlots };

// The kernel's score sum |v . tanh| <= units * 128 * 32768 stays in int32 below 512 units.
constexpr int64_t kMaxUnits = 511;

struct Regions {
  size_t key, scores, weights, lengths, end;
};

Regions regions(int64_t batch, int64_t seq, int64_t units) {
  const auto next = [](size_t at, uint64_t bytes) { return at + static_cast<size_t>(align_up(bytes, 64)); };
  Regions r;
  r.key = 0;
  r.scores = next(r.key, uint64_t(units) * 2);
  r.weights = next(r.scores, uint64_t(seq) * 4);
  r.lengths = next(r.weights, uint64_t(seq) * 2);
  r.end = next(r.lengths, uint64_t(batch) * 4);
  return r;
}

Status check_outputs(const OpCheck& c, const fb::Tensor& x) {
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, y));
  if (rank(y) != 2 || !same_dim(y, 0, x, 0) || dim(y, 1) != dim(x, 2)) return c.fail("output must be [B, D]");
  if (c.output_count() > 1) {
    const fb::Tensor& weights = c.output(1);
    FOCAL_RETURN_IF_ERROR(expect_f32(c, weights));
    if (rank(weights) != 2 || !same_dim(weights, 0, x, 0) || !same_dim(weights, 1, x, 1)) {
      return c.fail("weights must be [B, S]");
    }
  }
  return Status();
}

Status check_quantized(const OpCheck& c, int64_t units) {
  const fb::AttentionPoolQuantization* q = c.op.options_as_AttentionPoolOptions()->quantized();
  if (q == nullptr) return c.fail("an int8 attention pool needs its quantization");
  FOCAL_RETURN_IF_ERROR(expect_requantization(c, q->projection(), "projection", units, true, true));
  FOCAL_RETURN_IF_ERROR(expect_multiplier(c, q->score_multiplier(), q->score_shift(), "score"));
  return expect_multiplier(c, q->output_multiplier(), q->output_shift(), "output");
}

Status check_attention_pool_int8(const OpCheck& c) {
  const fb::Tensor& x = c.input(kX);
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, x));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, x, 3, 3));
  if (dim_symbol(x, 2) != -1) return c.fail("input features must be fixed");
  const fb::Tensor& w = c.input(kW);
  FOCAL_RETURN_IF_ERROR(expect_rank(c, w, 2, 2));
  const int64_t units = dim(w, 0);
  if (units > kMaxUnits) return c.fail("an int8 attention pool has at most %lld units", static_cast<long long>(kMaxUnits));
  FOCAL_RETURN_IF_ERROR(expect_int8_weight(c, w, units, dim(x, 2)));
  if (c.has_input(kB)) return c.fail("an int8 attention pool's bias is its requantization's");
  const fb::Tensor& v = c.input(kV);
  FOCAL_RETURN_IF_ERROR(expect_constant(c, v));
  if (v.dtype() != fb::DType_I8 || v.layout() != fb::TensorLayout_RowMajor || rank(v) != 1 || dim(v, 0) != units) {
    return c.fail("v must be a row-major i8 [%lld]", static_cast<long long>(units));
  }
  if (c.has_input(kMask)) {
    FOCAL_RETURN_IF_ERROR(expect_i32(c, c.input(kMask)));
    if (rank(c.input(kMask)) != 2 || !same_dim(c.input(kMask), 0, x, 0) || !same_dim(c.input(kMask), 1, x, 1)) {
      return c.fail("mask must be [B, S]");
    }
  }
  FOCAL_RETURN_IF_ERROR(check_outputs(c, x));
  return check_quantized(c, units);
}

size_t attention_pool_int8_workspace(const fb::Model& model, const fb::Op& op, int) {
  const fb::Tensor& x = *model.tensors()->Get(op.inputs()->Get(kX));
  const int64_t units = model.tensors()->Get(op.inputs()->Get(kW))->shape()->Get(0);
  return regions(x.shape()->Get(0), x.shape()->Get(1), units).end;
}

Status run_attention_pool_int8(const OpRun& r) {
  const fb::AttentionPoolQuantization& q = *r.options<fb::AttentionPoolOptions>().quantized();
  const Shape& xs = r.inputs[kX].shape;
  const size_t batch = size_t(xs.dims[0]), seq = size_t(xs.dims[1]), features = size_t(xs.dims[2]);
  const size_t units = size_t(r.inputs[kW].tensor->shape()->Get(0));
  kernels::QAttentionPoolParams p;
  p.steps = seq, p.features = features, p.units = units;
  p.projection = gemv_params(*q.projection(), r.inputs[kW].data, units, features);
  p.v = static_cast<const int8_t*>(r.inputs[kV].data);
  p.score_multiplier = q.score_multiplier(), p.score_shift = q.score_shift();
  p.x_zero_point = activation_quant(*r.inputs[kX].tensor).zero_point;
  p.output_multiplier = q.output_multiplier(), p.output_shift = q.output_shift();
  p.output_zero_point = activation_quant(*r.outputs[0].tensor).zero_point;
  uint8_t* ws = static_cast<uint8_t*>(r.workspace);
  const Regions reg = regions(int64_t(batch), int64_t(seq), int64_t(units));
  int32_t* lengths = reinterpret_cast<int32_t*>(ws + reg.lengths);
  if (r.inputs[kMask].present()) {
    FOCAL_RETURN_IF_ERROR(mask_to_lengths(r.inputs[kMask].i32(), batch, seq, "mask", lengths));
  }
  int16_t* weights = reinterpret_cast<int16_t*>(ws + reg.weights);
  for (size_t b = 0; b < batch; ++b) {
    const size_t valid = r.inputs[kMask].present() ? size_t(lengths[b]) : seq;
    kernels::qattention_pool(kernels::qint_kernels(), p, static_cast<const int8_t*>(r.inputs[kX].data) + b * seq * features,
                             valid, reinterpret_cast<int16_t*>(ws + reg.key), reinterpret_cast<int32_t*>(ws + reg.scores),
                             weights, static_cast<int8_t*>(r.outputs[0].data) + b * features);
    if (r.output_count < 2) continue;
    float* out = r.outputs[1].mutable_f32() + b * seq;
    for (size_t t = 0; t < seq; ++t) out[t] = static_cast<float>(weights[t]) * (1.0f / 32768.0f);
  }
  return Status();
}

}  // namespace

const OpDef& attention_pool_int8_op_def() {
  static const OpDef def = {"AttentionPool", kV + 1, kSlots, 2, check_attention_pool_int8, run_attention_pool_int8,
                            attention_pool_int8_workspace, (1u << kMask) | (1u << kB), 1};
  return def;
}

}  // namespace focal
