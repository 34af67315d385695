#include "file_buffer.h"

#include <sys/mman.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstring>
#include <utility>

namespace focal {

Result<FileBuffer> FileBuffer::allocate(size_t size) {
  const size_t mapped = size > 0 ? size : 1;  // mmap refuses 0 bytes
  void* at = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (at == MAP_FAILED) {
    return Status::error(StatusCode::kResourceExhausted, "no memory for a %zu-byte model file", size);
  }
  return FileBuffer(static_cast<uint8_t*>(at), size, mapped);
}

FileBuffer::FileBuffer(FileBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)) {}

FileBuffer& FileBuffer::operator=(FileBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, mapped_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

FileBuffer::~FileBuffer() {
  if (data_ != nullptr) munmap(data_, mapped_);
}

void FileBuffer::release(size_t offset, size_t length) {
  if (offset >= size_) return;
  if (length > size_ - offset) length = size_ - offset;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t begin = (offset + page - 1) / page * page;  // data_ is page-aligned
  const size_t end = (offset + length) / page * page;
  // Advice only: on failure the pages simply stay resident.
  if (end > begin) (void)madvise(data_ + begin, end - begin, MADV_DONTNEED);
}

void copy_releasing(FileBuffer& source, size_t offset, size_t length, uint8_t* destination) {
  constexpr size_t kStep = size_t(16) << 20;
  for (size_t done = 0; done < length;) {
    const size_t n = length - done < kStep ? length - done : kStep;
    std::memcpy(destination + done, source.data() + offset + done, n);
    source.release(offset + done, n);
    done += n;
  }
}

void return_freed_memory() {
#if defined(__GLIBC__)
  (void)malloc_trim(0);
#endif
}

}  // namespace focal
