// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as zlib computes it, so a file's
// checksum can be checked with any standard tool.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {

// Continues a CRC: start with crc = 0, feed the bytes in order.
uint32_t crc32_update(uint32_t crc, const uint8_t* data, size_t size);

// The CRC of bytes [0, size) with the four bytes at `skip_offset` read as zero: the
// checksum of a file that stores its own checksum at that offset.
uint32_t crc32_skipping(const uint8_t* data, size_t size, size_t skip_offset);

}  // namespace focal
