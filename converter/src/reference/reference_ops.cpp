// The table of reference ops and the helpers they share.
#include "reference/reference_ops.h"

#include <cmath>

#include "reference/int8_rows.h"

namespace focal {
namespace reference {

const Operand& OpContext::in(int slot) const {
  static const Operand kAbsent;
  return slot < input_count ? inputs[slot] : kAbsent;
}

ReferenceOpFn find_reference_op(fb::OpOptions type) {
  switch (type) {
#define FOCAL_REFERENCE_OP_CASE(Name, def, spec_kind) \
  case fb::OpOptions_##Name##Options:                 \
    return def##_op;
    FOCAL_FOR_EACH_OP(FOCAL_REFERENCE_OP_CASE)
#undef FOCAL_REFERENCE_OP_CASE
    default:
      return nullptr;
  }
}

double activation(fb::Activation kind, double x) {
  switch (kind) {
    case fb::Activation_Relu:
      return x > 0.0 ? x : 0.0;
    case fb::Activation_GeluErf:
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case fb::Activation_GeluTanh: {
      const double inner = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
      return 0.5 * x * (1.0 + std::tanh(inner));
    }
    case fb::Activation_Silu:
      return x / (1.0 + std::exp(-x));
    case fb::Activation_Tanh:
      return std::tanh(x);
    case fb::Activation_Sigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    default:
      return x;
  }
}

void dense_rows(const OpContext& c, const Operand& w, const Operand* bias, const double* x, size_t x_stride,
                size_t rows, double* y, size_t y_stride) {
  if ((w.int8_dot() || w.int4()) && c.int8_activations) {  // int4 weights always quantize rows
    int8_dense_rows(w, bias, x, x_stride, rows, y, y_stride);
  } else {
    const size_t out = w.dim(0), in = w.dim(1);
    const bool has_bias = bias != nullptr && bias->present();
    std::vector<double> row(in);
    // Weight rows outermost: each stored row is decoded once, whatever the row count.
    for (size_t n = 0; n < out; ++n) {
      w.weight_row(n, row.data());
      const double b = has_bias ? bias->at(n) : 0.0;
      for (size_t r = 0; r < rows; ++r) {
        const double* xr = x + r * x_stride;
        double sum = 0.0;
        for (size_t k = 0; k < in; ++k) sum += xr[k] * row[k];
        y[r * y_stride + n] = sum + b;
      }
    }
  }
  if (c.dense_observer == nullptr) return;
  c.dense_observer->observe(c.op.name() != nullptr ? c.op.name()->c_str() : "", w, bias, x, x_stride, rows, y,
                            y_stride);
}

Status mask_lengths(const Operand& mask, size_t batch, size_t seq, const char* what,
                    std::vector<int64_t>* lengths) {
  lengths->assign(batch, 0);
  for (size_t b = 0; b < batch; ++b) {
    size_t length = 0;
    while (length < seq && mask.at(b * seq + length) == 1.0) ++length;
    for (size_t s = length; s < seq; ++s) {
      if (mask.at(b * seq + s) != 0.0) {
        return Status::error(StatusCode::kInvalidArgument,
                             "%s[%zu, %zu] is %g: masks must be 1s then 0s (right padding)", what, b, s,
                             mask.at(b * seq + s));
      }
    }
    (*lengths)[b] = static_cast<int64_t>(length);
  }
  return Status();
}

void softmax_prefix(double* scores, size_t length, size_t count) {
  double max_score = -HUGE_VAL;
  for (size_t j = 0; j < length; ++j) max_score = std::fmax(max_score, scores[j]);
  double sum = 0.0;
  for (size_t j = 0; j < length; ++j) {
    scores[j] = max_score == -HUGE_VAL || scores[j] == -HUGE_VAL ? 0.0 : std::exp(scores[j] - max_score);
    sum += scores[j];
  }
  for (size_t j = 0; j < length; ++j) scores[j] = sum > 0.0 ? scores[j] / sum : 0.0;
  for (size_t j = length; j < count; ++j) scores[j] = 0.0;
}

}  // namespace reference
}  // namespace focal
