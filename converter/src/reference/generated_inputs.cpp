#include "reference/generated_inputs.h"

#include <cstring>

#include "focal_generated.h"

namespace focal {
namespace reference {
namespace {

// A 32-bit LCG (Numerical Recipes constants): the same values on every host.
class Lcg {
 public:
  explicit Lcg(uint32_t seed) : state_(seed) {}
  uint32_t next() { return state_ = state_ * 1664525u + 1013904223u; }
  double uniform() { return (next() >> 8) * (1.0 / 16777216.0); }  // [0, 1), 24 bits: exact in f32
 private:
  uint32_t state_;
};

// Rows of the table that `tensor` indexes as ids (Model::op_id_limit), following Copy
// ops; 0 when it is not read as ids.
int64_t id_rows(const Model& model, int tensor, int depth = 0) {
  int64_t rows = 0;
  for (int op = 0; op < model.op_count(); ++op) {
    for (int slot = 0; slot < model.op(op).input_count; ++slot) {
      if (model.op_input(op, slot) != tensor) continue;
      int64_t limit = model.op_id_limit(op, slot);
      if (limit == 0 && depth < 4 && model.schema().ops()->Get(static_cast<uint32_t>(op))->options_type() ==
                                         fb::OpOptions_CopyOptions) {
        limit = id_rows(model, model.op_output(op, 0), depth + 1);
      }
      if (limit > 0) rows = rows == 0 || limit < rows ? limit : rows;
    }
  }
  return rows;
}

Shape input_shape(const Model& model, const TensorInfo& info, const GeneratedInputOptions& o) {
  Shape shape = info.shape;
  for (int i = 0; i < shape.rank; ++i) {
    const int s = info.dim_symbols[i];
    if (s < 0) continue;
    const SymbolInfo symbol = model.symbol(s);
    const int64_t wanted = std::strcmp(symbol.name, "batch") == 0 ? o.batch : o.seq;
    shape.dims[i] = wanted < symbol.max ? wanted : symbol.max;
  }
  return shape;
}

// Rows of 1s then 0s over the last axis: a quarter of each row padded (at least one
// valid position), row b one shorter than row b - 1 while that keeps one valid.
void fill_mask(const Shape& shape, std::vector<double>* values) {
  const int64_t seq = shape.dims[shape.rank - 1], rows = shape.element_count() / seq;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t valid = seq - seq / 4 - r;
    valid = valid < 1 ? 1 : valid;
    for (int64_t s = 0; s < seq; ++s) (*values)[static_cast<size_t>(r * seq + s)] = s < valid ? 1.0 : 0.0;
  }
}

}  // namespace

std::vector<Value> generate_inputs(const Model& model, const GeneratedInputOptions& options) {
  Lcg random(options.seed);
  std::vector<Value> inputs;
  for (int i = 0; i < model.input_count(); ++i) {
    Value v;
    v.tensor = model.input_tensor(i);
    const TensorInfo info = model.tensor(v.tensor);
    v.shape = input_shape(model, info, options);
    v.values.resize(static_cast<size_t>(v.shape.element_count()));
    const int64_t rows = info.dtype == DType::kI32 ? id_rows(model, v.tensor) : 0;
    if (info.dtype != DType::kI32) {
      for (double& x : v.values) x = 2.0 * random.uniform() - 1.0;
    } else if (rows > 0) {
      for (double& x : v.values) x = static_cast<double>(random.next() % static_cast<uint32_t>(rows));
    } else {
      fill_mask(v.shape, &v.values);
      // A mask whose absence means no padding (0) is a padding mask, PyTorch's sense
      // (src_key_padding_mask: 1 = pad): the same rows, inverted.
      if (info.absent_fill == 0) {
        for (double& x : v.values) x = 1.0 - x;
      }
    }
    inputs.push_back(std::move(v));
  }
  return inputs;
}

}  // namespace reference
}  // namespace focal
