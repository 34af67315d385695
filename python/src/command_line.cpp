// The focal command line in process: `python3 -m focal ARGS` is `focal ARGS` (the same
// cli::run_cli), and focal.bench reads `focal bench --json`'s output, captured.
#include <unistd.h>

#include <pybind11/stl.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "errors.h"

namespace py = pybind11;

namespace focal {
namespace python {
namespace {

// argv[0] is the program name, as run_cli expects.
int run_arguments(const std::vector<std::string>& arguments) {
  std::vector<char*> argv;
  for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const py::gil_scoped_release release;
  const int code = cli::run_cli(static_cast<int>(argv.size()) - 1, argv.data());
  std::fflush(stdout);  // the tool's output before Python's next lines
  std::fflush(stderr);
  return code;
}

// Points a standard stream's file descriptor at a temporary file while it lives; text()
// gives back what was written there. The whole process's writes to that descriptor are
// captured meanwhile (this is for the command line's printing, one call at a time).
class CapturedStream {
 public:
  explicit CapturedStream(std::FILE* stream) : stream_(stream), fd_(fileno(stream)), file_(std::tmpfile()) {
    std::fflush(stream_);
    if (file_ != nullptr) saved_ = dup(fd_);
    if (saved_ < 0 || dup2(fileno(file_), fd_) < 0) {
      restore();
      if (file_ != nullptr) std::fclose(file_);
      raise_error(StatusCode::kIoError, "cannot capture the tool's output");
    }
  }
  ~CapturedStream() {
    restore();
    std::fclose(file_);
  }
  CapturedStream(const CapturedStream&) = delete;
  CapturedStream& operator=(const CapturedStream&) = delete;

  std::string text() {
    restore();
    std::string all;
    std::rewind(file_);
    char block[4096];
    for (size_t n; (n = std::fread(block, 1, sizeof(block), file_)) > 0;) all.append(block, n);
    return all;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stream_);
    dup2(saved_, fd_);
    close(saved_);
    saved_ = -1;
  }
  std::FILE* stream_;
  int fd_;
  std::FILE* file_;
  int saved_ = -1;
};

// (exit code, stdout, stderr) of the command line on `arguments`.
py::tuple run_captured(const std::vector<std::string>& arguments) {
  CapturedStream out(stdout), err(stderr);
  const int code = run_arguments(arguments);
  std::string printed = out.text(), errors = err.text();
  return py::make_tuple(code, py::bytes(printed), py::bytes(errors));
}

}  // namespace

void register_command_line(py::module_& m) {
  m.def("_run_cli", &run_arguments, py::arg("argv"), "Runs the focal tool in process; returns its exit code");
  m.def("_run_cli_captured", &run_captured, py::arg("argv"), "(exit code, stdout bytes, stderr bytes) of the tool");
}

}  // namespace python
}  // namespace focal
