// A hook on every dense product the reference evaluator computes (Dense ops and the
// projections inside attention, recurrent and scoring ops): the converter's int8
// accuracy measurement (int8_accuracy.h) sees each weight's input rows there.
#pragma once

#include <cstddef>

#include "reference/operand.h"

namespace focal {
namespace reference {

class DenseObserver {
 public:
  virtual ~DenseObserver() = default;
  // y[r, n] (rows y_stride apart) = x[r, :] . w[n, :] + bias[n] for r < rows, just
  // computed by op `op`, before any fused activation; `bias` may be absent (null or not
  // present).
  virtual void observe(const char* op, const Operand& w, const Operand* bias, const double* x, size_t x_stride, size_t rows,
                       const double* y, size_t y_stride) = 0;
};

}  // namespace reference
}  // namespace focal
