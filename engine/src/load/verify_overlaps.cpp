// Placement: constants never share file bytes, and tensors alive at the same time never
// share arena bytes. Both are checked in O(n log n) (a hostile 16,000-tensor file once
// took seconds in a pairwise check): the ranges are sorted by where they start, then
// swept in that order, so a range overlaps an earlier one exactly when it starts before
// the furthest end reached so far, over the whole file (constants) or over the op steps
// its lifetime spans (arena tensors: a max-tree over steps).
#include <cstdlib>

#include "focal/internal/graph.h"
#include "load/verify_checks.h"

namespace focal {
namespace verify {
namespace {

struct Range {
  uint64_t start, end;  // bytes [start, end), end > start
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

// The furthest end any range has reached, and whose range it is.
struct Reach {
  uint64_t end;
  uint32_t tensor;
};
Reach further(Reach a, Reach b) { return b.end > a.end ? b : a; }

// Max-tree over op steps 0..steps-1: raise(l, r, v) lifts every step in [l, r] to at
// least v; max(l, r) is the highest value in [l, r]. `whole` applies to a node's whole
// span, `best` is the highest value anywhere in it. Depth log2(steps) <= 15.
class StepTree {
 public:
  bool init(uint32_t steps) {
    for (leaves_ = 1; leaves_ < steps;) leaves_ *= 2;
    nodes_ = static_cast<Reach*>(std::calloc(size_t(4) * leaves_, sizeof(Reach)));
    return nodes_ != nullptr;
  }
  ~StepTree() { std::free(nodes_); }
  void raise(uint32_t l, uint32_t r, Reach v) { raise(1, 0, leaves_ - 1, l, r, v); }
  Reach max(uint32_t l, uint32_t r) const { return max(1, 0, leaves_ - 1, l, r); }

 private:
  Reach& whole(uint32_t node) const { return nodes_[2 * node]; }
  Reach& best(uint32_t node) const { return nodes_[2 * node + 1]; }

  void raise(uint32_t node, uint32_t lo, uint32_t hi, uint32_t l, uint32_t r, Reach v) {
    if (r < lo || hi < l) return;
    best(node) = further(best(node), v);
    if (l <= lo && hi <= r) {
      whole(node) = further(whole(node), v);
      return;
    }
    const uint32_t mid = lo + (hi - lo) / 2;
    raise(2 * node, lo, mid, l, r, v);
    raise(2 * node + 1, mid + 1, hi, l, r, v);
  }

  Reach max(uint32_t node, uint32_t lo, uint32_t hi, uint32_t l, uint32_t r) const {
    if (r < lo || hi < l) return Reach{0, 0};
    if (l <= lo && hi <= r) return best(node);
    const uint32_t mid = lo + (hi - lo) / 2;
    return further(whole(node), further(max(2 * node, lo, mid, l, r), max(2 * node + 1, mid + 1, hi, l, r)));
  }

  Reach* nodes_ = nullptr;
  uint32_t leaves_ = 1;
};

// Scratch for one sweep, freed on return.
struct Ranges {
  Range* items = nullptr;
  size_t count = 0;
  ~Ranges() { std::free(items); }
  bool reserve(uint32_t n) {
    items = static_cast<Range*>(std::malloc(sizeof(Range) * (size_t(n) + 1)));
    return items != nullptr;
  }
  void add(uint64_t start, uint64_t bytes, uint32_t tensor) {
    if (bytes > 0) items[count++] = Range{start, start + bytes, tensor};  // empty ones hold no bytes
  }
};

// Names the two tensors in the file's order, whichever the sweep met first.
Status overlap(const fb::Model& model, bool constants, uint32_t a, uint32_t b) {
  const char* first = name_of(*model.tensors()->Get(a < b ? a : b));
  const char* second = name_of(*model.tensors()->Get(a < b ? b : a));
  if (constants) return invalid("constants '%s' and '%s' have overlapping data", first, second);
  return invalid("memory plan puts '%s' and '%s' in the same arena bytes while both are alive", first, second);
}

Status no_memory(uint32_t tensors) {
  return Status::error(StatusCode::kResourceExhausted, "no memory for verifying the placement of %u tensors",
                       static_cast<unsigned>(tensors));
}

}  // namespace

Status check_constants_disjoint(const fb::Model& model) {
  const auto& tensors = *model.tensors();
  Ranges ranges;
  if (!ranges.reserve(tensors.size())) return no_memory(tensors.size());
  for (uint32_t t = 0; t < tensors.size(); ++t) {
    const fb::Tensor& tensor = *tensors.Get(t);
    if (tensor.role() == fb::TensorRole_Constant) ranges.add(tensor.data()->offset(), tensor.data()->size(), t);
  }
  sort_by_start(ranges.items, ranges.count);
  Reach reach{0, 0};
  for (size_t i = 0; i < ranges.count; ++i) {
    const Range& r = ranges.items[i];
    if (r.start < reach.end) {
      return overlap(model, true, reach.tensor, r.tensor);
    }
    reach = further(reach, Reach{r.end, r.tensor});
  }
  return Status();
}

// Steps run from -1 (model inputs) to op_count (model outputs): tree index step + 1.
Status check_plan_overlaps(const fb::Model& model, GraphScratch& scratch) {
  compute_lifetimes(model, scratch.lifetimes);
  const auto& tensors = *model.tensors();
  Ranges ranges;
  StepTree alive;
  if (!ranges.reserve(tensors.size()) || !alive.init(model.ops()->size() + 2)) return no_memory(tensors.size());
  for (uint32_t t = 0; t < tensors.size(); ++t) {
    const fb::Tensor& tensor = *tensors.Get(t);
    uint64_t bytes = 0;  // check_tensors established that the size is known and bounded
    if (tensor.role() != fb::TensorRole_Constant && tensor_max_bytes(tensor, &bytes)) {
      ranges.add(tensor.arena_offset(), bytes, t);
    }
  }
  sort_by_start(ranges.items, ranges.count);
  for (size_t i = 0; i < ranges.count; ++i) {
    const Range& r = ranges.items[i];
    const Lifetime& life = scratch.lifetimes[r.tensor];
    const uint32_t first = static_cast<uint32_t>(life.first + 1), last = static_cast<uint32_t>(life.last + 1);
    const Reach earlier = alive.max(first, last);  // ranges that start at or before this one
    if (earlier.end > r.start) {
      return overlap(model, false, earlier.tensor, r.tensor);
    }
    alive.raise(first, last, Reach{r.end, r.tensor});
  }
  return Status();
}

}  // namespace verify
}  // namespace focal
