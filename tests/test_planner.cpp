#include <doctest/doctest.h>

#include <vector>

#include "plan/planner.h"

using focal::Lifetime;
using focal::PlanItem;

namespace {

// Every pair alive together must be disjoint, and every offset aligned.
void check_plan(const std::vector<PlanItem>& items, const std::vector<uint64_t>& offsets,
                uint64_t arena, uint64_t alignment) {
  for (size_t a = 0; a < items.size(); ++a) {
    if (items[a].bytes == 0) continue;
    CHECK(offsets[a] % alignment == 0);
    CHECK(offsets[a] + items[a].bytes <= arena);
    for (size_t b = a + 1; b < items.size(); ++b) {
      if (items[b].bytes == 0 || !focal::lifetimes_overlap(items[a].lifetime, items[b].lifetime))
        continue;
      const bool disjoint =
          offsets[a] + items[a].bytes <= offsets[b] || offsets[b] + items[b].bytes <= offsets[a];
      CHECK(disjoint);
    }
  }
}

}  // namespace

TEST_CASE("planner reuses memory of dead tensors in a chain") {
  // A chain t0 -> t1 -> t2 -> t3: only neighbours are alive together.
  std::vector<PlanItem> items = {
      {100, Lifetime{-1, 0}}, {200, Lifetime{0, 1}}, {100, Lifetime{1, 2}}, {200, Lifetime{2, 3}}};
  std::vector<uint64_t> offsets(items.size());
  std::vector<int32_t> order(items.size());
  const uint64_t arena = focal::plan_arena(items.data(), 4, 64, offsets.data(), order.data());
  check_plan(items, offsets, arena, 64);
  // The 100-byte tensors share [0, 128) and the 200-byte ones [128, 328) or the mirror
  // image; no placement does better once offsets are multiples of 64: 384 bytes.
  CHECK(arena == 384);
}

TEST_CASE("planner on random lifetimes never overlaps live tensors") {
  uint32_t state = 7;
  const auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 1 + static_cast<int>(next() % 40);
    std::vector<PlanItem> items(n);
    for (auto& item : items) {
      const int32_t first = static_cast<int32_t>(next() % 20) - 1;
      item.lifetime = {first, first + static_cast<int32_t>(next() % 6)};
      item.bytes = (next() % 5 == 0) ? 0 : 1 + next() % 5000;
    }
    std::vector<uint64_t> offsets(n);
    std::vector<int32_t> order(n);
    const uint64_t arena = focal::plan_arena(items.data(), n, 64, offsets.data(), order.data());
    check_plan(items, offsets, arena, 64);
    CHECK(arena % 64 == 0);
  }
}
