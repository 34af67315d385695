#include "presets/marian_positions.h"

#include <cmath>

namespace focal {
namespace convert {

Matrix marian_sinusoids(int64_t positions, int64_t dim) {
  Matrix table{{positions, dim}, std::vector<float>(static_cast<size_t>(positions * dim))};
  const int64_t half = (dim + 1) / 2;
  for (int64_t p = 0; p < positions; ++p) {
    float* row = table.values.data() + p * dim;
    for (int64_t j = 0; j < dim; ++j) {
      // Column j of the sines is numpy's column 2j, of the cosines column 2(j - half) + 1;
      // both use exponent 2 * (column // 2) / dim.
      const int64_t pair = j < half ? j : j - half;
      const double angle = double(p) / std::pow(10000.0, 2.0 * double(pair) / double(dim));
      row[j] = static_cast<float>(j < half ? std::sin(angle) : std::cos(angle));
    }
  }
  return table;
}

}  // namespace convert
}  // namespace focal
