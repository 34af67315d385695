// A zip archive as a list of members, for mutators that rebuild one (torch.save files
// and .npz are zips): parsed from the central directory, written back with fresh CRCs,
// sizes and offsets, so a change to a member's contents reaches the reader's own checks
// instead of libzip's integrity checks. A few header fields can be made to lie on
// purpose (ZipLie), which is how the reader's refusals of bad archives are reached.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mutation_values.h"

namespace focal {
namespace fuzz {

struct ZipMember {
  std::string name;
  uint16_t method = 0;            // 0 stored, 8 deflated; written as given
  std::vector<uint8_t> contents;  // uncompressed; valid when `inflated`
  bool inflated = true;
  // A deflated member as parsed, written back unchanged while it is not inflated:
  // re-deflating a zip bomb on every mutation would cost more than reading it.
  std::vector<uint8_t> deflated;
  uint32_t crc = 0;
  uint64_t uncompressed_bytes = 0;
};

// Parses a zip without zip64 or encryption; deflated members stay deflated. False for
// anything else (not a zip, truncated, inconsistent headers).
bool parse_zip(const uint8_t* data, size_t size, std::vector<ZipMember>* members);

// Makes `contents` valid (inflating up to `max_bytes`); false when the member does not
// inflate within that.
bool inflate_member(ZipMember& member, size_t max_bytes);

// A header field that lies, chosen at random by write_zip's caller.
enum class ZipLieKind {
  kNone,
  kWrongCrc,               // both headers carry a CRC off by one bit
  kHugeUncompressedSize,   // central directory claims an interesting size
  kSmallUncompressedSize,  // central directory claims fewer bytes than there are
  kLocalSizeMismatch,      // local header's sizes differ from the central directory's
  kUnknownMethod,          // method 99 in both headers
  kDeflateClaimedStored,   // deflated bytes, header says stored (or the reverse)
  kEncryptedFlag,          // general purpose bit 0
  kWrongLocalOffset,       // central directory points somewhere else
  kEntryCountLie,          // end record counts more or fewer entries
};

struct ZipLie {
  ZipLieKind kind = ZipLieKind::kNone;
  size_t member = 0;
  uint64_t value = 0;
};

std::vector<uint8_t> write_zip(const std::vector<ZipMember>& members, const ZipLie& lie = ZipLie());

// A random lie about one of `member_count` members.
ZipLie random_zip_lie(size_t member_count, Random& random);

}  // namespace fuzz
}  // namespace focal
