#include "zip_rewriter.h"

#include <zlib.h>

#include <cstring>

namespace focal {
namespace fuzz {
namespace {

constexpr uint32_t kLocalSignature = 0x04034b50;
constexpr uint32_t kCentralSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr size_t kLocalHeaderBytes = 30;
constexpr size_t kCentralHeaderBytes = 46;
constexpr size_t kEndRecordBytes = 22;

uint32_t read_le(const uint8_t* p, size_t bytes) {
  uint32_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

void put_le(std::vector<uint8_t>& out, uint64_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Raw deflate (zip's method 8 has no zlib header): windowBits -15.
bool inflate_raw(const uint8_t* data, size_t size, size_t max_bytes, std::vector<uint8_t>* out) {
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) return false;
  out->clear();
  uint8_t chunk[16384];
  z.next_in = const_cast<uint8_t*>(data);
  z.avail_in = static_cast<uInt>(size);
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = chunk;
    z.avail_out = sizeof(chunk);
    rc = inflate(&z, Z_NO_FLUSH);
    out->insert(out->end(), chunk, chunk + (sizeof(chunk) - z.avail_out));
    if (out->size() > max_bytes || (rc == Z_BUF_ERROR && z.avail_in == 0)) break;
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END;
}

std::vector<uint8_t> deflate_raw(const std::vector<uint8_t>& data) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> out(deflateBound(&z, static_cast<uLong>(data.size())));
  z.next_in = const_cast<uint8_t*>(data.data());
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

struct Written {
  uint16_t method;
  uint32_t crc;
  uint64_t compressed;
  uint64_t uncompressed;
  uint64_t offset;
};

}  // namespace

bool parse_zip(const uint8_t* data, size_t size, std::vector<ZipMember>* members) {
  if (size < kEndRecordBytes) return false;
  // The end record is the last thing in the file, before a comment of up to 64 KiB.
  size_t end = size - kEndRecordBytes + 1;
  bool found = false;
  while (end > 0 && size - end < kEndRecordBytes + 65536) {
    --end;
    if (read_le(data + end, 4) == kEndSignature) {
      found = true;
      break;
    }
  }
  if (!found) return false;
  const uint32_t count = read_le(data + end + 10, 2);
  size_t at = read_le(data + end + 16, 4);
  members->clear();
  for (uint32_t i = 0; i < count; ++i) {
    if (at > size || size - at < kCentralHeaderBytes || read_le(data + at, 4) != kCentralSignature)
      return false;
    const uint16_t flags = static_cast<uint16_t>(read_le(data + at + 8, 2));
    const uint16_t method = static_cast<uint16_t>(read_le(data + at + 10, 2));
    const uint32_t crc = read_le(data + at + 16, 4);
    const uint32_t compressed = read_le(data + at + 20, 4);
    const uint32_t uncompressed = read_le(data + at + 24, 4);
    const size_t name_bytes = read_le(data + at + 28, 2);
    const size_t extra_bytes = read_le(data + at + 30, 2) + read_le(data + at + 32, 2);
    const size_t local = read_le(data + at + 42, 4);
    if ((flags & 1) != 0 || compressed == 0xFFFFFFFFu ||
        size - at - kCentralHeaderBytes < name_bytes)
      return false;
    ZipMember member;
    member.name.assign(reinterpret_cast<const char*>(data + at + kCentralHeaderBytes), name_bytes);
    member.method = method;
    at += kCentralHeaderBytes + name_bytes + extra_bytes;
    if (local > size || size - local < kLocalHeaderBytes ||
        read_le(data + local, 4) != kLocalSignature)
      return false;
    const size_t start =
        local + kLocalHeaderBytes + read_le(data + local + 26, 2) + read_le(data + local + 28, 2);
    if (start > size || size - start < compressed) return false;
    if (method == 0) {
      member.contents.assign(data + start, data + start + compressed);
    } else if (method == 8) {
      member.inflated = false;
      member.deflated.assign(data + start, data + start + compressed);
      member.crc = crc;
      member.uncompressed_bytes = uncompressed;
    } else {
      return false;
    }
    members->push_back(std::move(member));
  }
  return true;
}

bool inflate_member(ZipMember& member, size_t max_bytes) {
  if (member.inflated) return true;
  if (!inflate_raw(member.deflated.data(), member.deflated.size(), max_bytes, &member.contents))
    return false;
  member.inflated = true;
  member.deflated.clear();
  return true;
}

std::vector<uint8_t> write_zip(const std::vector<ZipMember>& members, const ZipLie& lie) {
  std::vector<uint8_t> out;
  std::vector<Written> written;
  for (size_t i = 0; i < members.size(); ++i) {
    const ZipMember& m = members[i];
    const bool lying = lie.kind != ZipLieKind::kNone && lie.member == i;
    std::vector<uint8_t> stored;
    Written w{m.method, m.crc, 0, m.uncompressed_bytes, out.size()};
    if (!m.inflated) {
      stored = m.deflated;
      w.method = 8;
    } else {
      stored = m.method == 8 ? deflate_raw(m.contents) : m.contents;
      w.crc =
          static_cast<uint32_t>(crc32(0, m.contents.data(), static_cast<uInt>(m.contents.size())));
      w.uncompressed = m.contents.size();
    }
    w.compressed = stored.size();
    if (lying && lie.kind == ZipLieKind::kWrongCrc) w.crc ^= 1u << (lie.value % 32);
    if (lying && lie.kind == ZipLieKind::kUnknownMethod) w.method = 99;
    if (lying && lie.kind == ZipLieKind::kDeflateClaimedStored) w.method = m.method == 8 ? 0 : 8;
    const uint16_t flags = lying && lie.kind == ZipLieKind::kEncryptedFlag ? 1 : 0;
    const bool local_lie = lying && lie.kind == ZipLieKind::kLocalSizeMismatch;
    put_le(out, kLocalSignature, 4);
    put_le(out, 20, 2);  // version needed: 2.0
    put_le(out, flags, 2);
    put_le(out, w.method, 2);
    put_le(out, 0, 4);  // time and date
    put_le(out, w.crc, 4);
    put_le(out, local_lie ? lie.value : w.compressed, 4);
    put_le(out, local_lie ? lie.value : w.uncompressed, 4);
    put_le(out, m.name.size(), 2);
    put_le(out, 0, 2);
    out.insert(out.end(), m.name.begin(), m.name.end());
    out.insert(out.end(), stored.begin(), stored.end());
    if (lying && lie.kind == ZipLieKind::kHugeUncompressedSize) w.uncompressed = lie.value;
    if (lying && lie.kind == ZipLieKind::kSmallUncompressedSize)
      w.uncompressed = lie.value % (w.uncompressed + 1);
    if (lying && lie.kind == ZipLieKind::kWrongLocalOffset) w.offset = lie.value;
    written.push_back(w);
  }
  const size_t directory = out.size();
  for (size_t i = 0; i < members.size(); ++i) {
    const Written& w = written[i];
    const uint16_t flags = lie.kind == ZipLieKind::kEncryptedFlag && lie.member == i ? 1 : 0;
    put_le(out, kCentralSignature, 4);
    put_le(out, 20, 2);  // version made by
    put_le(out, 20, 2);  // version needed
    put_le(out, flags, 2);
    put_le(out, w.method, 2);
    put_le(out, 0, 4);
    put_le(out, w.crc, 4);
    put_le(out, w.compressed, 4);
    put_le(out, w.uncompressed, 4);
    put_le(out, members[i].name.size(), 2);
    put_le(out, 0, 2);  // extra
    put_le(out, 0, 2);  // comment
    put_le(out, 0, 2);  // disk
    put_le(out, 0, 2);  // internal attributes
    put_le(out, 0, 4);  // external attributes
    put_le(out, w.offset, 4);
    out.insert(out.end(), members[i].name.begin(), members[i].name.end());
  }
  const size_t directory_bytes = out.size() - directory;
  uint64_t entries = members.size();
  if (lie.kind == ZipLieKind::kEntryCountLie)
    entries = lie.value % 2 == 0 ? entries + 1 + lie.value % 3 : lie.value % (entries + 1);
  put_le(out, kEndSignature, 4);
  put_le(out, 0, 2);
  put_le(out, 0, 2);
  put_le(out, entries, 2);
  put_le(out, entries, 2);
  put_le(out, directory_bytes, 4);
  put_le(out, directory, 4);
  put_le(out, 0, 2);
  return out;
}

ZipLie random_zip_lie(size_t member_count, Random& random) {
  ZipLie lie;
  lie.kind =
      static_cast<ZipLieKind>(1 + random.below(static_cast<size_t>(ZipLieKind::kEntryCountLie)));
  lie.member = random.below(member_count);
  lie.value = interesting_integer(random);
  return lie;
}

}  // namespace fuzz
}  // namespace focal
