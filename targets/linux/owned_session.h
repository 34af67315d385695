// Memory a Linux program owns for the engine: a block aligned to kBufferAlignment (a
// session's arena, or a model's bytes copied out of a buffer), and a session over an
// arena of its own. The focal tool, focal serve and the Python module allocate through
// these, so the rule (malloc, aligned, freed with the owner, a clear error when memory
// runs out) is written once. (The C API keeps a malloc block of its own: the same
// sources build for bare metal, where this library does not exist.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "focal/model.h"
#include "focal/session.h"
#include "focal/status.h"
#include "thread_pool.h"

namespace focal {

// At least `size` bytes at a kBufferAlignment boundary, from malloc; freed with it.
// Move-only; empty (data() null) until allocate() succeeds.
class AlignedBlock {
 public:
  AlignedBlock() = default;
  AlignedBlock(AlignedBlock&& other) noexcept;
  AlignedBlock& operator=(AlignedBlock&& other) noexcept;
  AlignedBlock(const AlignedBlock&) = delete;
  AlignedBlock& operator=(const AlignedBlock&) = delete;
  ~AlignedBlock() { release(); }

  // Frees what it held, then allocates `size` bytes; kResourceExhausted naming `what`
  // ("an arena", "the model's bytes") when malloc fails or the size overflows.
  Status allocate(size_t size, const char* what);
  void release();

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* raw_ = nullptr;  // what malloc returned
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// A session over an arena of its own, sized by Session::required_arena_bytes for the
// options, and optionally a thread pool of its own. The model (and a caller's
// options.parallel) must outlive it.
class OwnedSession {
 public:
  OwnedSession() = default;
  OwnedSession(OwnedSession&&) = default;
  OwnedSession& operator=(OwnedSession&&) = default;

  // Sizes the arena for these options, allocates it and creates the session; `out` is
  // left empty on failure.
  static Status open(const Model& model, const SessionOptions& options, OwnedSession* out);
  // The same on a ThreadPool of `threads` workers of its own (options.parallel becomes
  // it); the pool's status when it could not start them all.
  static Status open(const Model& model, SessionOptions options, int threads, OwnedSession* out);

  Session& session() const { return *session_; }
  size_t arena_bytes() const { return arena_.size(); }

 private:
  std::unique_ptr<ThreadPool> pool_;  // destroyed after the session that uses it
  AlignedBlock arena_;
  std::unique_ptr<Session> session_;
};

}  // namespace focal
