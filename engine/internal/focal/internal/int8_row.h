// The one per-row symmetric int8 quantizer: the engine's int8 activations (the scalar
// twin of the SIMD row quantizers of qgemm_avx512vnni.cpp and qgemm_neon64_quantize.hpp),
// int8 KV caches, int8 weight packing without caller scales, the model writer's int8
// embedding tables and the converter's reference all quantize a row with it, so they
// agree bit for bit. tests/test_int8_row.cpp holds an independent twin.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace focal {

// amax = max |x[i]| over x[0, k). A finite row with amax > 0: q[i] = rint(x[i] * (127 /
// amax)) (the f32 product rounded to nearest even), clamped to [-127, 127]; the scale is
// amax / 127, so x[i] ~ q[i] * scale. An all-zero row: q = 0 and scale 0 (amax / 127 as
// for every row; q * 0 gives the zeros back exactly). A row holding a NaN or an
// infinity: q = 0 and a NaN scale, so whatever the row feeds becomes NaN.
float quantize_int8_row(const float* x, size_t k, int8_t* q);

// The two halves of quantize_int8_row for callers that place each q themselves (the
// weight packing's panels): the row's scale, with *inv = 127 / amax (0 where every q is
// 0: call quantize_int8 only with inv > 0), then one element.
inline float int8_row_scale(const float* x, size_t k, float* inv) {
  float amax = 0.0f;
  bool finite = true;
  for (size_t i = 0; i < k; ++i) {
    finite = finite && std::isfinite(x[i]);
    const float v = std::fabs(x[i]);
    amax = v > amax ? v : amax;  // a NaN never wins; `finite` refuses the row
  }
  *inv = 0.0f;
  if (!finite) return NAN;
  if (amax == 0.0f) return 0.0f;
  *inv = 127.0f / amax;
  return amax / 127.0f;
}
inline int8_t quantize_int8(float x, float inv) {
  const float t = std::nearbyint(x * inv);  // nearest even in the default rounding mode
  return static_cast<int8_t>(static_cast<int32_t>(t > 127.0f ? 127.0f : t < -127.0f ? -127.0f : t));
}

}  // namespace focal
