#include <doctest/doctest.h>

#include <cstring>

#include "focal/internal/checksum.h"

TEST_CASE("crc32 matches the standard check value and is chunk-independent") {
  const char* check = "123456789";
  const auto* bytes = reinterpret_cast<const uint8_t*>(check);
  CHECK(focal::crc32_update(0, bytes, 9) == 0xCBF43926u);  // the CRC-32/ISO-HDLC check value
  uint32_t crc = 0;
  for (int i = 0; i < 9; ++i) crc = focal::crc32_update(crc, bytes + i, 1);
  CHECK(crc == 0xCBF43926u);
}

TEST_CASE("crc32_skipping reads the four skipped bytes as zero") {
  uint8_t a[13] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  uint8_t b[13];
  std::memcpy(b, a, sizeof(a));
  std::memset(b + 5, 0, 4);
  CHECK(focal::crc32_skipping(a, 13, 5) == focal::crc32_update(0, b, 13));
  CHECK(focal::crc32_skipping(a, 13, 5) != focal::crc32_update(0, a, 13));
}
