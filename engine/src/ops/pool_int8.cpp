// Pool on int8 activations (schema PoolOptions): [B, S, D] -> [B, D] by the first
// position (CLS), the last valid position, or each feature's largest value over the
// valid positions. All three pick values, so y has x's scale and zero point and needs no
// requantization; a row without valid positions gives the zero point (real 0), as the
// float form gives zeros. Mean would need a division per feature: it has no int8 form.
#include <cstring>

#include "ops/int8_operands.h"
#include "ops/sequence_mask.h"

namespace focal {
namespace {

Status check_pool_int8(const OpCheck& c) {
  const fb::Tensor& x = c.input(0);
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, x));
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, y));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, x, 3, 3));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, y, 2, 2));
  if (!same_dim(x, 0, y, 0) || !same_dim(x, 2, y, 1)) return c.fail("output must be [B, D] of x [B, S, D]");
  const ActivationQuant qx = activation_quant(x), qy = activation_quant(y);
  if (qx.scale != qy.scale || qx.zero_point != qy.zero_point) {
    return c.fail("an int8 pool's output has its input's scale and zero point");
  }
  if (c.has_input(1)) {
    const fb::Tensor& mask = c.input(1);
    FOCAL_RETURN_IF_ERROR(expect_i32(c, mask));
    FOCAL_RETURN_IF_ERROR(expect_rank(c, mask, 2, 2));
    if (!same_dim(mask, 0, x, 0) || !same_dim(mask, 1, x, 1)) return c.fail("mask must be [B, S] of x");
  }
  const fb::PoolMode mode = c.op.options_as_PoolOptions()->mode();
  if (mode != fb::PoolMode_Cls && mode != fb::PoolMode_Last && mode != fb::PoolMode_Max) {
    return c.fail("an int8 pool is Cls, Last or Max");
  }
  return Status();
}

size_t pool_int8_workspace(const fb::Model& model, const fb::Op& op, int) {
  return static_cast<size_t>(model.tensors()->Get(op.inputs()->Get(0))->shape()->Get(0)) * sizeof(int32_t);
}

// One row of `length` valid positions of `dim` features into `out`.
void pool_row(fb::PoolMode mode, const int8_t* rows, size_t length, size_t dim, int8_t zero_point, int8_t* out) {
  if (mode == fb::PoolMode_Cls) {
    std::memcpy(out, rows, dim);
    return;
  }
  if (length == 0) {
    std::memset(out, zero_point, dim);
    return;
  }
  const bool max = mode == fb::PoolMode_Max;
  std::memcpy(out, rows + (max ? 0 : length - 1) * dim, dim);
  for (size_t s = 1; max && s < length; ++s) {
    for (size_t i = 0; i < dim; ++i) out[i] = rows[s * dim + i] > out[i] ? rows[s * dim + i] : out[i];
  }
}

Status run_pool_int8(const OpRun& r) {
  const Shape& x = r.inputs[0].shape;
  const size_t batch = static_cast<size_t>(x.dims[0]), seq = static_cast<size_t>(x.dims[1]),
               dim = static_cast<size_t>(x.dims[2]);
  int32_t* lengths = static_cast<int32_t*>(r.workspace);
  const bool masked = r.input_count > 1 && r.inputs[1].present();
  if (masked) FOCAL_RETURN_IF_ERROR(mask_to_lengths(r.inputs[1].i32(), batch, seq, "mask", lengths));
  const auto zero_point = static_cast<int8_t>(activation_quant(*r.inputs[0].tensor).zero_point);
  const auto* xs = static_cast<const int8_t*>(r.inputs[0].data);
  auto* ys = static_cast<int8_t*>(r.outputs[0].data);
  for (size_t b = 0; b < batch; ++b) {
    const size_t length = masked ? static_cast<size_t>(lengths[b]) : seq;
    pool_row(r.options<fb::PoolOptions>().mode(), xs + b * seq * dim, length, dim, zero_point, ys + b * dim);
  }
  return Status();
}

}  // namespace

const OpDef& pool_int8_op_def() {
  static const OpDef def = {"Pool", 1, 2, 1, check_pool_int8, run_pool_int8, pool_int8_workspace, 1u << 1};
  return def;
}

}  // namespace focal
