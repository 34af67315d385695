// A read-only zip archive (Debian's libzip) with size-checked member reads, for the
// torch.save and .npz readers. Before a member is inflated its stated sizes are checked
// against the archive (a member's compressed bytes lie inside the file; a stored one is
// as large as it says) and against the archive's inflation budget (read_budget.h: all
// members together inflate to at most kInflateFactor times the archive), so neither a
// lying size field nor a zip bomb drives an allocation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "focal/status.h"
#include "readers/read_budget.h"

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
  uint64_t file_bytes() const { return file_bytes_; }
  // The member's bytes; refused when its size differs from `expected_size` (>= 0),
  // exceeds `max_size` or the inflation budget, or its size fields contradict the file.
  Result<std::vector<uint8_t>> read(const std::string& name, int64_t expected_size, uint64_t max_size);
  // The first `count` bytes of a member (not charged: `count` is the caller's bound).
  Result<std::vector<uint8_t>> read_prefix(const std::string& name, size_t count) const;

 private:
  ZipArchive(zip* archive, std::string path, uint64_t file_bytes)
      : archive_(archive), path_(std::move(path)), file_bytes_(file_bytes),
        inflated_("inflated zip members", file_bytes, kInflateFactor) {}
  Status check_sizes(const std::string& name, uint64_t size);

  zip* archive_;
  std::string path_;
  uint64_t file_bytes_;
  ReadBudget inflated_;
};

}  // namespace convert
}  // namespace focal
