// A read-only zip archive (Debian's libzip) with size-checked member reads, for the
// torch.save and .npz readers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "focal/status.h"

struct zip;

namespace focal {
namespace convert {

class ZipArchive {
 public:
  static Result<ZipArchive> open(const std::string& path);
  ZipArchive(ZipArchive&& other) noexcept;
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;
  ZipArchive& operator=(ZipArchive&&) = delete;
  ~ZipArchive();

  std::vector<std::string> names() const;
  bool contains(const std::string& name) const;
  // Uncompressed size as the archive states it; -1 when the member is missing.
  int64_t size_of(const std::string& name) const;
  // The member's bytes; refused when its size differs from `expected_size` (>= 0) or
  // exceeds `max_size`, so a hostile size field never drives an allocation.
  Result<std::vector<uint8_t>> read(const std::string& name, int64_t expected_size,
                                    uint64_t max_size) const;
  // The first `count` bytes of a member.
  Result<std::vector<uint8_t>> read_prefix(const std::string& name, size_t count) const;

 private:
  ZipArchive(zip* archive, std::string path) : archive_(archive), path_(std::move(path)) {}
  zip* archive_;
  std::string path_;
};

}  // namespace convert
}  // namespace focal
