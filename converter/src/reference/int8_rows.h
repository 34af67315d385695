// Int8 activations as focal/gemm.h specifies them for a weight in the int8-dot layout:
// each input row quantized to int8 with its own symmetric scale, exact integer sums,
// then y = sum * scale_x * scale_w + bias. The quantization is the engine's one row
// quantizer (focal/internal/int8_row.h, in f32), which tests/test_int8_row.cpp checks
// against an independent twin; the sums and the epilogue run in double.
#pragma once

#include <cstddef>

#include "reference/operand.h"

namespace focal {
namespace reference {

// q[i] (whole numbers in [-127, 127]) for x[0, k); returns the row's scale: 0 for an
// all-zero row (q = 0), NaN when x holds a NaN or an infinity.
double quantize_row(const double* x, size_t k, double* q);

// dense_rows()'s product with each row of x quantized first (w packed, any layout: its
// values are q_w times the output's scale).
void int8_dense_rows(const Operand& w, const Operand* bias, const double* x, size_t x_stride, size_t rows,
                     double* y, size_t y_stride);

}  // namespace reference
}  // namespace focal
