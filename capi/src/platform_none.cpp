// Targets without files or threads (bare-metal firmware): models come from bytes (in
// flash or RAM), sessions run on the calling thread.
#include "c_api_internal.h"

namespace focal {
namespace capi {

struct MappedBytes {};

focal_status map_file(const char* path, MappedBytes** file, const uint8_t** data, size_t* size) {
  *file = nullptr;
  *data = nullptr;
  *size = 0;
  return FOCAL_C_FAIL(FOCAL_UNSUPPORTED, "cannot open '%s': this target has no files; load the model from bytes",
                      path);
}

void unmap_file(MappedBytes*) {}

focal_status make_thread_pool(int32_t threads, ParallelFor** pool) {
  *pool = nullptr;
  if (threads <= 1) return FOCAL_OK;
  return FOCAL_C_FAIL(FOCAL_UNSUPPORTED, "%d threads asked for: this target runs sessions on one thread",
                      static_cast<int>(threads));
}

void free_thread_pool(ParallelFor*) {}

}  // namespace capi
}  // namespace focal
