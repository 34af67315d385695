// 64-bit file offsets and inodes on 32-bit targets (armhf): without them stat() of a
// file beyond 2 GiB, or one with a 64-bit inode, fails with EOVERFLOW.
#define _FILE_OFFSET_BITS 64

#include "atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace focal {
namespace {

// The directory part of `path` ("." for a bare name), where the temporary file goes so
// the rename stays within one file system.
std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Status io_error(const char* what, const std::string& path, int error) {
  return Status::error(StatusCode::kIoError, "cannot write '%s': %s: %s", path.c_str(), what, std::strerror(error));
}

// Every byte through `write`, resuming after short writes and EINTR.
int write_all(int fd, const void* data, size_t size, WriteFunction write) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ENOSPC;  // no progress: the device takes no more
    p += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

// 0666 less the process's umask, as open(O_CREAT) would give. Read from /proc (Linux
// 4.7+), never by umask(0) and back: the umask is shared by every thread, and files that
// other threads create between the two calls would be world-writable. Without /proc,
// Debian's default umask 022 is assumed.
mode_t new_file_mode() {
  mode_t mask = 022;
  if (std::FILE* status = std::fopen("/proc/self/status", "re")) {
    char line[128];
    unsigned value = 0;
    while (std::fgets(line, sizeof(line), status) != nullptr) {
      if (std::sscanf(line, "Umask: %o", &value) == 1) {
        mask = static_cast<mode_t>(value & 0777);
        break;
      }
    }
    std::fclose(status);
  }
  return 0666 & ~mask;
}

// The temporary file's contents, mode, fsync and close; 0 or an errno value with `what`.
int fill_temporary(int fd, const void* data, size_t size, WriteFunction write, const char** what) {
  *what = "writing";
  if (const int error = write_all(fd, data, size, write)) return error;
  *what = "setting its mode";
  if (::fchmod(fd, new_file_mode()) != 0) return errno;
  *what = "syncing";
  if (::fsync(fd) != 0) return errno;
  return 0;
}

}  // namespace

Status write_file_atomically(const std::string& path, const void* data, size_t size, WriteFunction write) {
  struct stat existing;
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    return Status::error(StatusCode::kIoError, "cannot write '%s': it exists and is not a regular file",
                         path.c_str());
  }
  const std::string directory = directory_of(path);
  std::string name = directory + "/.focal-XXXXXX";
  std::vector<char> temporary(name.begin(), name.end());
  temporary.push_back('\0');
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) return io_error("creating a temporary file in its directory", path, errno);
  const char* what = "";
  int error = fill_temporary(fd, data, size, write, &what);
  if (::close(fd) != 0 && error == 0) {
    error = errno;
    what = "closing";
  }
  if (error == 0 && ::rename(temporary.data(), path.c_str()) != 0) {
    error = errno;
    what = "renaming the temporary file over it";
  }
  if (error != 0) {
    ::unlink(temporary.data());
    return io_error(what, path, error);
  }
  // The rename itself is durable once the directory is synced; a failure here leaves the
  // new file in place, so it is not reported.
  const int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return Status();
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

Status check_output_is_not_an_input(const std::string& output, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    if (same_file(output, input)) {
      return Status::error(StatusCode::kInvalidArgument, "%s is the input file %s; refusing to overwrite it",
                           output.c_str(), input.c_str());
    }
  }
  return Status();
}

}  // namespace focal
