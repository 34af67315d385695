// Dense op: y[..., out] = act(x[..., in] . W[out, in]^T + b[out]).
#include "dense/dense_kernels.h"
#include "dispatch/gemm_dispatch.h"

#include "ops/op_checks.h"
#include "support/saturating_size.h"

namespace focal {
namespace {

size_t leading_rows(const Shape& shape) {
  size_t rows = 1;
  for (int i = 0; i + 1 < shape.rank; ++i) rows *= static_cast<size_t>(shape.dims[i]);
  return rows;
}

Status check_dense(const OpCheck& c) {
  const fb::Tensor& x = c.input(0);
  const fb::Tensor& w = c.input(1);
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, x));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, y));
  FOCAL_RETURN_IF_ERROR(expect_constant(c, w));
  // Packed weights (f32, f16, bf16, i8; sizes checked at load) run on the GEMM kernels;
  // row-major ones must be f32 and run on the reference kernel.
  if (!is_packed_weight(w)) FOCAL_RETURN_IF_ERROR(expect_f32(c, w));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, w, 2, 2));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, x, 1, kMaxRank));
  if (dim(w, 1) != dim(x, -1) || dim_symbol(x, -1) != -1) {
    return c.fail("weight '%s' is [%lld, %lld] but input '%s' has %lld fixed features",
                  w.name()->c_str(), static_cast<long long>(dim(w, 0)),
                  static_cast<long long>(dim(w, 1)), x.name()->c_str(),
                  static_cast<long long>(dim(x, -1)));
  }
  if (c.input_count() == 3) FOCAL_RETURN_IF_ERROR(expect_vector(c, c.input(2), dim(w, 0)));
  bool shape_ok = rank(y) == rank(x) && dim(y, -1) == dim(w, 0) && dim_symbol(y, -1) == -1;
  for (int i = 0; shape_ok && i + 1 < rank(x); ++i) shape_ok = same_dim(x, i, y, i);
  if (!shape_ok) {
    return c.fail("output '%s' must have the input's leading dims and %lld features",
                  y.name()->c_str(), static_cast<long long>(dim(w, 0)));
  }
  const auto activation = c.op.options_as_DenseOptions()->activation();
  if (activation > fb::Activation_MAX) return c.fail("unknown activation %d", activation);
  return Status();
}

bool packed_weight(const OpRun& r) { return is_packed_weight(*r.inputs[1].tensor); }

Status run_dense_packed(const OpRun& r) {
  const fb::Tensor& w = *r.inputs[1].tensor;
  const float* bias = r.input_count == 3 ? r.inputs[2].f32() : nullptr;
  return packed_dense(w, r.inputs[1].data, r.inputs[0].f32(), leading_rows(r.inputs[0].shape), bias,
                      r.outputs[0].mutable_f32(), 0, DenseScratch{r.workspace, r.workspace_bytes}, r.parallel, r.kernels,
                      r.options<fb::DenseOptions>().activation());
}

// Int8 activations' quantized rows at the planned maximum rows (none for other weights).
size_t dense_workspace(const fb::Model& model, const fb::Op& op, int) {
  const fb::Tensor& x = *model.tensors()->Get(op.inputs()->Get(0));
  size_t rows = 1;
  for (uint32_t i = 0; i + 1 < x.shape()->size(); ++i) rows = saturating_mul(rows, saturating_size(x.shape()->Get(i)));
  const int64_t planned = rows > static_cast<size_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(rows);
  return packed_dense_workspace_bytes(*model.tensors()->Get(op.inputs()->Get(1)), planned);
}

Status run_dense(const OpRun& r) {
  if (packed_weight(r)) return run_dense_packed(r);
  const BoundTensor& x = r.inputs[0];
  const BoundTensor& w = r.inputs[1];
  kernels::DenseParams params;
  params.rows = leading_rows(x.shape);
  params.in = static_cast<size_t>(w.shape.dims[1]);
  params.out = static_cast<size_t>(w.shape.dims[0]);
  params.activation =
      static_cast<kernels::Activation>(r.options<fb::DenseOptions>().activation());
  const float* bias = r.input_count == 3 ? r.inputs[2].f32() : nullptr;
  kernels::dense_f32_reference(params, x.f32(), w.f32(), bias, r.outputs[0].mutable_f32());
  return Status();
}

// x [..., in] . W[out, in]^T: a multiply and an add per weight and row.
double dense_flops(const OpShapes& s) {
  return 2.0 * double(s.inputs[0].element_count()) * double(s.inputs[1].dims[0]);
}

}  // namespace

const OpDef& dense_op_def() {
  static const OpDef def = {"Dense", 2, 3, 1, check_dense, run_dense, dense_workspace, 0, 0, nullptr, nullptr,
                            dense_flops};
  return def;
}

}  // namespace focal
