// Marian's sinusoidal positions (transformers' MarianSinusoidalPositionalEmbedding,
// src/transformers/models/marian/modeling_marian.py): for position p and column j of a
// table [positions, dim], with half = ceil(dim / 2),
//   j <  half:  sin(p / 10000^(2j / dim))
//   j >= half:  cos(p / 10000^(2(j - half) / dim))
// sin in the first half, cos in the second (not interleaved), no padding offset.
#pragma once

#include <cstdint>

#include "presets/weights.h"

namespace focal {
namespace convert {

// Computed in double (as numpy does there), stored in f32.
Matrix marian_sinusoids(int64_t positions, int64_t dim);

}  // namespace convert
}  // namespace focal
