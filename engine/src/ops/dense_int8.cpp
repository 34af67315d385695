// Dense on int8 activations (schema DenseOptions): y = W x + b with W int8 per output
// channel and the input's zero point folded into the bias, as int8 (requantized per
// output; an activation other than ReLU through its 256-entry table) or as f32 (the
// dequantized sums: a classifier's logits before an f32 softmax).
#include <cmath>

#include "ops/int8_operands.h"
#include "qint/fixed_point.h"

namespace focal {
namespace {

bool relu(const fb::DenseOptions& o) { return o.activation() == fb::Activation_Relu; }

size_t leading_rows(const Shape& shape) {
  size_t rows = 1;
  for (int i = 0; i + 1 < shape.rank; ++i) rows *= static_cast<size_t>(shape.dims[i]);
  return rows;
}

Status check_output(const OpCheck& c, const fb::Tensor& x, const fb::Tensor& y, int64_t out) {
  if (!is_int8_activation(y)) FOCAL_RETURN_IF_ERROR(expect_f32(c, y));
  bool shape_ok = rank(y) == rank(x) && dim(y, -1) == out && dim_symbol(y, -1) == -1;
  for (int i = 0; shape_ok && i + 1 < rank(x); ++i) shape_ok = same_dim(x, i, y, i);
  if (!shape_ok) {
    return c.fail("output '%s' must have the input's leading dims and %lld features", y.name()->c_str(),
                  static_cast<long long>(out));
  }
  return Status();
}

// f32 outputs multiply each sum by s_x s_w[j]: both finite and positive, so is it.
Status check_dequantization(const OpCheck& c, const fb::Tensor& x, const fb::Tensor& w) {
  const float s_x = activation_quant(x).scale;
  for (float s_w : *w.quantization()->scales()) {
    if (!(s_w >= 0.0f) || !std::isfinite(s_w * s_x)) {
      return c.fail("int8 weight '%s' has a scale %g, which cannot dequantize", w.name()->c_str(),
                    static_cast<double>(s_w));
    }
  }
  return Status();
}

// None and Relu are exact in the output's integers; any other activation is the
// converter's 256-entry table of the pre-activation (int8 outputs only).
Status check_activation(const OpCheck& c, const fb::DenseOptions& o, bool int8_out) {
  const bool tabulated = o.activation() != fb::Activation_None && !relu(o);
  const fb::Int8Lookup* lookup = o.lookup();
  if (!tabulated) return lookup == nullptr ? Status() : c.fail("a lookup table for activation None or Relu");
  if (!int8_out || lookup == nullptr) {
    return c.fail("activation %s on int8 activations needs int8 outputs and its lookup table",
                  fb::EnumNameActivation(o.activation()));
  }
  if (lookup->values() == nullptr || lookup->values()->size() != 256) {
    return c.fail("an activation's lookup table has 256 entries");
  }
  if (lookup->zero_point() < -128 || lookup->zero_point() > 127) {
    return c.fail("lookup zero point %ld outside [-128, 127]", static_cast<long>(lookup->zero_point()));
  }
  return Status();
}

Status check_dense_int8(const OpCheck& c) {
  const fb::Tensor& x = c.input(0);
  const fb::Tensor& w = c.input(1);
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, x));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, x, 1, kMaxRank));
  if (dim_symbol(x, -1) != -1) return c.fail("input features must be fixed");
  if (c.has_input(2)) return c.fail("an int8 dense layer's bias is its requantization's");
  FOCAL_RETURN_IF_ERROR(expect_rank(c, w, 2, 2));
  const int64_t out = dim(w, 0);
  FOCAL_RETURN_IF_ERROR(expect_int8_weight(c, w, out, dim(x, -1)));
  FOCAL_RETURN_IF_ERROR(check_output(c, x, y, out));
  const fb::DenseOptions& o = *c.op.options_as_DenseOptions();
  const bool int8_out = is_int8_activation(y);
  FOCAL_RETURN_IF_ERROR(check_activation(c, o, int8_out));
  FOCAL_RETURN_IF_ERROR(expect_requantization(c, o.requantization(), "dense", out, true, int8_out));
  return int8_out ? Status() : check_dequantization(c, x, w);
}

