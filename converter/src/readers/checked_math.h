// Overflow-checked arithmetic for sizes, strides and offsets read from files: each
// returns false (and leaves *out alone) when the exact result does not fit the type, so
// a hostile value is refused where it enters instead of wrapping into a bad address.
#pragma once

#include <cstdint>

namespace focal {
namespace convert {

template <class T>
bool checked_add(T a, T b, T* out) {
  T sum;
  if (__builtin_add_overflow(a, b, &sum)) return false;
  *out = sum;
  return true;
}

template <class T>
bool checked_mul(T a, T b, T* out) {
  T product;
  if (__builtin_mul_overflow(a, b, &product)) return false;
  *out = product;
  return true;
}

}  // namespace convert
}  // namespace focal
