// Linux: models mapped read-only from files (focal::MappedFile) and sessions' worker
// threads (focal::ThreadPool), from targets/linux.
#include "c_api_internal.h"
#include "mapped_file.h"
#include "thread_pool.h"

namespace focal {
namespace capi {

struct MappedBytes {
  MappedFile file;
};

focal_status map_file(const char* path, MappedBytes** file, const uint8_t** data, size_t* size) {
  auto mapped = MappedFile::open(path);
  if (!mapped.ok()) return fail(mapped.status());
  *file = new_handle<MappedBytes>(MappedBytes{std::move(mapped.value())});
  if (*file == nullptr) return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for a file mapping");
  *data = (*file)->file.data();
  *size = (*file)->file.size();
  return FOCAL_OK;
}

void unmap_file(MappedBytes* file) { delete_handle(file); }

focal_status make_thread_pool(int32_t threads, ParallelFor** pool) {
  *pool = nullptr;
  if (threads <= 1) return FOCAL_OK;
  auto* threaded = new_handle<ThreadPool>(threads);
  if (threaded == nullptr) return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for a thread pool");
  if (!threaded->status().ok()) {  // it would run on one thread: say so instead
    const focal_status status = fail(threaded->status());
    delete_handle(threaded);
    return status;
  }
  *pool = threaded;
  return FOCAL_OK;
}

void free_thread_pool(ParallelFor* pool) { delete_handle(static_cast<ThreadPool*>(pool)); }

}  // namespace capi
}  // namespace focal
