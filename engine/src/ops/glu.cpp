// Gated linear unit op: x [..., 2F] (gate, then value) -> y [..., F] = act(gate) * value.
// The converter stacks a gated MLP's gate and up projections into one Dense weight, so
// x is read once by one GEMM and this op combines the halves.
#include "elementwise/elementwise_kernels.h"
#include "ops/op_checks.h"
#include "dispatch/pointwise_dispatch.h"

namespace focal {
namespace {

Status check_glu(const OpCheck& c) {
  const fb::Tensor& x = c.input(0);
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, x));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, y));
  bool shape_ok = rank(x) == rank(y) && dim_symbol(x, -1) == -1 && dim_symbol(y, -1) == -1 &&
                  dim(x, -1) == 2 * dim(y, -1);
  for (int i = 0; shape_ok && i + 1 < rank(x); ++i) shape_ok = same_dim(x, i, y, i);
  if (!shape_ok) return c.fail("output must be the input with its last axis halved");
  const auto act = c.op.options_as_GluOptions()->activation();
  if (act != fb::Activation_Silu && act != fb::Activation_GeluErf &&
      act != fb::Activation_GeluTanh) {
    return c.fail("activation %s is not a GLU gate (Silu, GeluErf, GeluTanh)",
                  fb::EnumNameActivation(act));
  }
  return Status();
}

Status run_glu(const OpRun& r) {
  const Shape& y = r.outputs[0].shape;
  kernels::GatedParams p;
  p.width = static_cast<size_t>(y.dims[y.rank - 1]);
  p.rows = static_cast<size_t>(y.element_count()) / p.width;
  p.a_stride = 2 * p.width;
  p.b_stride = 2 * p.width;
  p.y_stride = p.width;
  const float* gate = r.inputs[0].f32();
  const float* value = gate + p.width;
  float* out = r.outputs[0].mutable_f32();
  switch (r.options<fb::GluOptions>().activation()) {
    case fb::Activation_Silu:
      swiglu(p, gate, value, out, r.kernels);
      break;
    case fb::Activation_GeluErf:
      geglu(p, kernels::GeluForm::kErf, gate, value, out, r.kernels);
      break;
    default:
      geglu(p, kernels::GeluForm::kTanh, gate, value, out, r.kernels);
      break;
  }
  return Status();
}

}  // namespace

const OpDef& glu_op_def() {
  static const OpDef def = {"Glu", 1, 1, 1, check_glu, run_glu, nullptr};
  return def;
}

}  // namespace focal
