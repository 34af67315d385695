#include "focal/internal/checksum.h"

namespace focal {
namespace {

// Slicing-by-4 tables (4 KiB, in flash on a microcontroller): four bytes per step
// instead of one, about 3x faster than the classic byte-wise loop.
struct Crc32Tables {
  uint32_t t[4][256];
};

constexpr Crc32Tables make_tables() {
  Crc32Tables tables{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
    tables.t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (int s = 1; s < 4; ++s) {
      uint32_t prev = tables.t[s - 1][i];
      tables.t[s][i] = (prev >> 8) ^ tables.t[0][prev & 0xFFu];
    }
  }
  return tables;
}

constexpr Crc32Tables kTables = make_tables();

}  // namespace

uint32_t crc32_update(uint32_t crc, const uint8_t* data, size_t size) {
  uint32_t c = ~crc;
  while (size >= 4) {
    c ^= uint32_t(data[0]) | (uint32_t(data[1]) << 8) | (uint32_t(data[2]) << 16) |
         (uint32_t(data[3]) << 24);
    c = kTables.t[3][c & 0xFFu] ^ kTables.t[2][(c >> 8) & 0xFFu] ^ kTables.t[1][(c >> 16) & 0xFFu] ^
        kTables.t[0][c >> 24];
    data += 4;
    size -= 4;
  }
  while (size--) c = kTables.t[0][(c ^ *data++) & 0xFFu] ^ (c >> 8);
  return ~c;
}

uint32_t crc32_skipping(const uint8_t* data, size_t size, size_t skip_offset) {
  static const uint8_t kZeros[4] = {0, 0, 0, 0};
  if (skip_offset >= size || size - skip_offset < 4) return crc32_update(0, data, size);
  uint32_t crc = crc32_update(0, data, skip_offset);
  crc = crc32_update(crc, kZeros, 4);
  return crc32_update(crc, data + skip_offset + 4, size - skip_offset - 4);
}

}  // namespace focal
