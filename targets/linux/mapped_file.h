// Read-only memory mapping of a file: the way models are loaded on Linux, so weights
// are paged in on first use and shared between processes instead of copied.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/status.h"

namespace focal {

class MappedFile {
 public:
  static Result<MappedFile> open(const char* path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile& operator=(MappedFile&&) = delete;
  ~MappedFile();

  // Page-aligned (so 64-byte aligned, as Model::from_bytes needs).
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const uint8_t* data_;
  size_t size_;
};

}  // namespace focal
