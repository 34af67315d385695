// The scalar "vector" of width 1: lets every kernel written against the Vec<Arch>
// interface also build where there is no SIMD at all (Cortex-M, where xsimd has no
// batch type), and gives each SIMD kernel a twin with the same loop structure.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace focal {
namespace simd {

// The free functions here are `static`: per-ISA translation units (AVX-512 ...) call
// them, and an ordinary inline function compiled there could be the copy the linker
// keeps for baseline code too. Internal linkage gives every translation unit its own.

// IEEE binary16 to float, exactly (subnormals, infinities and NaN included).
static inline float half_to_float(uint16_t half) {
  const uint32_t sign = uint32_t(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu, mantissa = half & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // inf or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // rebias 15 -> 127
  } else {
    // Zero or subnormal: mantissa * 2^-24 is exact in float.
    const float value = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    std::memcpy(&bits, &value, 4);
    bits |= sign;
  }
  float result;
  std::memcpy(&result, &bits, 4);
  return result;
}

// bfloat16 to float, exactly: the 16 bits are the top half of the float's.
// IEEE binary16, rounded to nearest even, subnormals included. `value` is finite and
// below 65520 in magnitude (the caller checks), so the result is finite.
static inline uint16_t float_to_half(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal half (or 0, or 2^-14 by rounding)
    float abs_value;
    std::memcpy(&abs_value, &magnitude, 4);
    const float units = abs_value * 16777216.0f;  // in units of 2^-24, exact
    auto rounded = static_cast<uint32_t>(units);
    const float rest = units - static_cast<float>(rounded);
    if (rest > 0.5f || (rest == 0.5f && (rounded & 1u) != 0)) ++rounded;
    return static_cast<uint16_t>(sign | rounded);
  }
  uint32_t half = (magnitude - 0x38000000u) >> 13;  // rebias 127 -> 15, drop 13 bits
  const uint32_t dropped = magnitude & 0x1FFFu;
  if (dropped > 0x1000u || (dropped == 0x1000u && (half & 1u) != 0)) ++half;  // may carry
  return static_cast<uint16_t>(sign | half);
}

static inline float bf16_to_float(uint16_t bf16) {
  const uint32_t bits = uint32_t(bf16) << 16;
  float result;
  std::memcpy(&result, &bits, 4);
  return result;
}

struct ScalarArch {
  static constexpr const char* name() { return "scalar"; }
};

template <class Arch>
struct Vec;

// The names every kernel written against Vec<Arch> uses, declared at the top of its
// struct: V (the operations), vec (one register) and W (floats per register).
#define FOCAL_VEC_TYPES(Arch)            \
  using V = ::focal::simd::Vec<Arch>;    \
  using vec = typename V::type;          \
  static constexpr size_t W = V::width;

// 2^x for a float, to within 2 ulp, the same polynomial as the vector version:
// x = n + f with n an integer and |f| <= 1/2; 2^f by a degree-6 polynomial (Cephes'
// exp2f coefficients); 2^n put straight into the exponent bits. Below -126 the result
// is 0 exactly (so -inf gives 0), above 128 it is +inf.
static inline float exp2_scalar(float x) {
  if (!(x > -126.0f)) return 0.0f;  // also NaN -> 0: masked scores never become NaN
  if (x > 128.0f) return INFINITY;
  const float n = std::nearbyint(x);
  const float f = x - n;
  float p = 1.535336188319500e-4f;
  p = std::fma(p, f, 1.339887440266574e-3f);
  p = std::fma(p, f, 9.618437357674640e-3f);
  p = std::fma(p, f, 5.550332471162809e-2f);
  p = std::fma(p, f, 2.402264791363012e-1f);
  p = std::fma(p, f, 6.931472028550421e-1f);
  p = std::fma(p, f, 1.0f);
  // n in [-126, 128]: 2^n as a float via its exponent (n = 128 multiplies in two steps).
  const int32_t e = static_cast<int32_t>(n);
  const int32_t e1 = e / 2, e2 = e - e / 2;
  uint32_t b1 = static_cast<uint32_t>(e1 + 127) << 23, b2 = static_cast<uint32_t>(e2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, 4);
  std::memcpy(&s2, &b2, 4);
  return p * s1 * s2;
}

template <>
struct Vec<ScalarArch> {
  using type = float;
  static constexpr size_t width = 1;
  static type zero() { return 0.0f; }
  static type splat(float x) { return x; }
  static type load(const float* p) { return *p; }
  static void store(float* p, type v) { *p = v; }
  static type fma(type a, type b, type c) { return std::fma(a, b, c); }
  static type max(type a, type b) { return a > b ? a : b; }
  static type keep_nan(type acc, type x) { return x != x ? x : acc; }  // sticky NaN probe
  static float reduce_add(type v) { return v; }
  static float reduce_max(type v) { return v; }
  static type exp2(type x) { return exp2_scalar(x); }
  // The vector kernels' cheaper form for x <= 64 (simd/vec_xsimd.hpp); here the same as
  // exp2, which meets its contract.
  static type exp2_bounded(type x) { return exp2_scalar(x); }
  static type tanh(type x) { return std::tanh(x); }
  // Accurate libm functions (activations, position encodings; not the softmax exp2).
  static type exp(type x) { return std::exp(x); }
  static type erf(type x) { return std::erf(x); }
  static void sincos(type x, type* sin_x, type* cos_x) {
    *sin_x = std::sin(x);
    *cos_x = std::cos(x);
  }
  static type load_half(const uint16_t* p) { return half_to_float(*p); }
  static type div(type a, type b) { return a / b; }
  static type load_partial(const float* p, size_t n, float pad) { return n != 0 ? *p : pad; }
  static void store_partial(float* p, size_t n, type v) {
    if (n != 0) *p = v;
  }
  static type load_bf16(const uint16_t* p) { return bf16_to_float(*p); }
  static type load_i8(const int8_t* p) { return static_cast<float>(*p); }
};

}  // namespace simd
}  // namespace focal
