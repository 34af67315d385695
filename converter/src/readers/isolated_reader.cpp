#include "readers/isolated_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "readers/checkpoint.h"

namespace focal {
namespace convert {
namespace {

constexpr int kChildFd = 3;  // the pipe's write end, in the child

// The address space this process has mapped (the child inherits it), from
// /proc/self/statm; 0 if unknown. Sanitizers reserve terabytes up front, so a cap must
// be relative to it.
uint64_t mapped_bytes() {
  FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  char line[128] = {};
  const bool read = std::fgets(line, sizeof(line), statm) != nullptr;
  (void)std::fclose(statm);  // read-only: nothing to lose
  char* end = nullptr;
  const unsigned long long pages = read ? std::strtoull(line, &end, 10) : 0;
  const long page = sysconf(_SC_PAGESIZE);
  return end != line && page > 0 ? pages * static_cast<uint64_t>(page) : 0;
}

void set_limit(int resource, rlim_t value) {
  const rlimit limit{value, value};
  setrlimit(resource, &limit);  // best effort: a limit the host refuses is no reason to fail
}

// In the child, the host's handlers (a test framework's crash report, Python's
// faulthandler) must not run on the reader's crash, and no signal may be blocked that
// the limits rely on: default dispositions, empty mask.
void default_signals() {
  for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ, SIGPIPE}) {
    (void)std::signal(signal, SIG_DFL);  // best effort, as for the limits
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

// In the child: the pipe on kChildFd, every other descriptor above 2 closed (so the
// open-files limit leaves room to open the file), then the limits.
void enter_child(int write_fd, const IsolationLimits& limits, uint64_t address_space) {
  default_signals();
  if (write_fd != kChildFd) {
    dup2(write_fd, kChildFd);
    close(write_fd);
  }
#ifdef SYS_close_range
  if (syscall(SYS_close_range, kChildFd + 1, ~0U, 0) != 0)
#endif
  {
    for (int fd = kChildFd + 1; fd < 65536; ++fd) close(fd);
  }
  set_limit(RLIMIT_CORE, 0);
  set_limit(RLIMIT_FSIZE, 0);  // the reader writes no file
  set_limit(RLIMIT_NOFILE, limits.open_files);
  const rlimit cpu{limits.cpu_seconds, limits.cpu_seconds + 1};  // SIGXCPU, then SIGKILL
  setrlimit(RLIMIT_CPU, &cpu);
  if (address_space != 0) set_limit(RLIMIT_AS, address_space);
}

// waitpid, retrying EINTR; false if the child cannot be reaped (SIGCHLD ignored by the host).
bool reap(pid_t child, int* status) {
  while (true) {
    if (waitpid(child, status, 0) == child) return true;
    if (errno != EINTR) return false;
  }
}

Status child_death(const std::string& path, const IsolationLimits& limits, int status) {
  const int signal = WTERMSIG(status);
  if (signal == SIGXCPU) {
    return reader_error(path, "reading it took more than " + std::to_string(limits.cpu_seconds) +
                                  " s of CPU (the reader process was stopped)");
  }
  return Status::error(StatusCode::kInvalidModel, "libhdf5 crashed reading '%s' (signal %d, %s): the file is corrupt",
                       path.c_str(), signal, strsignal(signal));
}

std::atomic<bool> readers_in_process{false};

// set_readers_in_process: the child's records in a memfd, read back by the parent.
Status run_in_process(const std::string& path, const IsolationLimits& limits, const std::function<bool(int fd)>& child,
                      const std::function<Status(ChildStream& stream)>& parent) {
  const int fd = memfd_create("focal-reader", MFD_CLOEXEC);
  if (fd < 0) return reader_error(path, "cannot make a buffer for the in-process reader");
  (void)child(fd);  // a false return is a write that failed: the parent finds the stream cut short
  Status read;
  if (lseek(fd, 0, SEEK_SET) != 0) {
    read = reader_error(path, "cannot rewind the in-process reader's buffer");
  } else {
    ChildStream stream(fd, std::chrono::steady_clock::now() + std::chrono::seconds(limits.wall_seconds));
    read = parent(stream);
  }
  close(fd);
  return read;
}

}  // namespace

void set_readers_in_process(bool in_process) { readers_in_process = in_process; }

bool ChildStream::read(void* data, size_t size) {
  auto* at = static_cast<uint8_t*>(data);
  while (size > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ -
                                                                            std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out_ = true;
      return false;
    }
    pollfd ready{fd_, POLLIN, 0};
    const int polled = poll(&ready, 1, static_cast<int>(left.count() < 60000 ? left.count() : 60000));
    if (polled < 0 && errno != EINTR) return false;
    if (polled <= 0) continue;
    const ssize_t got = ::read(fd_, at, size);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      ended_ = got == 0;
      return false;
    }
    at += got;
    size -= static_cast<size_t>(got);
  }
  return true;
}

bool write_to_parent(int fd, const void* data, size_t size) {
  const auto* at = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t put = write(fd, at, size);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    at += put;
    size -= static_cast<size_t>(put);
  }
  return true;
}

Status run_isolated(const std::string& path, const IsolationLimits& limits, const std::function<bool(int fd)>& child,
                    const std::function<Status(ChildStream& stream)>& parent) {
  if (readers_in_process) return run_in_process(path, limits, child, parent);
  const uint64_t mapped = mapped_bytes();
  const uint64_t address_space = mapped != 0 ? mapped + limits.memory_bytes : 0;
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return reader_error(path, "cannot make a pipe for the reader process");
  const pid_t pid = fork();
  if (pid < 0) {
    close(ends[0]);
    close(ends[1]);
    return reader_error(path, "cannot start the reader process");
  }
  if (pid == 0) {
    close(ends[0]);
    enter_child(ends[1], limits, address_space);
    _exit(child(kChildFd) ? 0 : 1);  // never back into the caller's stack
  }
  close(ends[1]);
#ifdef F_SETPIPE_SZ
  fcntl(ends[0], F_SETPIPE_SZ, 1 << 20);  // fewer round trips for large tensors; best effort
#endif
  ChildStream stream(ends[0], std::chrono::steady_clock::now() + std::chrono::seconds(limits.wall_seconds));
  const Status read = parent(stream);
  close(ends[0]);
  // Stopped before the end (its own bound, the child's error record, the deadline): the
  // child may still be running or blocked writing; it is not needed any more.
  if (!stream.ended()) kill(pid, SIGKILL);
  int status = 0;
  const bool reaped = reap(pid, &status);
  if (stream.timed_out()) {
    return reader_error(path, "the reader process gave no answer within " + std::to_string(limits.wall_seconds) +
                                  " s (stopped)");
  }
  if (stream.ended() && reaped && WIFSIGNALED(status)) return child_death(path, limits, status);
  if (!read.ok() && stream.ended() && reaped && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    return Status::error(StatusCode::kInvalidModel, "the reader process for '%s' failed (exit code %d): the file is "
                         "corrupt or needs more memory than allowed", path.c_str(), WEXITSTATUS(status));
  }
  return read;
}

}  // namespace convert
}  // namespace focal
