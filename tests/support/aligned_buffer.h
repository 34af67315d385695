// 64-byte aligned bytes for tests: models and arenas must be aligned like an mmap.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace focal {
namespace testing {

class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t size, size_t offset = 0)
      : size_(size),
        // ::aligned_alloc: newlib's libstdc++ (Cortex-M firmware tests) has no std:: one.
        base_(static_cast<uint8_t*>(::aligned_alloc(64, round(size + offset)))),
        data_(base_ + offset) {
    std::memset(base_, 0, round(size + offset));
  }
  explicit AlignedBuffer(const std::vector<uint8_t>& bytes, size_t offset = 0)
      : AlignedBuffer(bytes.size(), offset) {
    if (!bytes.empty()) std::memcpy(data_, bytes.data(), bytes.size());
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(base_); }

  uint8_t* data() { return data_; }
  size_t size() const { return size_; }

 private:
  static size_t round(size_t n) { return (n + 64) / 64 * 64; }  // never 0
  size_t size_;
  uint8_t* base_;
  uint8_t* data_;
};

}  // namespace testing
}  // namespace focal
