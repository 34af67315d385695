#include "ops/op_checks.h"

#include <cmath>
#include <cstdarg>

#include "dispatch/gemm_dispatch.h"
#include "support/saturating_size.h"
#include "support/format_message.h"

namespace focal {

Status OpCheck::fail(const char* format, ...) const {
  char detail[Status::kMaxMessage];
  va_list args;
  va_start(args, format);
  format_message(detail, sizeof(detail), format, args);
  va_end(args);
  const char* name = op.name() ? op.name()->c_str() : "";
  return Status::error(StatusCode::kInvalidModel, "op %d '%s' (%s): %s", index, name,
                       fb::EnumNameOpOptions(op.options_type()), detail);
}

int dim_symbol(const fb::Tensor& tensor, int axis) {
  if (axis < 0) axis += rank(tensor);
  return tensor.dim_symbols() ? tensor.dim_symbols()->Get(axis) : -1;
}

int rank(const fb::Tensor& tensor) { return static_cast<int>(tensor.shape()->size()); }

int64_t dim(const fb::Tensor& tensor, int axis) {
  return tensor.shape()->Get(axis < 0 ? rank(tensor) + axis : axis);
}

bool same_dim(const fb::Tensor& a, int a_axis, const fb::Tensor& b, int b_axis) {
  if (a_axis < 0) a_axis += rank(a);
  if (b_axis < 0) b_axis += rank(b);
  return dim(a, a_axis) == dim(b, b_axis) && dim_symbol(a, a_axis) == dim_symbol(b, b_axis);
}

Status expect_f32(const OpCheck& c, const fb::Tensor& t) {
  if (t.dtype() == fb::DType_F32) return Status();
  return c.fail("tensor '%s' is %s, expected f32", t.name()->c_str(), fb::EnumNameDType(t.dtype()));
}

Status expect_constant(const OpCheck& c, const fb::Tensor& t) {
  if (t.role() == fb::TensorRole_Constant) return Status();
  return c.fail("tensor '%s' must be a constant (weights), found %s", t.name()->c_str(),
                fb::EnumNameTensorRole(t.role()));
}

Status expect_rank(const OpCheck& c, const fb::Tensor& t, int min_rank, int max_rank) {
  if (rank(t) >= min_rank && rank(t) <= max_rank) return Status();
  return c.fail("tensor '%s' has rank %d, expected %d to %d", t.name()->c_str(), rank(t), min_rank,
                max_rank);
}

Status expect_same_shape(const OpCheck& c, const fb::Tensor& a, const fb::Tensor& b) {
  bool same = rank(a) == rank(b);
  for (int i = 0; same && i < rank(a); ++i) same = same_dim(a, i, b, i);
  if (same) return Status();
  return c.fail("tensors '%s' and '%s' must have the same shape", a.name()->c_str(),
                b.name()->c_str());
}

Status expect_vector(const OpCheck& c, const fb::Tensor& t, int64_t length) {
  FOCAL_RETURN_IF_ERROR(expect_constant(c, t));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, t));
  if (rank(t) == 1 && dim(t, 0) == length) return Status();
  return c.fail("tensor '%s' must have shape [%lld]", t.name()->c_str(),
                static_cast<long long>(length));
}

Status expect_i32(const OpCheck& c, const fb::Tensor& t) {
  if (t.dtype() == fb::DType_I32) return Status();
  return c.fail("tensor '%s' is %s, expected i32", t.name()->c_str(), fb::EnumNameDType(t.dtype()));
}

bool is_packed_weight(const fb::Tensor& t) {
  return t.layout() == fb::TensorLayout_DensePacked || t.layout() == fb::TensorLayout_DenseInt8Dot ||
         t.layout() == fb::TensorLayout_DenseInt4;
}

Status expect_packed_weight(const OpCheck& c, const fb::Tensor& t, int64_t out, int64_t in) {
  FOCAL_RETURN_IF_ERROR(expect_constant(c, t));
  if (!is_packed_weight(t)) {
    return c.fail("weight '%s' must be packed for the GEMM kernels", t.name()->c_str());
  }
  if (rank(t) == 2 && dim(t, 0) == out && dim(t, 1) == in) return Status();
  return c.fail("weight '%s' must be [%lld, %lld]", t.name()->c_str(), static_cast<long long>(out),
                static_cast<long long>(in));
}

