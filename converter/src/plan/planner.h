// The memory planner: places every non-constant tensor in one arena so that tensors
// alive at the same time never share bytes, with as little arena as a greedy
// "largest first, lowest free offset" placement finds (as TFLite Micro's offline
// planner does). The converter runs it on the host; the result is stored in the file.
#pragma once

#include <cstdint>

#include "focal/internal/graph.h"

namespace focal {

struct PlanItem {
  uint64_t bytes;  // 0 = not planned (constants)
  Lifetime lifetime;
};

// Writes offsets[i] for every item with bytes > 0 (each a multiple of `alignment`) and
// returns the arena size. `order` is scratch space for `count` indices. O(count^2).
uint64_t plan_arena(const PlanItem* items, int32_t count, uint64_t alignment, uint64_t* offsets,
                    int32_t* order);

}  // namespace focal
