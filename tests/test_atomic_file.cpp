// 64-bit file offsets and inodes on 32-bit targets (armhf): without them readdir()
// fails with EOVERFLOW on file systems with 64-bit directory offsets (qemu-arm here).
#define _FILE_OFFSET_BITS 64

// write_file_atomically (targets/linux/atomic_file.h): a failed write leaves the old file
// and no temporary behind; a mapping of the old file keeps its bytes after a rewrite.
#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "mapped_file.h"

using namespace focal;

// Every umask() call in this test program comes here first (the executable's definition
// interposes libc's), so a test can tell whether the writer changed the process's umask.
namespace {
int umask_calls = 0;
}
extern "C" mode_t umask(mode_t mask) {
  ++umask_calls;
  using Umask = mode_t (*)(mode_t);
  static const Umask real = reinterpret_cast<Umask>(::dlsym(RTLD_NEXT, "umask"));
  return real(mask);
}

namespace {

// A fresh directory under TMPDIR (or /tmp), removed with its files at the end.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/focal-atomic-XXXXXX";
    REQUIRE(::mkdtemp(&pattern[0]) != nullptr);
    path = pattern;
  }
  ~ScratchDir() {
    for (const std::string& name : names()) ::unlink((path + "/" + name).c_str());
    ::rmdir(path.c_str());
  }
  std::vector<std::string> names() const {
    std::vector<std::string> found;
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return found;
    while (const dirent* entry = ::readdir(dir)) {
      if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) found.push_back(entry->d_name);
    }
    ::closedir(dir);
    return found;
  }
};

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes at most 3 bytes, then fails as a full disk does.
ssize_t short_then_full(int fd, const void* data, size_t size) {
  static int calls = 0;
  if (calls++ % 2 == 0) return ::write(fd, data, size < 3 ? size : 3);
  errno = ENOSPC;
  return -1;
}

ssize_t never_progresses(int, const void*, size_t) { return 0; }

}  // namespace

TEST_CASE("hostile: a failing write (short, then a full disk) leaves the old file intact and no temporary") {
  ScratchDir dir;
  const std::string target = dir.path + "/model.focal";
  const std::string old_bytes = "the good model";
  REQUIRE(write_file_atomically(target, old_bytes.data(), old_bytes.size()).ok());

  const std::string new_bytes = "a longer replacement that never arrives whole";
  for (WriteFunction failing : {short_then_full, never_progresses}) {
    const Status status = write_file_atomically(target, new_bytes.data(), new_bytes.size(), failing);
    CHECK(status.code() == StatusCode::kIoError);
    CHECK(std::strstr(status.message(), "model.focal") != nullptr);
    CHECK(contents(target) == old_bytes);
    CHECK(dir.names() == std::vector<std::string>{"model.focal"});
  }
}

TEST_CASE("hostile: a rewrite leaves a mapping of the old file reading the old bytes") {
  ScratchDir dir;
  const std::string target = dir.path + "/model.focal";
  const std::string old_bytes(8192, 'a');
  REQUIRE(write_file_atomically(target, old_bytes.data(), old_bytes.size()).ok());
  auto mapped = MappedFile::open(target.c_str());
  REQUIRE(mapped.ok());

  const std::string new_bytes(100, 'b');  // shorter: a truncating rewrite would SIGBUS the mapping
  REQUIRE(write_file_atomically(target, new_bytes.data(), new_bytes.size()).ok());
  CHECK(std::string(reinterpret_cast<const char*>(mapped->data()), mapped->size()) == old_bytes);
  CHECK(contents(target) == new_bytes);
}

TEST_CASE("hostile: a target that is not a regular file is refused, not replaced") {
  ScratchDir dir;
  const std::string bytes = "x";
  const Status status = write_file_atomically(dir.path, bytes.data(), bytes.size());
  CHECK(status.code() == StatusCode::kIoError);
  CHECK(std::strstr(status.message(), "not a regular file") != nullptr);
  CHECK(dir.names().empty());
}

TEST_CASE("same_file compares device and inode, not spellings") {
  ScratchDir dir;
  const std::string a = dir.path + "/a", link = dir.path + "/link";
  REQUIRE(write_file_atomically(a, "1", 1).ok());
  REQUIRE(::link(a.c_str(), link.c_str()) == 0);
  CHECK(same_file(a, link));
  CHECK(same_file(a, dir.path + "/./a"));
  CHECK(!same_file(a, dir.path + "/missing"));
  REQUIRE(write_file_atomically(dir.path + "/b", "2", 1).ok());
  CHECK(!same_file(a, dir.path + "/b"));
}

TEST_CASE("hostile: writing never changes the process's umask, which other threads share") {
  // It read the umask by setting it to 0 and back: files another thread created in
  // between were world-writable. The new file still gets 0666 less the umask.
  ScratchDir dir;
  const mode_t old = ::umask(027);
  const int calls = umask_calls;
  const std::string path = dir.path + "/model.focal";
  const Status status = write_file_atomically(path, "abc", 3);
  const int calls_during_write = umask_calls - calls;
  ::umask(old);
  REQUIRE_MESSAGE(status.ok(), status.message());
  CHECK(calls_during_write == 0);
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0640);
}
