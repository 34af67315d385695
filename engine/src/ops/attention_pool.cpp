// AttentionPool op: y[b] = sum_s softmax_s(v . tanh(W x[b, s] + bias)) x[b, s] over the
// valid positions: one GEMM projects every position, then additive attention per row
// with the bias as the (constant) query projection.
// Workspace: keys [B*S, A] | zero query [A] | lengths [B] | kernel scratch, which first
// holds the projection's int8 rows (DenseInt8Dot weights).
#include <cstring>

#include "dispatch/scoring_dispatch.h"
#include "focal/internal/graph.h"
#include "ops/op_checks.h"
#include "ops/sequence_mask.h"
#include "support/saturating_size.h"

namespace focal {
namespace {

enum Slot { kX = 0, kMask, kW, kB, kV, kSlots };

size_t floats(int64_t n) { return static_cast<size_t>(align_up(static_cast<uint64_t>(n) * 4, 64)); }

Status check_pool(const OpCheck& c) {
  const fb::Tensor& x = c.input(kX);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, x));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, x, 3, 3));
  const fb::Tensor& w = c.input(kW);
  if (rank(w) != 2) return c.fail("w must be [units, features]");
  const int64_t units = dim(w, 0);
  FOCAL_RETURN_IF_ERROR(expect_packed_weight(c, w, units, dim(x, 2)));
  FOCAL_RETURN_IF_ERROR(expect_optional_vector(c, kB, units));
  FOCAL_RETURN_IF_ERROR(expect_vector(c, c.input(kV), units));
  if (c.has_input(kMask)) {
    FOCAL_RETURN_IF_ERROR(expect_i32(c, c.input(kMask)));
    if (rank(c.input(kMask)) != 2 || !same_dim(c.input(kMask), 0, x, 0) || !same_dim(c.input(kMask), 1, x, 1)) {
      return c.fail("mask must be [B, S]");
    }
  }
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, y));
  if (rank(y) != 2 || !same_dim(y, 0, x, 0) || dim(y, 1) != dim(x, 2)) return c.fail("output must be [B, D]");
  if (c.output_count() > 1) {
    const fb::Tensor& weights = c.output(1);
    FOCAL_RETURN_IF_ERROR(expect_f32(c, weights));
    if (rank(weights) != 2 || !same_dim(weights, 0, x, 0) || !same_dim(weights, 1, x, 1)) return c.fail("weights must be [B, S]");
  }
  return Status();
}

AdditiveAttentionParams params_for(int64_t seq, int64_t units, int64_t dim) {
  AdditiveAttentionParams p;
  p.src_len = size_t(seq);
  p.units = size_t(units);
  p.value_dim = size_t(dim);
  return p;
}

size_t pool_workspace(const fb::Model& model, const fb::Op& op, int) {
  const fb::Tensor& x = *model.tensors()->Get(op.inputs()->Get(kX));
  const int64_t units = model.tensors()->Get(op.inputs()->Get(kW))->shape()->Get(0);
  const int64_t batch = x.shape()->Get(0), seq = x.shape()->Get(1);
  const size_t regions = saturating_add(saturating_float_bytes(saturating_product(batch, seq, units)),
                                        saturating_add(floats(units), floats(batch)));
  const size_t kernel = additive_attention_workspace_bytes(params_for(seq, units, x.shape()->Get(2)));
  // batch and seq are each <= kMaxDim (2^31 - 1): their product fits.
  const size_t projection = packed_dense_workspace_bytes(*model.tensors()->Get(op.inputs()->Get(kW)), batch * seq);
  return saturating_add(regions, kernel > projection ? kernel : projection);
}

Status run_pool(const OpRun& r) {
  const Shape& x = r.inputs[kX].shape;
  const size_t batch = size_t(x.dims[0]), seq = size_t(x.dims[1]), dim = size_t(x.dims[2]);
  const fb::Tensor& w = *r.inputs[kW].tensor;
  const size_t units = size_t(w.shape()->Get(0));
  uint8_t* ws = static_cast<uint8_t*>(r.workspace);
  float* keys = reinterpret_cast<float*>(ws);
  float* zero_query = reinterpret_cast<float*>(ws + floats(int64_t(batch * seq * units)));
  int32_t* lengths = reinterpret_cast<int32_t*>(reinterpret_cast<uint8_t*>(zero_query) + floats(int64_t(units)));
  uint8_t* scratch = reinterpret_cast<uint8_t*>(lengths) + floats(int64_t(batch));
  const size_t scratch_bytes = r.workspace_bytes - size_t(scratch - ws);
  FOCAL_RETURN_IF_ERROR(packed_dense(w, r.inputs[kW].data, r.inputs[kX].f32(), batch * seq, nullptr, keys, 0,
                                     DenseScratch{scratch, scratch_bytes}, r.parallel, r.kernels));
  std::memset(zero_query, 0, units * sizeof(float));
  const float* query = r.input_count > kB && r.inputs[kB].present() ? r.inputs[kB].f32() : zero_query;
  const bool has_mask = r.inputs[kMask].present();
  if (has_mask) FOCAL_RETURN_IF_ERROR(mask_to_lengths(r.inputs[kMask].i32(), batch, seq, "mask", lengths));
  for (size_t b = 0; b < batch; ++b) {
    AdditiveAttentionParams p = params_for(int64_t(seq), int64_t(units), int64_t(dim));
    p.key_length = has_mask ? lengths[b] : -1;
    p.query_proj = query;
    p.keys_proj = keys + b * seq * units;
    p.v = r.inputs[kV].f32();
    p.values = r.inputs[kX].f32() + b * seq * dim;
    p.context = r.outputs[0].mutable_f32() + b * dim;
    p.weights = r.output_count > 1 ? r.outputs[1].mutable_f32() + b * seq : nullptr;
    FOCAL_RETURN_IF_ERROR(run_additive_attention(p, scratch, scratch_bytes, r.kernels));
  }
  return Status();
}

}  // namespace

const OpDef& attention_pool_op_def() {
  static const OpDef def = {"AttentionPool", kV + 1, kSlots, 2, check_pool, run_pool, pool_workspace,
                            (1u << kMask) | (1u << kB), 1};
  return def;
}

}  // namespace focal
