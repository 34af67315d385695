#include "focal/internal/half.h"

#include "simd/vec_scalar.hpp"

namespace focal {

float half_to_float(uint16_t half) { return simd::half_to_float(half); }

uint16_t float_to_half(float value) { return simd::float_to_half(value); }

float bf16_to_float(uint16_t bf16) { return simd::bf16_to_float(bf16); }

}  // namespace focal
