// Randomness and "interesting" values shared by the structure-aware mutators: boundary
// numbers where size arithmetic wraps, truncates or changes sign, and the floats that
// break numerics. Header-only; every mutator draws from a Random seeded by libFuzzer, so
// a mutation is reproducible from its seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace focal {
namespace fuzz {

// SplitMix64: small, fast and good enough to choose mutations.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); 0 when n is 0.
  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(next() % n); }
  bool one_in(size_t n) { return below(n) == 0; }

 private:
  uint64_t state_;
};

// Integers where sizes, offsets and counts misbehave: 0 and 1, small dims, powers of two
// and their neighbours at every width (a 32-bit size_t truncates at 2^32), the extremes
// of each signed type, and the top of the 64-bit range, where rounding up to the 64-byte
// arena alignment wraps to 0.
inline uint64_t interesting_integer(Random& random) {
  static const uint64_t kValues[] = {
      0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 1023, 1024, 4096,
      32767, 32768, 65535, 65536, 0x7FFFFFFFull, 0x80000000ull, 0xFFFFFFFFull, 0x100000000ull,
      0x100000040ull, 1ull << 40, 1ull << 53, 0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull,
      0xFFFFFFFFFFFFFFC0ull, 0xFFFFFFFFFFFFFFC1ull, 0xFFFFFFFFFFFFFFFFull,
      // -2 and -2^31 as two's complement at 64 bits (truncated at narrower widths)
      0xFFFFFFFFFFFFFFFEull, 0xFFFFFFFF80000000ull};
  return kValues[random.below(sizeof(kValues) / sizeof(kValues[0]))];
}

inline float interesting_float(Random& random) {
  static const float kValues[] = {0.0f,
                                  -0.0f,
                                  1.0f,
                                  -1.0f,
                                  0.5f,
                                  2.0f,
                                  1e-30f,
                                  1e30f,
                                  -1e30f,
                                  std::numeric_limits<float>::denorm_min(),
                                  std::numeric_limits<float>::max(),
                                  std::numeric_limits<float>::lowest(),
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN(),
                                  16777217.0f,    // 2^24 + 1: the first integer a float loses
                                  2147483648.0f,  // 2^31: out of int32 range
                                  -2147483904.0f};
  return kValues[random.below(sizeof(kValues) / sizeof(kValues[0]))];
}

// Text that stresses whoever prints, compares or uses a name: empty, control characters
// (a newline ends a comment in a generated header), path separators, format directives,
// invalid UTF-8, an embedded NUL and a long run.
inline std::string interesting_text(Random& random) {
  static const char* const kValues[] = {"",         "\n",      "\r\n#include <x>\n",
                                        "../../x",  "/",       "%s%n%x",
                                        "\xff\xfe", "\xc3",    "a b",
                                        "\t",       "\x1b[2J", "  ",
                                        "."};
  const size_t choice = random.below(sizeof(kValues) / sizeof(kValues[0]) + 2);
  if (choice == sizeof(kValues) / sizeof(kValues[0]))
    return std::string(1 + random.below(4096), 'A');
  if (choice == sizeof(kValues) / sizeof(kValues[0]) + 1) return std::string("a\0b", 3);
  return kValues[choice];
}

// A value's bits changed the way a field of `bytes` width (1, 2, 4 or 8) is mutated:
// an interesting constant, a small step, a bit flip or random bits, truncated to width.
inline uint64_t mutate_integer_bits(uint64_t bits, size_t bytes, Random& random) {
  uint64_t value = bits;
  switch (random.below(5)) {
    case 0:
      value = interesting_integer(random);
      break;
    case 1:
      value = bits + 1 + random.below(4);
      break;
    case 2:
      value = bits - 1 - random.below(4);
      break;
    case 3:
      value = bits ^ (uint64_t(1) << random.below(bytes * 8));
      break;
    default:
      value = random.next();
      break;
  }
  return bytes >= 8 ? value : value & ((uint64_t(1) << (bytes * 8)) - 1);
}

inline uint32_t float_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

inline float bits_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

}  // namespace fuzz
}  // namespace focal
