// focal_session_options_* and focal_session_*: limits, the arena (the caller's or one
// the session owns), an optional thread pool, inputs and outputs by index or name, run,
// stages and the self-test. Each maps onto focal::Session.
#include "c_api_internal.h"
#include "focal/self_test.h"

namespace focal {
namespace capi {
namespace {

constexpr int32_t kMaxThreads = 1024;  // as focal::ThreadPool::kMaxWorkers

// Stands in for a session's pool when only sizes are asked: the arena's op workspace
// grows with the workers (one scratch slice each), so the size must count them.
class WorkerCount final : public ParallelFor {
 public:
  explicit WorkerCount(int workers) : workers_(workers) {}
  int workers() const override { return workers_; }
  void run(size_t, void (*)(void*, size_t, int), void*) override {}

 private:
  int workers_;
};

SessionOptions engine_options(const focal_session_options* options, ParallelFor* parallel) {
  SessionOptions engine;
  if (options != nullptr) {
    engine.max_batch = options->max_batch;
    engine.max_seq = options->max_seq;
  }
  engine.parallel = parallel;
  return engine;
}

int32_t threads_of(const focal_session_options* options) { return options != nullptr ? options->threads : 1; }

focal_status bad_index(const char* what, int32_t index, int count) {
  return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "%s %d does not exist (the session has %d)", what,
                      static_cast<int>(index), count);
}

// The caller's arena, or one of `needed` bytes the session will own.
focal_status arena_for(const focal_session_options* options, size_t needed, AlignedBlock* owned, void** arena,
                       size_t* bytes) {
  if (options != nullptr && options->arena != nullptr) {
    *arena = options->arena;
    *bytes = options->arena_bytes;
    return FOCAL_OK;
  }
  if (!owned->allocate(needed, kBufferAlignment)) {
    return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for an arena of %zu bytes", needed);
  }
  *arena = owned->data;
  *bytes = needed;
  return FOCAL_OK;
}

focal_status create_session(const focal_model* model, const focal_session_options* options, focal_session** out) {
  ParallelFor* pool = nullptr;
  const focal_status pooled = make_thread_pool(threads_of(options), &pool);
  if (pooled != FOCAL_OK) return pooled;
  const SessionOptions engine = engine_options(options, pool);
  auto needed = Session::required_arena_bytes(model->model, engine);
  focal_status status = needed.ok() ? FOCAL_OK : fail(needed.status());
  AlignedBlock owned;
  void* arena = nullptr;
  size_t bytes = 0;
  if (status == FOCAL_OK) status = arena_for(options, needed.value(), &owned, &arena, &bytes);
  if (status == FOCAL_OK) {
    auto session = Session::create(model->model, engine, arena, bytes);
    if (!session.ok()) status = fail(session.status());
    if (status == FOCAL_OK) *out = new_handle<focal_session>(model, pool, owned, session.value());
    if (status == FOCAL_OK && *out != nullptr) hold_model(model);
    if (status == FOCAL_OK && *out == nullptr) {
      status = FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for a session handle");
    }
  }
  if (status != FOCAL_OK) {
    owned.release();
    free_thread_pool(pool);
  }
  return status;
}

focal_status view_of(const Session& session, int32_t index, focal_tensor* tensor) {
  if (index < 0 || index >= session.output_count()) return bad_index("output", index, session.output_count());
  const TensorView view = session.output(index);
  *tensor = focal_tensor{};
  tensor->name = view.name;
  tensor->dtype = static_cast<focal_dtype>(view.dtype);
  tensor->shape.rank = view.shape.rank;
  for (int d = 0; d < view.shape.rank; ++d) tensor->shape.dims[d] = view.shape.dims[d];
  tensor->data = view.data;
  tensor->bytes = size_t(view.shape.element_count()) * dtype_size(view.dtype);
  return FOCAL_OK;
}

Shape engine_shape(const focal_shape& shape) {
  Shape s;
  s.rank = shape.rank;
  for (int d = 0; d < shape.rank && d < kMaxRank; ++d) s.dims[d] = shape.dims[d];
  return s;
}

focal_status set_input(focal_session* session, int32_t index, const focal_shape* shape, const void* data,
                       size_t bytes) {
  if (shape->rank < 0 || shape->rank > FOCAL_MAX_RANK) {
    return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "shape rank %d is outside 0 to %d", static_cast<int>(shape->rank),
                        FOCAL_MAX_RANK);
  }
  return fail(session->session.set_input(index, engine_shape(*shape), data, bytes));
}

}  // namespace
}  // namespace capi
}  // namespace focal

using namespace focal;

extern "C" {

focal_status focal_session_options_create(focal_session_options** options) noexcept {
  FOCAL_C_REQUIRE(options);
  *options = capi::new_handle<focal_session_options>();
  if (*options == nullptr) return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for session options");
  return FOCAL_OK;
}

void focal_session_options_free(focal_session_options* options) noexcept { capi::delete_handle(options); }

focal_status focal_session_options_set_threads(focal_session_options* options, int32_t threads) noexcept {
  FOCAL_C_REQUIRE(options);
  if (threads < 1 || threads > capi::kMaxThreads) {
    return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "threads must be 1 to %d, given %d", static_cast<int>(capi::kMaxThreads),
                        static_cast<int>(threads));
  }
  options->threads = threads;
  return FOCAL_OK;
}

focal_status focal_session_options_set_max_batch(focal_session_options* options, int64_t max_batch) noexcept {
  FOCAL_C_REQUIRE(options);
  if (max_batch < 0) return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "max_batch is negative");
  options->max_batch = max_batch;
  return FOCAL_OK;
}

