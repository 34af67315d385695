#include "owned_session.h"

#include <cstdlib>
#include <utility>

namespace focal {

AlignedBlock::AlignedBlock(AlignedBlock&& other) noexcept
    : raw_(std::exchange(other.raw_, nullptr)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

AlignedBlock& AlignedBlock::operator=(AlignedBlock&& other) noexcept {
  if (this != &other) {
    release();
    raw_ = std::exchange(other.raw_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Status AlignedBlock::allocate(size_t size, const char* what) {
  release();
  // One alignment more than asked, so the aligned start still leaves `size` bytes (and a
  // zero-byte block is a real, freeable allocation).
  if (size <= SIZE_MAX - kBufferAlignment) raw_ = std::malloc(size + kBufferAlignment);
  if (raw_ == nullptr) {
    return Status::error(StatusCode::kResourceExhausted, "cannot allocate %s of %zu bytes", what, size);
  }
  const uintptr_t address = reinterpret_cast<uintptr_t>(raw_);
  data_ = reinterpret_cast<uint8_t*>((address + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment);
  size_ = size;
  return Status();
}

void AlignedBlock::release() {
  std::free(raw_);
  raw_ = nullptr;
  data_ = nullptr;
  size_ = 0;
}

Status OwnedSession::open(const Model& model, const SessionOptions& options, OwnedSession* out) {
  *out = OwnedSession();
  const auto needed = Session::required_arena_bytes(model, options);
  if (!needed.ok()) return needed.status();
  AlignedBlock arena;
  FOCAL_RETURN_IF_ERROR(arena.allocate(needed.value(), "an arena"));
  auto session = Session::create(model, options, arena.data(), arena.size());
  if (!session.ok()) return session.status();
  out->session_ = std::make_unique<Session>(session.value());
  out->arena_ = std::move(arena);
  return Status();
}

Status OwnedSession::open(const Model& model, SessionOptions options, int threads, OwnedSession* out) {
  *out = OwnedSession();
  auto pool = std::make_unique<ThreadPool>(threads);
  FOCAL_RETURN_IF_ERROR(pool->status());
  options.parallel = pool.get();
  FOCAL_RETURN_IF_ERROR(open(model, options, out));
  out->pool_ = std::move(pool);
  return Status();
}

}  // namespace focal
