// Byte and element counts computed from a model file's sizes. They saturate at SIZE_MAX
// instead of wrapping, so a hostile size (or one that exceeds a 32-bit target's address
// space) gives a count no arena can satisfy, which Session::required_arena_bytes refuses,
// rather than a small wrapped count that ops would then write past.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {

constexpr size_t kSaturatedSize = SIZE_MAX;

// a + b and a * b, false when the exact result does not fit a size_t (32 bits on armhf
// and Cortex-M).
inline bool checked_add(size_t a, size_t b, size_t* sum) { return !__builtin_add_overflow(a, b, sum); }
inline bool checked_mul(size_t a, size_t b, size_t* product) { return !__builtin_mul_overflow(a, b, product); }

inline size_t saturating_add(size_t a, size_t b) {
  size_t sum = 0;
  return checked_add(a, b, &sum) ? sum : kSaturatedSize;
}

inline size_t saturating_mul(size_t a, size_t b) {
  size_t product = 0;
  return checked_mul(a, b, &product) ? product : kSaturatedSize;
}

// A count from a file: negative values (never valid) and values past size_t saturate too.
inline size_t saturating_size(int64_t n) {
  if (n < 0 || static_cast<uint64_t>(n) > SIZE_MAX) return kSaturatedSize;
  return static_cast<size_t>(n);
}

inline size_t saturating_product(int64_t a, int64_t b) {
  return saturating_mul(saturating_size(a), saturating_size(b));
}
inline size_t saturating_product(int64_t a, int64_t b, int64_t c) {
  return saturating_mul(saturating_product(a, b), saturating_size(c));
}

// `value` rounded up to a multiple of `multiple` (> 0), saturating.
inline size_t saturating_round_up(size_t value, size_t multiple) {
  const size_t padded = saturating_add(value, multiple - 1);
  return padded == kSaturatedSize ? kSaturatedSize : padded / multiple * multiple;
}

// Bytes of `count` floats rounded up to 64 (one region of an op's workspace).
inline size_t saturating_float_bytes(size_t count) {
  return saturating_round_up(saturating_mul(count, 4), 64);
}

}  // namespace focal