focal_status focal_session_options_set_max_seq(focal_session_options* options, int64_t max_seq) noexcept {
  FOCAL_C_REQUIRE(options);
  if (max_seq < 0) return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "max_seq is negative");
  options->max_seq = max_seq;
  return FOCAL_OK;
}

focal_status focal_session_options_set_arena(focal_session_options* options, void* arena, size_t bytes) noexcept {
  FOCAL_C_REQUIRE(options);
  options->arena = arena;
  options->arena_bytes = arena != nullptr ? bytes : 0;
  return FOCAL_OK;
}

focal_status focal_session_required_arena_bytes(const focal_model* model, const focal_session_options* options,
                                                size_t* bytes) noexcept {
  FOCAL_C_REQUIRE(model);
  FOCAL_C_REQUIRE(bytes);
  capi::WorkerCount workers(capi::threads_of(options));
  auto needed = Session::required_arena_bytes(model->model, capi::engine_options(options, &workers));
  if (!needed.ok()) return capi::fail(needed.status());
  *bytes = needed.value();
  return FOCAL_OK;
}

focal_status focal_session_create(const focal_model* model, const focal_session_options* options,
                                  focal_session** session) noexcept {
  FOCAL_C_REQUIRE(session);
  *session = nullptr;
  FOCAL_C_REQUIRE(model);
  FOCAL_C_TRY { return capi::create_session(model, options, session); }
  FOCAL_C_CATCH
}

void focal_session_free(focal_session* session) noexcept {
  if (session == nullptr) return;
  const focal_model* model = session->model;
  capi::delete_handle(session);
  capi::drop_model(model);
}

focal_status focal_session_set_input(focal_session* session, int32_t index, const focal_shape* shape, const void* data,
                                     size_t bytes) noexcept {
  FOCAL_C_REQUIRE(session);
  FOCAL_C_REQUIRE(shape);
  FOCAL_C_REQUIRE(data);
  FOCAL_C_USE_SESSION(session);
  return capi::set_input(session, index, shape, data, bytes);
}

focal_status focal_session_set_input_by_name(focal_session* session, const char* name, const focal_shape* shape,
                                             const void* data, size_t bytes) noexcept {
  FOCAL_C_REQUIRE(session);
  FOCAL_C_REQUIRE(name);
  FOCAL_C_REQUIRE(shape);
  FOCAL_C_REQUIRE(data);
  FOCAL_C_USE_SESSION(session);
  const int index = session->session.find_input(name);
  if (index < 0) return FOCAL_C_FAIL(FOCAL_NOT_FOUND, "the model has no input named '%s'", name);
  return capi::set_input(session, index, shape, data, bytes);
}

focal_status focal_session_run(focal_session* session) noexcept {
  FOCAL_C_REQUIRE(session);
  FOCAL_C_USE_SESSION(session);
  FOCAL_C_TRY { return capi::fail(session->session.run()); }
  FOCAL_C_CATCH
}

focal_status focal_session_find_stage(const focal_session* session, const char* name, int32_t* index) noexcept {
  FOCAL_C_REQUIRE(session);
  FOCAL_C_REQUIRE(name);
  FOCAL_C_REQUIRE(index);
  const int stage = session->session.find_stage(name);
  if (stage < 0) return FOCAL_C_FAIL(FOCAL_NOT_FOUND, "the model has no stage named '%s'", name);
  *index = stage;
  return FOCAL_OK;
}

focal_status focal_session_run_stage(focal_session* session, int32_t index) noexcept {
  FOCAL_C_REQUIRE(session);
  FOCAL_C_USE_SESSION(session);
  FOCAL_C_TRY { return capi::fail(session->session.run_stage(index)); }
  FOCAL_C_CATCH
}

focal_status focal_session_output(const focal_session* session, int32_t index, focal_tensor* tensor) noexcept {
  FOCAL_C_REQUIRE(session);
  FOCAL_C_REQUIRE(tensor);
  FOCAL_C_USE_SESSION(session);
  return capi::view_of(session->session, index, tensor);
}

focal_status focal_session_output_by_name(const focal_session* session, const char* name,
                                          focal_tensor* tensor) noexcept {
  FOCAL_C_REQUIRE(session);
  FOCAL_C_REQUIRE(name);
  FOCAL_C_REQUIRE(tensor);
  FOCAL_C_USE_SESSION(session);
  const int index = session->session.find_output(name);
  if (index < 0) return FOCAL_C_FAIL(FOCAL_NOT_FOUND, "the model has no output named '%s'", name);
  return capi::view_of(session->session, index, tensor);
}

int64_t focal_session_cached_length(const focal_session* session) noexcept {
  return session == nullptr ? -1 : session->session.cached_length();
}

focal_status focal_session_reset_state(focal_session* session) noexcept {
  FOCAL_C_REQUIRE(session);
  FOCAL_C_USE_SESSION(session);
  session->session.reset_state();
  return FOCAL_OK;
}

focal_status focal_session_self_test(focal_session* session, focal_self_test_report* report) noexcept {
  FOCAL_C_REQUIRE(session);
  FOCAL_C_REQUIRE(report);
  FOCAL_C_USE_SESSION(session);
  FOCAL_C_TRY {
    auto result = run_self_tests(session->session);
    if (!result.ok()) return capi::fail(result.status());
    report->cases = result->cases;
    report->failed_cases = result->failed_cases;
    report->max_abs_error = result->max_abs_error;
    report->worst_tolerance_ratio = result->worst_tolerance_ratio;
    return FOCAL_OK;
  }
  FOCAL_C_CATCH
}

}  // extern "C"
