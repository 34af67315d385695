#include "focal/internal/half.h"

#include "simd/vec_scalar.hpp"

namespace focal {

float half_to_float(uint16_t half) { return simd::half_to_float(half); }

uint16_t float_to_half(float value) { return simd::float_to_half(value); }

}  // namespace focal
