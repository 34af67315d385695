// How the engine runs independent tasks on several threads without owning threads:
// the caller (a Linux thread pool, or nothing on bare metal) implements ParallelFor.
// Every task is computed by exactly one worker, each in a fixed order of its own, so
// results are bitwise identical for any number of workers.
#pragma once

#include <cstddef>

namespace focal {

class ParallelFor {
 public:
  virtual ~ParallelFor() = default;
  // Number of workers; `worker` passed to a task is in [0, workers()).
  virtual int workers() const = 0;
  // Calls task(context, index, worker) once for every index in [0, count) and returns
  // when all are done. Must not allocate (it runs inside Session::run).
  virtual void run(size_t count, void (*task)(void* context, size_t index, int worker),
                   void* context) = 0;
};

}  // namespace focal
