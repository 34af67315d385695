// What the C API's entry points share: the handle types behind the opaque pointers of
// focal/c_api.h, recording an error for focal_last_error(), the exception boundary, and
// the C API's own memory (handles, owned arenas and copies), all allocated with malloc
// so nothing here can throw.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <optional>
#include <utility>
#if defined(__cpp_exceptions)
#include <exception>
#endif

#include "focal/c_api.h"
#include "focal/generate.h"
#include "focal/model.h"
#include "focal/session.h"
#include "focal/status.h"
#include "focal/tokenizer.h"
#include "focal/translate.h"

namespace focal {
namespace capi {

// Records `status` as the calling thread's last error under `code` and returns `code`.
focal_status fail(focal_status code, const Status& status);
// The same with the engine's own code (the first seven values of focal_status are
// StatusCode's), or FOCAL_OK (recording nothing) for an ok status.
focal_status fail(const Status& status);
// An exception stopped at entry point `function`; `what` may be null.
focal_status caught(const char* function, const char* what);
// The first argument of `function` named `parameter` was NULL.
focal_status null_argument(const char* function, const char* parameter);

// A block of at least `bytes` bytes aligned to `alignment`, from malloc (empty when
// that fails); the caller frees it with release().
struct AlignedBlock {
  void* raw = nullptr;
  void* data = nullptr;
  bool allocate(size_t bytes, size_t alignment);
  void release();
};

// Handles live in malloc'd memory, built in place.
template <class T, class... Args>
T* new_handle(Args&&... args) {
  void* memory = std::malloc(sizeof(T));
  return memory == nullptr ? nullptr : new (memory) T(std::forward<Args>(args)...);
}
template <class T>
void delete_handle(T* handle) {
  if (handle == nullptr) return;
  handle->~T();
  std::free(handle);
}

// The platform's file mapping and thread pool (platform_linux.cpp; platform_none.cpp
// where there are neither: bare-metal firmware).
struct MappedBytes;
focal_status map_file(const char* path, MappedBytes** file, const uint8_t** data, size_t* size);
void unmap_file(MappedBytes* file);
focal_status make_thread_pool(int32_t threads, ParallelFor** pool);
void free_thread_pool(ParallelFor* pool);

}  // namespace capi
}  // namespace focal

// A failure with a printf-style message (checked like Status::error's format).
#define FOCAL_C_FAIL(code, ...) \
  ::focal::capi::fail(code, ::focal::Status::error(::focal::StatusCode::kInvalidArgument, __VA_ARGS__))
