// The draft's operands as the ops on static int8 activations read them (static_operands.h).
// Weights are read back from the draft's stored bytes (reference/operand.h: packed or
// row-major, as the engine reads them) and quantized per output channel; activation
// scales come from the calibrated ranges.
#include "quantize/static_operands.h"

#include <cmath>

namespace focal {
namespace quantize {
namespace {

std::vector<int64_t> shape_of(const fb::Tensor& t) { return std::vector<int64_t>(t.shape()->begin(), t.shape()->end()); }
std::vector<int32_t> symbols_of(const fb::Tensor& t) {
  return t.dim_symbols() == nullptr ? std::vector<int32_t>() : std::vector<int32_t>(t.dim_symbols()->begin(), t.dim_symbols()->end());
}

// A weight [out, in] as the engine multiplies by it, row-major.
std::vector<float> matrix(const StaticOp& o, int t, size_t* rows, size_t* cols) {
  const reference::Operand w = constant(o, t);
  *rows = w.dim(0), *cols = w.dim(1);
  std::vector<double> row(*cols);
  std::vector<float> values;
  for (size_t n = 0; n < *rows; ++n) {
    w.weight_row(n, row.data());
    for (double v : row) values.push_back(static_cast<float>(v));
  }
  return values;
}

}  // namespace

Status StaticOp::fail(const std::string& why) const {
  const char* kind = fb::EnumNameOpOptions(op.options_type());
  return Status::error(StatusCode::kUnsupported, "--quantize static: op %d '%s' (%s): %s", index, name.c_str(), kind,
                       why.c_str());
}

reference::Operand constant(const StaticOp& o, int t) {
  reference::Operand operand;
  const fb::Tensor& tensor = o.tensor(t);
  operand.tensor = &tensor;
  operand.shape.rank = static_cast<int>(tensor.shape()->size());
  for (int d = 0; d < operand.shape.rank; ++d) operand.shape.dims[d] = tensor.shape()->Get(static_cast<uint32_t>(d));
  operand.bytes = o.w.draft.data_segment() + tensor.data()->offset();
  return operand;
}

Int8Weight int8_matrix(const StaticOp& o, int t) {
  size_t rows = 0, cols = 0;
  const std::vector<float> values = matrix(o, t, &rows, &cols);
  return quantize_weight(values, rows, cols);
}

std::vector<float> values_of(const StaticOp& o, int t) {
  if (t < 0) return {};
  const reference::Operand c = constant(o, t);
  std::vector<float> values(c.count());
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(c.at(i));
  return values;
}

ActivationParams params(const StaticOp& o, int t) {
  const auto chosen = o.w.chosen.find(t);
  if (chosen != o.w.chosen.end()) return chosen->second;
  const TensorRange& r = o.w.ranges.tensors[static_cast<size_t>(t)];
  return activation_params(r.lo, r.hi);
}

double symmetric_scale(const TensorRange& r) {
  const double largest = std::fmax(std::fabs(r.lo), std::fabs(r.hi));
  return largest > 0.0 && std::isfinite(largest) ? double(float(largest / 127.0)) : 1.0 / 128.0;
}

const ProductRange& products_of(const StaticOp& o, int w) {
  static const ProductRange kNone;
  const auto found = o.w.ranges.products.find(o.tensor(w).name()->str());
  return found != o.w.ranges.products.end() ? found->second : kNone;
}

int operand(const StaticOp& o, int t) { return t < 0 ? -1 : o.w.mapped[static_cast<size_t>(t)]; }

int result(const StaticOp& o, int t, const ActivationParams* forced) {
  int& mapped = o.w.mapped[static_cast<size_t>(t)];
  if (mapped >= 0) return mapped;
  const fb::Tensor& tensor = o.tensor(t);
  if (!o.int8(t)) {
    return mapped = o.w.out.add_activation(tensor.name()->str(), static_cast<DType>(tensor.dtype()), shape_of(tensor),
                                           symbols_of(tensor));
  }
  // A model output on int8 is written as an int8 twin, then dequantized (static_graph.h).
  const bool twin = o.w.dequantized[static_cast<size_t>(t)] >= 0;
  mapped = o.w.out.add_activation(tensor.name()->str() + (twin ? ".int8" : ""), DType::kI8, shape_of(tensor),
                                  symbols_of(tensor));
  if (forced != nullptr) o.w.chosen[t] = *forced;
  const ActivationParams p = params(o, t);
  o.w.out.set_quantization(mapped, {static_cast<float>(p.scale)}, {p.zero_point});
  return mapped;
}

int int8_constant(const StaticOp& o, int draft_tensor, const Int8Weight& q) {
  const int t = o.w.out.add_constant(o.tensor(draft_tensor).name()->str(), DType::kI8,
                                     {int64_t(q.rows), int64_t(q.cols)}, weight_bytes(q));
  o.w.out.set_quantization(t, q.scales);
  return t;
}

}  // namespace quantize
}  // namespace focal
