// What every op written on static int8 activations reads from the draft (static_ops.h):
// the op and its operands, its weights quantized per output channel, the calibrated
// quantization of its activations, and the tensors it writes into the int8 model.
#pragma once

#include <string>
#include <vector>

#include "quantize/static_int8.h"
#include "quantize/static_ops.h"
#include "reference/operand.h"

namespace focal {
namespace quantize {

// Fixed-point formats of the integer kernels (engine/src/kernels/qint/qint_kernels.h)
// that the classifier's and the encoder's records both target.
constexpr double kQ15 = 1.0 / 32768;        // gates and attention weights, Q0.15
constexpr double kScoreScale = 1.0 / 2048;  // attention scores, Q4.11 (exp_s16's input)

// One draft op being written.
struct StaticOp {
  StaticWriter& w;
  int index;
  const fb::Op& op;
  std::string name;

  const fb::Tensor& tensor(int t) const { return *w.draft.schema().tensors()->Get(static_cast<uint32_t>(t)); }
  int input(uint32_t slot) const { return slot < op.inputs()->size() ? op.inputs()->Get(slot) : -1; }
  int output(uint32_t slot) const { return slot < op.outputs()->size() ? op.outputs()->Get(slot) : -1; }
  bool int8(int t) const { return t >= 0 && w.int8[static_cast<size_t>(t)]; }

  // An Unsupported status naming the op, its index and kind.
  Status fail(const std::string& why) const;
};

// A constant of the draft as the reference reads it.
reference::Operand constant(const StaticOp& o, int t);
// A weight [out, in] quantized per output row (static_int8.h).
Int8Weight int8_matrix(const StaticOp& o, int t);
// A row-major constant's values; empty for an absent slot.
std::vector<float> values_of(const StaticOp& o, int t);

// A draft tensor's calibrated int8 quantization.
ActivationParams params(const StaticOp& o, int t);
// Symmetric int8 (zero point 0) for a calibrated range: scale max |x| / 127, rounded to float.
double symmetric_scale(const TensorRange& r);
// The calibrated range of the products of weight `w` (a draft tensor): their input rows
// or their outputs.
const ProductRange& products_of(const StaticOp& o, int w);

// A tensor already written (an input, an output, an earlier op's result); -1 stays -1.
int operand(const StaticOp& o, int t);
// An op's result: an int8 activation with its calibrated quantization (or `forced`'s,
// when given), or carried as it is.
int result(const StaticOp& o, int t, const ActivationParams* forced = nullptr);
// A quantized weight as an int8 constant named as the draft's tensor.
int int8_constant(const StaticOp& o, int draft_tensor, const Int8Weight& q);

// The encoder's ops (static_encoder_ops.cpp).
Status layer_norm(const StaticOp& o);
Status add(const StaticOp& o);
Status multi_head_attention(const StaticOp& o);
Status pool(const StaticOp& o);
// A dense layer's activation other than ReLU as the 256-entry table of its pre-activation.
Status activation_lookup(const StaticOp& o, fb::Activation activation, const ActivationParams& pre,
                         const ActivationParams& y, fb::Int8LookupT* lookup);

}  // namespace quantize
}  // namespace focal
