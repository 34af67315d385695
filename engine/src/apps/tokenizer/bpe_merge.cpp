// BPE merges: the rule table lookup and the merging of a run of symbols by rank.
#include "apps/tokenizer/bpe_merge.h"

#include "apps/tokenizer/byte_unicode.h"
#include "focal/tokenizer.h"
#include "focal_generated.h"

namespace focal {
namespace {

// A binary min-heap of 64-bit keys in caller memory.
void heap_push(uint64_t* heap, size_t* size, uint64_t key) {
  size_t at = (*size)++;
  while (at > 0) {
    const size_t parent = (at - 1) / 2;
    if (heap[parent] <= key) break;
    heap[at] = heap[parent];
    at = parent;
  }
  heap[at] = key;
}

uint64_t heap_pop(uint64_t* heap, size_t* size) {
  const uint64_t top = heap[0];
  const uint64_t last = heap[--*size];
  const size_t n = *size;
  size_t at = 0;
  for (;;) {
    size_t child = 2 * at + 1;
    if (child >= n) break;
    if (child + 1 < n && heap[child + 1] < heap[child]) ++child;
    if (last <= heap[child]) break;
    heap[at] = heap[child];
    at = child;
  }
  if (n > 0) heap[at] = last;
  return top;
}

}  // namespace

// The token `left` and `right` merge into, with its rank; -1 when they do not merge.
int32_t Tokenizer::merge(int32_t left, int32_t right, int32_t* rank) const {
  if (t_->merge_rules() == nullptr) return -1;
  const auto& rules = *t_->merge_rules();
  size_t lo = 0, hi = rules.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const fb::MergeRule& r = *rules.Get(static_cast<uint32_t>(mid));
    if (r.left() == left && r.right() == right) {
      *rank = r.rank();
      return r.merged();
    }
    if (r.left() < left || (r.left() == left && r.right() < right)) lo = mid + 1; else hi = mid;
  }
  return -1;
}

using tokenizer::BpeWork;
using tokenizer::kNone;

// The symbols (token and offset set in `work`, a BpeWork; token -1: unknown) merge, the
// adjacent pair with the lowest rank first (the leftmost among equals), until none can
// (GPT-2's bpe(); SentencePiece's BPE, whose ranks are the merged pieces' scores). The
// symbols form a linked list and the mergeable pairs a min-heap keyed by (rank,
// position), so n symbols take O(n log n). The heap is lazy: a merge pushes the two
// pairs it changes, and a popped key that no longer matches its pair is skipped. The
// result is appended to ids; an unknown symbol spans text from its offset to the next's.
Status Tokenizer::merge_symbols(uint32_t n, void* work, int32_t* ids, size_t* count, size_t capacity,
                                const char* text, size_t text_bytes) const {
  BpeWork w(work, n);
  size_t heap_size = 0;
  for (uint32_t k = 0; k < n; ++k) {
    w.prev[k] = k == 0 ? kNone : k - 1;
    w.next[k] = k + 1 == n ? kNone : k + 1;
  }
  // Looks up the pair starting at node k (alive) and, when it merges, queues it.
  // The key orders by rank (made unsigned order-preserving), then position.
  const auto queue = [&](uint32_t k) {
    w.merged[k] = -1;
    if (w.next[k] == kNone || w.token[k] < 0 || w.token[w.next[k]] < 0) return;
    int32_t r = 0;
    const int32_t m = merge(w.token[k], w.token[w.next[k]], &r);
    if (m < 0 || r == INT32_MAX) return;  // INT32_MAX: never merged (as it never was)
    w.merged[k] = m;
    w.rank[k] = r;
    const uint64_t order = static_cast<uint32_t>(r) ^ 0x80000000u;
    heap_push(w.heap, &heap_size, (order << 32) | k);
  };
  for (uint32_t k = 0; k < n; ++k) queue(k);
  while (heap_size > 0) {
    const uint64_t key = heap_pop(w.heap, &heap_size);
    const uint32_t k = static_cast<uint32_t>(key);
    const int32_t r = static_cast<int32_t>(static_cast<uint32_t>(key >> 32) ^ 0x80000000u);
    if (w.merged[k] < 0 || w.rank[k] != r) continue;  // stale: the pair changed or k was merged away
    const uint32_t right = w.next[k];
    w.token[k] = w.merged[k];
    w.next[k] = w.next[right];
    if (w.next[k] != kNone) w.prev[w.next[k]] = k;
    w.merged[right] = -1;
    queue(k);
    if (w.prev[k] != kNone) queue(w.prev[k]);
  }
  for (uint32_t k = 0; n > 0 && k != kNone; k = w.next[k]) {
    if (w.token[k] < 0) {
      uint32_t cp = 0;
      const size_t length = tokenizer::utf8_decode(text, text_bytes, w.offset[k], &cp);
      FOCAL_RETURN_IF_ERROR(emit_unknown(text + w.offset[k], length, ids, count, capacity));
      continue;
    }
    if (*count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
    ids[(*count)++] = w.token[k];
  }
  return Status();
}

}  // namespace focal
