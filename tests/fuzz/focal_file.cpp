#include "focal_file.h"

#include <cstring>

#include "focal/internal/checksum.h"
#include "focal_generated.h"

namespace focal {
namespace fuzz {
namespace {

constexpr size_t kPrefixBytes = sizeof(flatbuffers::uoffset_t);
constexpr size_t kSegmentAlignment = 64;  // the data segment starts at a multiple of this

bool verifies(const uint8_t* file, size_t prefixed_bytes) {
  flatbuffers::Verifier verifier(file, prefixed_bytes);
  return fb::VerifySizePrefixedModelBuffer(verifier);
}

}  // namespace

bool split_focal_file(const uint8_t* file, size_t size, FocalFileParts* parts) {
  if (size < kPrefixBytes) return false;
  const uint64_t flatbuffer_bytes = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(file);
  if (flatbuffer_bytes > size - kPrefixBytes) return false;
  const size_t prefixed = static_cast<size_t>(flatbuffer_bytes) + kPrefixBytes;
  if (!verifies(file, prefixed)) return false;
  const size_t segment = (prefixed + kSegmentAlignment - 1) / kSegmentAlignment * kSegmentAlignment;
  parts->flatbuffer = file + kPrefixBytes;
  parts->flatbuffer_bytes = static_cast<size_t>(flatbuffer_bytes);
  parts->data_segment = segment < size ? file + segment : nullptr;
  parts->data_bytes = segment < size ? size - segment : 0;
  return true;
}

std::vector<uint8_t> assemble_focal_file(const uint8_t* flatbuffer, size_t flatbuffer_bytes,
                                         const uint8_t* data_segment, size_t data_bytes) {
  const size_t prefixed = flatbuffer_bytes + kPrefixBytes;
  const size_t segment = (prefixed + kSegmentAlignment - 1) / kSegmentAlignment * kSegmentAlignment;
  std::vector<uint8_t> file(data_bytes > 0 ? segment + data_bytes : prefixed, 0);
  const auto prefix = static_cast<flatbuffers::uoffset_t>(flatbuffer_bytes);
  std::memcpy(file.data(), &prefix, kPrefixBytes);  // little-endian, as FlatBuffers
  if (flatbuffer_bytes > 0) std::memcpy(file.data() + kPrefixBytes, flatbuffer, flatbuffer_bytes);
  if (data_bytes > 0) std::memcpy(file.data() + segment, data_segment, data_bytes);
  return file;
}

bool restamp_checksum(std::vector<uint8_t>& file) {
  FocalFileParts parts;
  if (!split_focal_file(file.data(), file.size(), &parts)) return false;
  const fb::Model* model = fb::GetSizePrefixedModel(file.data());
  if (model->checksum() == nullptr) return false;
  const size_t at =
      static_cast<size_t>(reinterpret_cast<const uint8_t*>(model->checksum()) - file.data());
  const uint32_t crc = crc32_skipping(file.data(), file.size(), at);
  std::memcpy(file.data() + at, &crc, sizeof(crc));
  return true;
}

}  // namespace fuzz
}  // namespace focal
