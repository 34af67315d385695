// What a reference op sees of one operand: the tensor, its actual shape for this run and
// its values in double. Constants are read back from the model's stored bytes (f32,
// f16, bf16 row-major; Dense weights from the GEMM panel layout of focal/gemm.h,
// including int8 with per-output scales, and from its int8-dot layout), so the reference sees exactly the weights the
// engine multiplies by, rounding included.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/tensor.h"
#include "focal_generated.h"

namespace focal {
namespace reference {

struct Operand {
  const fb::Tensor* tensor = nullptr;  // null: an absent optional slot
  Shape shape;                         // actual shape of this run
  double* values = nullptr;            // non-constant tensors: the evaluator's storage
  const uint8_t* bytes = nullptr;      // constants: the stored bytes in the data segment

  bool present() const { return tensor != nullptr; }
  bool packed() const { return tensor->layout() == fb::TensorLayout_DensePacked; }
  // A Dense weight in the int8-dot layout: its op quantizes x per row (int8 activations).
  bool int8_dot() const { return tensor->layout() == fb::TensorLayout_DenseInt8Dot; }
  bool int4() const { return tensor->layout() == fb::TensorLayout_DenseInt4; }
  size_t count() const { return static_cast<size_t>(shape.element_count()); }
  size_t dim(int axis) const {  // axis < 0 counts from the end
    return static_cast<size_t>(shape.dims[axis < 0 ? shape.rank + axis : axis]);
  }
  // Element i (row-major over `shape`) of a value or of a row-major constant.
  double at(size_t i) const;
  // Row n of a Dense weight [out, in] (packed, int8-dot or row-major): `in` values into
  // `row`, q times the output's scale for int8.
  void weight_row(size_t n, double* row) const;
  // Row n of an int8-dot weight: its `in` integers q into `row`; returns its scale.
  double int8_dot_row(size_t n, double* row) const;
  // Row n of an int4 weight: q times its group's f16 scale, `in` values into `row`.
  void int4_row(size_t n, double* row) const;
};

}  // namespace reference
}  // namespace focal