// Returns FOCAL_INVALID_ARGUMENT from the enclosing entry point when `pointer` is NULL.
#define FOCAL_C_REQUIRE(pointer) \
  do {                                                                     \
    if ((pointer) == nullptr) return ::focal::capi::null_argument(__func__, #pointer); \
  } while (0)
// The exception boundary around an entry point's body: FOCAL_C_TRY { ... } FOCAL_C_CATCH.
// Builds without exceptions (-fno-exceptions firmware) cannot throw, and keep the body.
#if defined(__cpp_exceptions)
#define FOCAL_C_TRY try
#define FOCAL_C_CATCH                                                              \
  catch (const std::exception& exception) {                                        \
    return ::focal::capi::caught(__func__, exception.what());                      \
  }                                                                                \
  catch (...) {                                                                    \
    return ::focal::capi::caught(__func__, nullptr);                               \
  }
#else
#define FOCAL_C_TRY
#define FOCAL_C_CATCH
#endif

struct focal_model {
  focal::Model model;
  focal::capi::AlignedBlock copy;             // FOCAL_LOAD_COPY: the bytes the model reads
  focal::capi::MappedBytes* file = nullptr;  // focal_model_load_file: the mapping
  // The sessions and tokenizers that read this model, and (kModelReleased) whether
  // focal_model_free was called: one word, so one atomic step decides who frees it.
  mutable std::atomic<uint32_t> holds{0};
  focal_model(const focal::Model& m, focal::capi::AlignedBlock c, focal::capi::MappedBytes* f)
      : model(m), copy(c), file(f) {}
  focal_model(const focal_model&) = delete;
  focal_model& operator=(const focal_model&) = delete;
  ~focal_model() {
    copy.release();
    focal::capi::unmap_file(file);
  }
};

struct focal_session_options {
  int32_t threads = 1;
  int64_t max_batch = 0;
  int64_t max_seq = 0;
  void* arena = nullptr;  // caller-owned, or null: the session allocates one
  size_t arena_bytes = 0;
};

struct focal_session {
  const focal_model* model;
  focal::ParallelFor* pool;         // owned; null for one thread
  focal::capi::AlignedBlock arena;  // owned; empty when the caller gave the arena
  focal::Session session;
  // Set while an entry point uses the session: a second thread is refused, not let in
  // to share its arena (two focal_generate calls on one session crashed).
  mutable std::atomic<bool> busy{false};
  focal_session(const focal_model* m, focal::ParallelFor* p, focal::capi::AlignedBlock a, const focal::Session& s)
      : model(m), pool(p), arena(a), session(s) {}
  focal_session(const focal_session&) = delete;
  focal_session& operator=(const focal_session&) = delete;
  ~focal_session() {
    arena.release();
    focal::capi::free_thread_pool(pool);
  }
};

struct focal_generator {
  focal_session* session;
  size_t vocab;
  void* scratch;  // sampler_scratch_bytes(vocab), owned
  focal::Sampler sampler;
  focal_generator(focal_session* s, size_t v, void* memory, const focal::Sampler& sampler_)
      : session(s), vocab(v), scratch(memory), sampler(sampler_) {}
  focal_generator(const focal_generator&) = delete;
  focal_generator& operator=(const focal_generator&) = delete;
  ~focal_generator() { std::free(scratch); }
};

struct focal_translator {
  focal_session* session = nullptr;
  focal::TranslateOptions options;
  size_t max_source_length = 0;
  focal::capi::AlignedBlock scratch;  // translate_scratch_bytes, owned
  std::optional<focal::Tokenizer> tokenizer;  // the model's source-side one, if stored
  focal::capi::AlignedBlock text_ids;         // max_source_length ids for a text's source
  focal::capi::AlignedBlock encode_scratch;   // encode_scratch_bytes(4 * max_source_length)
  focal_translator() = default;
  focal_translator(const focal_translator&) = delete;
  focal_translator& operator=(const focal_translator&) = delete;
  ~focal_translator() {
    scratch.release();
    text_ids.release();
    encode_scratch.release();
  }
};

struct focal_tokenizer {
  const focal_model* model = nullptr;  // held (focal::capi::hold_model) while the tokenizer lives
  focal::Tokenizer tokenizer;
  size_t max_text_bytes;
  focal::capi::AlignedBlock scratch;  // encode_scratch_bytes(max_text_bytes), owned
  focal_tokenizer(const focal::Tokenizer& t, size_t bytes, focal::capi::AlignedBlock s)
      : tokenizer(t), max_text_bytes(bytes), scratch(s) {}
  focal_tokenizer(const focal_tokenizer&) = delete;
  focal_tokenizer& operator=(const focal_tokenizer&) = delete;
  ~focal_tokenizer() { scratch.release(); }
};

namespace focal {
namespace capi {

// A model freed while sessions or tokenizers still read it is only marked; the last of
// them frees it (it was a use-after-free). hold_model when a dependent is made,
// drop_model when it is freed; release_model is focal_model_free: FOCAL_OK when it
// freed the model, else FOCAL_INVALID_ARGUMENT naming how many still hold it.
constexpr uint32_t kModelReleased = 1u << 31;
void hold_model(const focal_model* model);
void drop_model(const focal_model* model);
focal_status release_model(focal_model* model);

// An entry point's exclusive use of a session for its duration (RAII): `held()` is false
// when another thread is inside the session, and nothing was taken.
class SessionUse {
 public:
  explicit SessionUse(const focal_session* session)
      : session_(session), held_(!session->busy.exchange(true, std::memory_order_acquire)) {}
  ~SessionUse() {
    if (held_) session_->busy.store(false, std::memory_order_release);
  }
  SessionUse(const SessionUse&) = delete;
  SessionUse& operator=(const SessionUse&) = delete;
  bool held() const { return held_; }

 private:
  const focal_session* session_;
  bool held_;
};
// The error for a session another thread is using.
focal_status session_in_use(const char* function);

}  // namespace capi
}  // namespace focal

// Takes the session for the rest of the entry point, or returns FOCAL_INVALID_ARGUMENT
// when another thread has it (sessions run on one thread at a time).
#define FOCAL_C_USE_SESSION(session)                                     \
  const ::focal::capi::SessionUse session_use_(session);                 \
  if (!session_use_.held()) return ::focal::capi::session_in_use(__func__)
