// Pool op: [B, S, D] -> [B, D] by the first position (CLS), the mean over valid
// positions, the last valid position, or the maximum over valid positions. inputs: x,
// (mask [B, S] i32, 1s then 0s). A row without valid positions gives zeros.
#include <cstring>

#include "ops/op_checks.h"
#include "ops/sequence_mask.h"
#include "dispatch/pointwise_dispatch.h"
#include "pooling/pooling_kernels.h"

namespace focal {
namespace {

Status check_pool(const OpCheck& c) {
  const fb::Tensor& x = c.input(0);
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, x));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, y));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, x, 3, 3));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, y, 2, 2));
  if (!same_dim(x, 0, y, 0) || !same_dim(x, 2, y, 1)) return c.fail("output must be [B, D] of x [B, S, D]");
  if (c.has_input(1)) {
    const fb::Tensor& mask = c.input(1);
    FOCAL_RETURN_IF_ERROR(expect_i32(c, mask));
    FOCAL_RETURN_IF_ERROR(expect_rank(c, mask, 2, 2));
    if (!same_dim(mask, 0, x, 0) || !same_dim(mask, 1, x, 1)) return c.fail("mask must be [B, S] of x");
  }
  if (c.op.options_as_PoolOptions()->mode() > fb::PoolMode_MAX) return c.fail("unknown pool mode");
  return Status();
}

size_t pool_workspace(const fb::Model& model, const fb::Op& op, int) {
  return static_cast<size_t>(model.tensors()->Get(op.inputs()->Get(0))->shape()->Get(0)) *
         sizeof(int32_t);
}

// Last: a copy of each row's last valid position; Max: each feature's largest value over
// the row's valid positions (sentence-transformers' max pooling; NaN compares false, so
// it never replaces). One loop for both keeps the firmware that links Pool small.
void last_or_max_pool(const kernels::PoolParams& p, bool max) {
  for (size_t b = 0; b < p.batch; ++b) {
    const size_t length = p.lengths != nullptr ? static_cast<size_t>(p.lengths[b]) : p.seq;
    float* out = p.out + b * p.dim;
    const float* rows = p.x + b * p.seq * p.dim;
    if (length == 0) {
      std::memset(out, 0, p.dim * sizeof(float));
      continue;
    }
    std::memcpy(out, rows + (max ? 0 : length - 1) * p.dim, p.dim * sizeof(float));
    for (size_t s = 1; max && s < length; ++s) {
      for (size_t i = 0; i < p.dim; ++i) out[i] = rows[s * p.dim + i] > out[i] ? rows[s * p.dim + i] : out[i];
    }
  }
}

Status run_pool(const OpRun& r) {
  const Shape& x = r.inputs[0].shape;
  kernels::PoolParams p;
  p.batch = static_cast<size_t>(x.dims[0]);
  p.seq = static_cast<size_t>(x.dims[1]);
  p.dim = static_cast<size_t>(x.dims[2]);
  p.x = r.inputs[0].f32();
  p.out = r.outputs[0].mutable_f32();
  int32_t* lengths = static_cast<int32_t*>(r.workspace);
  if (r.input_count > 1 && r.inputs[1].present()) {
    FOCAL_RETURN_IF_ERROR(mask_to_lengths(r.inputs[1].i32(), p.batch, p.seq, "mask", lengths));
    p.lengths = lengths;
  }
  switch (r.options<fb::PoolOptions>().mode()) {
    case fb::PoolMode_Cls:
      cls_pool(p, r.kernels);
      return Status();
    case fb::PoolMode_Mean:
      return mean_pool(p, r.kernels);
    default:
      break;
  }
  last_or_max_pool(p, r.options<fb::PoolOptions>().mode() == fb::PoolMode_Max);
  return Status();
}

}  // namespace

const OpDef& pool_op_def() {
  static const OpDef def = {"Pool", 1, 2, 1, check_pool, run_pool, pool_workspace, 1u << 1};
  return def;
}

}  // namespace focal
