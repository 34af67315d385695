// IEEE binary16 and bfloat16 conversions for code outside the engine (the converter's
// checkpoint readers, writer and reference, benchmarks) that must round exactly as the
// engine's kernels read half weights back. Out of line on purpose: the kernels' own copies are `static inline`
// per translation unit (simd/vec_scalar.hpp says why), and these call them.
#pragma once

#include <cstdint>

namespace focal {

// IEEE binary16 to float, exactly (subnormals, infinities and NaN included).
float half_to_float(uint16_t half);

// IEEE binary16, rounded to nearest even, subnormals included. `value` must be finite
// and below 65520 in magnitude (the caller checks), so the result is finite.
uint16_t float_to_half(float value);

// bfloat16 (the top 16 bits of an f32) to float, exactly.
float bf16_to_float(uint16_t bf16);

}  // namespace focal