Status expect_optional_vector(const OpCheck& c, int slot, int64_t length) {
  return c.has_input(slot) ? expect_vector(c, c.input(slot), length) : Status();
}

Status check_last_axis_norm(const OpCheck& c, int params, float epsilon) {
  const fb::Tensor& x = c.input(0);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, x));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, c.output(0)));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, x, c.output(0)));
  if (dim_symbol(x, -1) != -1) return c.fail("the normalized axis must have a fixed size");
  for (int i = 1; i <= params; ++i) FOCAL_RETURN_IF_ERROR(expect_vector(c, c.input(i), dim(x, -1)));
  if (!(epsilon > 0.0f) || !std::isfinite(epsilon)) {
    return c.fail("epsilon must be positive and finite, found %g", static_cast<double>(epsilon));
  }
  return Status();
}

kernels::LayerNormParams last_axis_rows(const Shape& shape, float epsilon) {
  kernels::LayerNormParams params;
  params.width = static_cast<size_t>(shape.dims[shape.rank - 1]);
  params.rows = static_cast<size_t>(shape.element_count()) / params.width;
  params.epsilon = epsilon;
  return params;
}

// gemm_workspace_bytes() for int8 activations (m rows of round_up(k, 8) bytes, aligned
// to 64, then m f32 scales), saturating: rows * k from a file can pass 2^32 on 32-bit
// targets, and a wrapped size would let the quantized rows overrun the workspace.
// DenseInt4 weights add one int32 per row and group (q4gemm_workspace_bytes).
size_t packed_dense_workspace_bytes(const fb::Tensor& w, int64_t rows) {
  const bool int4 = w.layout() == fb::TensorLayout_DenseInt4;
  if (w.layout() != fb::TensorLayout_DenseInt8Dot && !int4) return 0;
  const size_t k = static_cast<size_t>(w.shape()->Get(1));  // <= kMaxInt8GemmK, checked at load
  const size_t m = saturating_size(rows);
  const size_t quantized = saturating_round_up(saturating_mul(m, saturating_round_up(k, 8)), 64);
  const size_t int8_rows = saturating_add(quantized, saturating_mul(m, 4));
  if (!int4) return int8_rows;
  const size_t group = static_cast<size_t>(w.group_size());  // 32, 64 or 128, checked at load
  return saturating_add(saturating_round_up(int8_rows, 64), saturating_mul(m, (k + group - 1) / group * 4));
}

Status packed_dense(const fb::Tensor& w, const void* w_data, const float* x, size_t m,
                    const float* bias, float* y, size_t y_stride, DenseScratch scratch,
                    ParallelFor* parallel, const kernels::KernelSet& kernels,
                    fb::Activation activation) {
  GemmParams p;
  p.m = m;
  p.n = static_cast<size_t>(w.shape()->Get(0));
  p.k = static_cast<size_t>(w.shape()->Get(1));
  p.weight_type = static_cast<DType>(w.dtype());
  p.activation = static_cast<Activation>(activation);
  p.x = x;
  p.packed_weights = w_data;
  p.packed_weights_bytes = static_cast<size_t>(w.data()->size());
  p.bias = bias;
  p.y = y;
  p.y_stride = y_stride;
  const bool int4 = w.layout() == fb::TensorLayout_DenseInt4;
  if (int4) p.int4_group = static_cast<size_t>(w.group_size());
  if (w.layout() == fb::TensorLayout_DenseInt8Dot || int4) {
    p.int8_activations = !int4;
    p.workspace = scratch.data;
    p.workspace_bytes = scratch.bytes;
    const size_t need = packed_dense_workspace_bytes(w, static_cast<int64_t>(m));
    if (scratch.data == nullptr || scratch.bytes < need || need != gemm_workspace_bytes(p)) {
      return Status::error(StatusCode::kResourceExhausted,
                           "weight '%s': int8 activations need %zu bytes of the op's workspace, it "
                           "reserved %zu",
                           w.name()->c_str(), need, scratch.bytes);
    }
  }
  run_gemm(p, parallel, kernels);  // shapes and weights verified at load
  return Status();
}

}  // namespace focal
