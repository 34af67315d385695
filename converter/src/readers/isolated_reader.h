// Runs a reader that may crash on a hostile file (libhdf5: issue 32) in a forked child
// process, so that its SIGSEGV, runaway allocation or endless loop ends the child, not
// the converter. The child runs under resource limits and hands its results back over
// a pipe; the parent trusts none of what it reads (the caller bounds it) and turns the
// child's death into a Status naming the file.
//
// fork() in a process that may have other threads (the Python module calls convert
// from any thread) is acceptable here because the child only runs the reader (libhdf5,
// malloc, write) and leaves with _exit: it never returns into the caller's stack, runs
// no atexit handlers and flushes no inherited stdio buffers. glibc keeps malloc usable
// in a child of a threaded parent, and the parent never calls libhdf5 itself, so the
// child finds the library in the state it had at start.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "focal/status.h"

namespace focal {
namespace convert {

struct IsolationLimits {
  uint64_t memory_bytes = 0;  // address space the child may add to what it inherits
  unsigned cpu_seconds = 5;   // then SIGXCPU
  unsigned wall_seconds = 30;  // the parent stops waiting for output after this
  unsigned open_files = 16;   // descriptors 0..open_files-1 (the pipe's is 3)
};

// The parent's end of the pipe: reads exactly what it is asked for, or reports why not.
class ChildStream {
 public:
  ChildStream(int fd, std::chrono::steady_clock::time_point deadline) : fd_(fd), deadline_(deadline) {}
  // Exactly `size` bytes into `data`; false at the end of the stream (the child exited or
  // died), on an error or past the deadline.
  bool read(void* data, size_t size);
  bool ended() const { return ended_; }
  bool timed_out() const { return timed_out_; }

 private:
  int fd_;
  std::chrono::steady_clock::time_point deadline_;
  bool ended_ = false, timed_out_ = false;
};

// The child's end: every byte or false (the parent went away). Retries EINTR.
bool write_to_parent(int fd, const void* data, size_t size);

// Forks. The child applies `limits` (and no core file, no file writes), keeps only
// descriptors 0-2 and the pipe, runs child(fd) and _exits (0 if it returned true). The
// parent runs parent(stream), then reaps the child: if the parent stopped before the end
// of the stream, the child is killed and parent's Status returned; if the child died of
// a signal, the error names `path` and the signal; else parent's Status.
Status run_isolated(const std::string& path, const IsolationLimits& limits, const std::function<bool(int fd)>& child,
                    const std::function<Status(ChildStream& stream)>& parent);

// For the HDF5 fuzz harness only (tests/fuzz/fuzz_keras_h5.cpp); the converter never
// sets it. While set, run_isolated runs child(fd) in this process, into an in-memory
// file, then parent() on that file from its start: the same child and parent code and
// the same records, without the fork. A forked child's coverage counters die with it
// and its sanitizer reports become an exit status, so coverage-guided fuzzing of what
// the child checks needs it in process; no limits apply, so it is only for inputs that
// libhdf5 itself wrote (a malformed file's libhdf5 crash would end this process).
void set_readers_in_process(bool in_process);

}  // namespace convert
}  // namespace focal
