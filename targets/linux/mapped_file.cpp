#include "mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace focal {

Result<MappedFile> MappedFile::open(const char* path) {
  // O_NONBLOCK: opening a FIFO would otherwise wait for a writer before the check below
  // could refuse it (it changes nothing for a regular file, and mmap ignores it).
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return Status::error(StatusCode::kIoError, "cannot open %s: %s", path, std::strerror(errno));
  }
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return Status::error(StatusCode::kIoError, "%s is not a regular file", path);
  }
  const size_t size = static_cast<size_t>(info.st_size);
  if (size == 0) {
    ::close(fd);
    return MappedFile(nullptr, 0);  // the loader reports "too small"
  }
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);  // the mapping keeps the file open
  if (mapped == MAP_FAILED) {
    return Status::error(StatusCode::kIoError, "cannot map %s: %s", path, std::strerror(errno));
  }
  return MappedFile(static_cast<const uint8_t*>(mapped), size);
}

MappedFile::MappedFile(MappedFile&& other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace focal
