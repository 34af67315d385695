#include "plan/planner.h"

namespace focal {
namespace {

// Insertion sort of item indices by size, largest first; ties by index so the plan is
// deterministic. Models have at most a few thousand activations.
void order_by_size(const PlanItem* items, int32_t count, int32_t* order) {
  for (int32_t i = 0; i < count; ++i) {
    int32_t j = i;
    while (j > 0 && items[order[j - 1]].bytes < items[i].bytes) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = i;
  }
}

// The lowest aligned offset at which `item` overlaps no already placed item that is
// alive at the same time. Candidates: 0 and the end of every conflicting item.
uint64_t lowest_free_offset(const PlanItem* items, const int32_t* order, int32_t placed,
                            const uint64_t* offsets, const PlanItem& item, uint64_t alignment) {
  uint64_t best = UINT64_MAX;
  for (int32_t c = -1; c < placed; ++c) {
    uint64_t candidate = 0;
    if (c >= 0) {
      const PlanItem& other = items[order[c]];
      if (!lifetimes_overlap(other.lifetime, item.lifetime)) continue;
      candidate = align_up(offsets[order[c]] + other.bytes, alignment);
    }
    if (candidate >= best) continue;
    bool fits = true;
    for (int32_t k = 0; k < placed && fits; ++k) {
      const PlanItem& other = items[order[k]];
      if (!lifetimes_overlap(other.lifetime, item.lifetime)) continue;
      const uint64_t begin = offsets[order[k]];
      fits = candidate + item.bytes <= begin || begin + other.bytes <= candidate;
    }
    if (fits) best = candidate;
  }
  return best;
}

}  // namespace

uint64_t plan_arena(const PlanItem* items, int32_t count, uint64_t alignment, uint64_t* offsets,
                    int32_t* order) {
  order_by_size(items, count, order);
  uint64_t arena = 0;
  int32_t placed = 0;
  for (int32_t i = 0; i < count; ++i) {
    const PlanItem& item = items[order[i]];
    if (item.bytes == 0) break;  // sorted: the rest are unplanned constants
    const uint64_t offset = lowest_free_offset(items, order, placed, offsets, item, alignment);
    offsets[order[i]] = offset;
    if (offset + item.bytes > arena) arena = offset + item.bytes;
    ++placed;
  }
  for (int32_t i = placed; i < count; ++i) offsets[order[i]] = 0;
  return align_up(arena, alignment);
}

}  // namespace focal