// f32 outputs: blocks of kQIntRows sums from the build's dot_rows, dequantized.
void dense_dequantized(const kernels::QGemvParams& p, const int8_t* x, float x_scale, const float* w_scales,
                       bool relu_out, float* y) {
  const kernels::QIntKernelTable& k = kernels::qint_kernels();
  int32_t sums[kernels::kQIntRows];
  for (size_t j0 = 0; j0 < p.n; j0 += kernels::kQIntRows) {
    const size_t rows = p.n - j0 < kernels::kQIntRows ? p.n - j0 : kernels::kQIntRows;
    k.dot_rows(x, p.w + j0 * p.w_stride, p.w_stride, p.k, rows, p.bias != nullptr ? p.bias + j0 : nullptr, sums);
    for (size_t r = 0; r < rows; ++r) {
      const float v = static_cast<float>(sums[r]) * (x_scale * w_scales[j0 + r]);
      y[j0 + r] = relu_out && v < 0.0f ? 0.0f : v;
    }
  }
}

Status run_dense_int8(const OpRun& r) {
  const fb::DenseOptions& o = r.options<fb::DenseOptions>();
  const BoundTensor& x = r.inputs[0];
  const fb::Tensor& w = *r.inputs[1].tensor;
  const size_t in = static_cast<size_t>(w.shape()->Get(1)), out = static_cast<size_t>(w.shape()->Get(0));
  kernels::QGemvParams p = gemv_params(*o.requantization(), r.inputs[1].data, out, in);
  const int8_t* xs = static_cast<const int8_t*>(x.data);
  const size_t rows = leading_rows(x.shape);
  const BoundTensor& y = r.outputs[0];
  if (is_int8_activation(*y.tensor)) {
    const fb::Int8Lookup* lookup = o.lookup();
    p.output_zero_point = lookup != nullptr ? lookup->zero_point() : activation_quant(*y.tensor).zero_point;
    p.output_min = relu(o) ? p.output_zero_point : -128;
    int8_t* ys = static_cast<int8_t*>(y.data);
    kernels::qgemm_s8(kernels::qint_kernels(), p, xs, rows, ys, static_cast<uint32_t*>(r.workspace));
    // The pre-activation in place, through the activation's table.
    if (lookup != nullptr) kernels::qlookup_s8(lookup->values()->data(), ys, rows * out, ys);
    return Status();
  }
  const float x_scale = activation_quant(*x.tensor).scale;
  for (size_t i = 0; i < rows; ++i) {
    dense_dequantized(p, xs + i * in, x_scale, w.quantization()->scales()->data(), relu(o),
                      y.mutable_f32() + i * out);
  }
  return Status();
}

// qgemm_s8's scratch for int8 outputs (f32 outputs run dot_rows in place), the same size
// on every core: a plan written on the host holds on the device.
size_t dense_int8_workspace(const fb::Model& model, const fb::Op& op, int) {
  if (!is_int8_activation(*model.tensors()->Get(op.outputs()->Get(0)))) return 0;
  const fb::Tensor& w = *model.tensors()->Get(op.inputs()->Get(1));
  return kernels::qgemm_scratch_bytes(static_cast<size_t>(w.shape()->Get(1)));
}

// x [..., in] . W[out, in]^T: a multiply and an add per weight and row.
double dense_flops(const OpShapes& s) {
  return 2.0 * double(s.inputs[0].element_count()) * double(s.inputs[1].dims[0]);
}

}  // namespace

const OpDef& dense_int8_op_def() {
  static const OpDef def = {"Dense", 2, 3, 1, check_dense_int8, run_dense_int8, dense_int8_workspace, 0, 0,
                            nullptr, nullptr, dense_flops};
  return def;
}

}  // namespace focal
