// Placement: constants never share file bytes, and tensors alive at the same time never
// share arena bytes. Both are checked in O(n log n) (a hostile 16,000-tensor file once
// took seconds in a pairwise check): the ranges are sorted by where they start, then
// swept in that order, so a range overlaps an earlier one exactly when it starts before
// the furthest end reached so far by a range alive at one of the same op steps (a
// max-tree over the steps; constants are alive at the single step of a one-leaf tree).
#include <cstdlib>

#include "focal/internal/graph.h"
#include "load/verify_checks.h"

namespace focal {
namespace verify {
namespace {

// Offsets and sizes as size_t: check_tensors placed every constant inside the file and
// every planned tensor inside an arena of at most kMaxArenaBytes (SIZE_MAX / 8), so
// they fit, and 32-bit targets compare them in one register rather than two.
struct Range {
  size_t start, end;    // bytes [start, end), end > start
  uint32_t first, last;  // tree leaves (op steps + 1) at which it is alive
  uint32_t tensor;
};

// In-place heapsort by start: O(n log n) whatever the order a hostile file chose, and
// no recursion or allocation.
void sift_down(Range* r, size_t root, size_t n) {
  for (size_t child; (child = 2 * root + 1) < n; root = child) {
    if (child + 1 < n && r[child + 1].start > r[child].start) ++child;
    if (r[root].start >= r[child].start) return;
    const Range swap = r[root];
    r[root] = r[child];
    r[child] = swap;
  }
}

void sort_by_start(Range* r, size_t n) {
  for (size_t i = n / 2; i-- > 0;) sift_down(r, i, n);
  for (size_t end = n; end-- > 1;) {
    const Range swap = r[0];
    r[0] = r[end];
    r[end] = swap;
    sift_down(r, 0, end);
  }
}

// The furthest end a range has reached, and whose range it is.
struct Reach {
  size_t end;
  uint32_t tensor;
};
void lift(Reach& to, const Reach& v) {
  if (v.end > to.end) to = v;
}

// Max-tree over `leaves` steps, bottom-up (node i's children are 2i and 2i + 1; leaf s
// is node leaves + s): raise(l, r, v) lifts every step in [l, r] to at least v, max(l, r)
// is the highest value in [l, r]. whole(i) applies to node i's whole span, best(i) is
// the highest value anywhere in it. Every node the canonical cover of [l, r] reaches
// hangs below the paths from leaves l and r to the root, so those paths carry the rest.
struct StepTree {
  Reach* nodes = nullptr;  // whole(i) at 2i, best(i) at 2i + 1
  uint32_t leaves = 1;
  ~StepTree() { std::free(nodes); }
  bool init(uint32_t steps) {
    while (leaves < steps) leaves *= 2;
    nodes = static_cast<Reach*>(std::calloc(size_t(4) * leaves, sizeof(Reach)));
    return nodes != nullptr;
  }
  Reach& whole(uint32_t i) const { return nodes[size_t(2) * i]; }
  Reach& best(uint32_t i) const { return nodes[size_t(2) * i + 1]; }

  void raise(uint32_t l, uint32_t r, const Reach& v) const {
    for (uint32_t lo = l + leaves, hi = r + leaves + 1; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) lift(whole(lo), v), lift(best(lo++), v);
      if (hi & 1) lift(whole(--hi), v), lift(best(hi), v);
    }
    for (uint32_t i = (l + leaves) / 2; i > 0; i /= 2) lift(best(i), v);
    for (uint32_t i = (r + leaves) / 2; i > 0; i /= 2) lift(best(i), v);
  }
  Reach max(uint32_t l, uint32_t r) const {
    Reach top{0, 0};
    for (uint32_t lo = l + leaves, hi = r + leaves + 1; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) lift(top, best(lo++));
      if (hi & 1) lift(top, best(--hi));
    }
    for (uint32_t i = (l + leaves) / 2; i > 0; i /= 2) lift(top, whole(i));
    for (uint32_t i = (r + leaves) / 2; i > 0; i /= 2) lift(top, whole(i));
    return top;
  }
};

// The ranges of one check, freed on return.
struct Ranges {
  Range* items = nullptr;
  size_t count = 0;
  StepTree alive;
  ~Ranges() { std::free(items); }
  bool init(uint32_t tensors, uint32_t steps) {
    items = static_cast<Range*>(std::malloc(sizeof(Range) * (size_t(tensors) + 1)));
    return items != nullptr && alive.init(steps);
  }
  void add(uint64_t start, uint64_t bytes, uint32_t first, uint32_t last, uint32_t tensor) {
    if (bytes > 0) items[count++] = Range{size_t(start), size_t(start + bytes), first, last, tensor};  // empty ones hold no bytes
  }
  // True with the two tensors when two ranges alive at a common step share bytes.
  bool overlap(uint32_t* a, uint32_t* b) {
    sort_by_start(items, count);
    for (size_t i = 0; i < count; ++i) {
      const Range& r = items[i];
      const Reach earlier = alive.max(r.first, r.last);  // ranges that start at or before this one
      if (earlier.end > r.start) {
        *a = earlier.tensor < r.tensor ? earlier.tensor : r.tensor;  // in the file's order
        *b = earlier.tensor < r.tensor ? r.tensor : earlier.tensor;
        return true;
      }
      alive.raise(r.first, r.last, Reach{r.end, r.tensor});
    }
    return false;
  }
};

Status no_memory(uint32_t tensors) {
  return Status::error(StatusCode::kResourceExhausted, "no memory for verifying the placement of %u tensors",
                       static_cast<unsigned>(tensors));
}

}  // namespace

Status check_constants_disjoint(const fb::Model& model) {
  const auto& tensors = *model.tensors();
  Ranges ranges;
  if (!ranges.init(tensors.size(), 1)) return no_memory(tensors.size());
  for (uint32_t t = 0; t < tensors.size(); ++t) {
    const fb::Tensor& tensor = *tensors.Get(t);
    if (tensor.role() == fb::TensorRole_Constant) ranges.add(tensor.data()->offset(), tensor.data()->size(), 0, 0, t);
  }
  uint32_t a = 0, b = 0;
  if (!ranges.overlap(&a, &b)) return Status();
  return invalid("constants '%s' and '%s' have overlapping data", name_of(*tensors.Get(a)), name_of(*tensors.Get(b)));
}

// Steps run from -1 (model inputs) to op_count (model outputs): leaf step + 1.
Status check_plan_overlaps(const fb::Model& model, GraphScratch& scratch) {
  compute_lifetimes(model, scratch.lifetimes);
  const auto& tensors = *model.tensors();
  Ranges ranges;
  if (!ranges.init(tensors.size(), model.ops()->size() + 2)) return no_memory(tensors.size());
  for (uint32_t t = 0; t < tensors.size(); ++t) {
    const fb::Tensor& tensor = *tensors.Get(t);
    const Lifetime& life = scratch.lifetimes[t];
    uint64_t bytes = 0;  // check_tensors established that the size is known and bounded
    if (tensor.role() != fb::TensorRole_Constant && tensor_max_bytes(tensor, &bytes)) {
      ranges.add(tensor.arena_offset(), bytes, uint32_t(life.first + 1), uint32_t(life.last + 1), t);
    }
  }
  uint32_t a = 0, b = 0;
  if (!ranges.overlap(&a, &b)) return Status();
  return invalid("memory plan puts '%s' and '%s' in the same arena bytes while both are alive",
                 name_of(*tensors.Get(a)), name_of(*tensors.Get(b)));
}

}  // namespace verify
}  // namespace focal
