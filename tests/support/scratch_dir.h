// A fresh directory for one test's files, so no test writes into the source tree or the
// directory it happens to be run from. Made under TMPDIR (else the system's temporary
// directory) with mkdtemp, so parallel runs never share one; removed with everything in
// it when the test ends.
#pragma once

#include <doctest/doctest.h>
#include <stdlib.h>  // mkdtemp (POSIX)

#include <filesystem>
#include <string>
#include <system_error>

namespace focal {
namespace testing {

class ScratchDir {
 public:
  // `prefix` names the directory after the test that made it (focal-<prefix>-XXXXXX).
  explicit ScratchDir(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / ("focal-" + prefix + "-XXXXXX")).string();
    REQUIRE_MESSAGE(::mkdtemp(&pattern[0]) != nullptr, "cannot make a temporary directory from ", pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;  // a destructor must not throw; a leftover directory is harmless
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  // The path of `name` inside this directory.
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace testing
}  // namespace focal
