// Operands of the ops on static int8 activations (issue 36): load-time checks of int8
// activations, int8 weights and fixed-point requantization records, and the views the
// run functions build from them. The formats are schema/focal.fbs's (Quantization,
// Requantization) and TFLite's quantization specification's; the kernels are
// engine/src/kernels/qint/.
#pragma once

#include "ops/op_checks.h"
#include "qint/qint_kernels.h"

namespace focal {

// An activation of dtype I8 (not a constant, not a state such as an int8 KV cache): an
// op with one runs its int8 form (ops/op_lookup.cpp).
bool is_int8_activation(const fb::Tensor& t);

// The checked (load-time) quantization of an int8 activation: real = scale * (q - zero_point).
struct ActivationQuant {
  float scale;
  int32_t zero_point;
};
ActivationQuant activation_quant(const fb::Tensor& t);

// An int8 activation whose shape the op checks itself.
Status expect_int8_activation(const OpCheck& c, const fb::Tensor& t);
// A row-major I8 constant [out, in] with one scale per output (axis 0) and
// in <= kernels::kQIntMaxK, so that int32 sums of its products cannot overflow.
Status expect_int8_weight(const OpCheck& c, const fb::Tensor& w, int64_t out, int64_t in);
// A Q31 multiplier and shift as fixed_point.h takes them: multiplier 0 or in
// [2^30, 2^31), shift in [kMinShift, kMaxShift].
Status expect_multiplier(const OpCheck& c, int32_t multiplier, int32_t shift, const char* what);
// A requantization record (schema Requantization) for `channels` outputs: bias with
// |bias| < 2^30 when `bias` is true (else no bias), multipliers and shifts when
// `multipliers` is true (else none).
Status expect_requantization(const OpCheck& c, const fb::Requantization* r, const char* what, int64_t channels,
                             bool bias, bool multipliers);

// The GEMV of a checked int8 weight `w` [n, k] with its requantization record.
kernels::QGemvParams gemv_params(const fb::Requantization& r, const void* w, size_t n, size_t k);

}  // namespace focal
