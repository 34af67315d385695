// A finished .focal file in memory of its own: zero-filled anonymous pages, page (so
// 64-byte) aligned as the loader wants, whose pages are resident only once written and
// can be handed back to the OS once read, so a BERT-sized file moved from one buffer to
// another (copy_releasing) never holds two copies of the weights at once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/status.h"

namespace focal {

class FileBuffer {
 public:
  static Result<FileBuffer> allocate(size_t size);
  FileBuffer(FileBuffer&& other) noexcept;
  FileBuffer& operator=(FileBuffer&& other) noexcept;
  FileBuffer(const FileBuffer&) = delete;
  FileBuffer& operator=(const FileBuffer&) = delete;
  ~FileBuffer();

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool contains(const uint8_t* p) const { return p >= data_ && p < data_ + size_; }
  // Hands the whole pages inside [offset, offset + length) back to the OS: they read as
  // zeros afterwards. For bytes that have been copied elsewhere and are not read again.
  void release(size_t offset, size_t length);

 private:
  FileBuffer(uint8_t* data, size_t size, size_t mapped) : data_(data), size_(size), mapped_(mapped) {}
  uint8_t* data_ = nullptr;
  size_t size_ = 0, mapped_ = 0;
};

// Copies `length` bytes of `source` at `offset` to `destination`, releasing the
// source's pages in 16 MiB steps as they are copied.
void copy_releasing(FileBuffer& source, size_t offset, size_t length, uint8_t* destination);

// Hands memory freed to the C allocator back to the OS. glibc serves allocations below
// its (adaptive, up to 32 MiB) mmap threshold from the heap and keeps freed heap pages,
// so freeing a writer's per-tensor copies one by one would not lower the process's
// footprint while the file they move into grows. Nothing on other C libraries.
void return_freed_memory();

}  // namespace focal
