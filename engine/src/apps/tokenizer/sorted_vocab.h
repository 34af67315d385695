// The tokenizer's vocabulary in string order (sorted_vocab, checked at load to be a
// permutation of the ids in that order), walked a byte at a time: what WordPiece and
// the unigram model use to find every piece a text position begins with.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal_generated.h"

namespace focal {
namespace tokenizer {

// Entries [lo, hi) of sorted_vocab that begin with a string s: those that begin with s
// followed by byte c, found by two binary searches on the byte at `depth` = |s| (an entry
// that is s itself sorts first, as if that byte were -1). Walking a text forward byte by
// byte this way finds every vocabulary entry that is a prefix of it, and stops as soon as
// none can be, without comparing whole strings.
struct Prefix {
  size_t lo, hi, depth;  // depth: the bytes every entry in [lo, hi) shares
};

struct SortedVocab {
  const flatbuffers::Vector<int32_t>& order;
  const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>& strings;

  explicit SortedVocab(const fb::Tokenizer& t) : order(*t.sorted_vocab()), strings(*t.vocab()) {}
  Prefix all() const { return Prefix{0, order.size(), 0}; }
  int32_t id(size_t sorted) const { return order.Get(static_cast<uint32_t>(sorted)); }
  int byte_at(size_t sorted, size_t depth) const {
    const flatbuffers::String& s = *strings.Get(static_cast<uint32_t>(id(sorted)));
    return depth < s.size() ? static_cast<uint8_t>(s.c_str()[depth]) : -1;
  }

  // Narrows p by one more byte c; false when no entry remains.
  bool extend(Prefix* p, uint8_t c) const {
    size_t lo = p->lo, hi = p->hi;
    while (lo < hi) {  // the first entry whose byte is >= c
      const size_t mid = (lo + hi) / 2;
      if (byte_at(mid, p->depth) < c) lo = mid + 1; else hi = mid;
    }
    size_t end = lo, top = p->hi;
    while (end < top) {  // the first entry whose byte is > c
      const size_t mid = (end + top) / 2;
      if (byte_at(mid, p->depth) <= c) end = mid + 1; else top = mid;
    }
    p->lo = lo;
    p->hi = end;
    ++p->depth;
    return lo < end;
  }

  // The id of the entry that is exactly the string p stands for, or -1 (it sorts first).
  int32_t exact(const Prefix& p) const {
    return p.lo < p.hi && byte_at(p.lo, p.depth) == -1 ? id(p.lo) : -1;
  }
};

}  // namespace tokenizer
}  // namespace focal
