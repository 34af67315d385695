#include "focal/tokenizer.h"

#include <cstring>

#include "focal_generated.h"
#include "apps/tokenizer/byte_unicode.h"
#include "apps/tokenizer/charsmap.h"
#include "apps/tokenizer/pretokenize.h"
#include "apps/tokenizer/sentencepiece_text.h"
#include "apps/tokenizer/unicode.h"
#include "apps/tokenizer/wordpiece.h"

namespace focal {
namespace {

int compare(const flatbuffers::String& a, const char* b, size_t b_bytes) {
  const size_t n = a.size() < b_bytes ? a.size() : b_bytes;
  const int c = std::memcmp(a.data(), b, n);
  if (c != 0) return c;
  return a.size() < b_bytes ? -1 : (a.size() > b_bytes ? 1 : 0);
}

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

}  // namespace

Result<Tokenizer> Tokenizer::from_model(const Model& model, bool target) {
  const fb::Tokenizer* t = target ? model.schema().target_tokenizer() : model.schema().tokenizer();
  if (t == nullptr || t->vocab() == nullptr) {
    return Status::error(StatusCode::kInvalidArgument, "the model has no %stokenizer", target ? "target " : "");
  }
  if (t->kind() == fb::TokenizerKind_None || t->kind() > fb::TokenizerKind_MAX) {
    return Status::error(StatusCode::kUnsupported, "tokenizer kind %s is not supported by this engine",
                         fb::EnumNameTokenizerKind(t->kind()));
  }
  if (t->split_pattern() > fb::SplitPattern_MAX || t->normalization() > fb::TextNormalization_MAX) {
    return Status::error(StatusCode::kUnsupported, "tokenizer pre-tokenizer %u or normalization %u is not known to this engine",
                         static_cast<unsigned>(t->split_pattern()), static_cast<unsigned>(t->normalization()));
  }
  if (t->kind() != fb::TokenizerKind_ByteLevelBpe &&
      (t->split_pattern() != fb::SplitPattern_Gpt2 || t->ignore_merges() || t->normalization() != fb::TextNormalization_None)) {
    return Status::error(StatusCode::kInvalidModel, "a split pattern, ignore_merges or a normalization is for byte-level BPE only");
  }
  Tokenizer tokenizer(t);
  if (t->charsmap() != nullptr && t->charsmap()->size() > 0) {
    if (t->kind() != fb::TokenizerKind_Unigram) {
      return Status::error(StatusCode::kInvalidModel, "a SentencePiece character map is for unigram tokenizers only");
    }
    FOCAL_RETURN_IF_ERROR(tokenizer::check_charsmap(t->charsmap()->data(), t->charsmap()->size()).status());
    tokenizer.charsmap_ = t->charsmap()->data();
    tokenizer.charsmap_bytes_ = t->charsmap()->size();
  }
  if (t->kind() == fb::TokenizerKind_Unigram &&
      (t->scores() == nullptr || t->scores()->size() != t->vocab()->size())) {
    return Status::error(StatusCode::kInvalidModel, "a unigram tokenizer needs one score per piece");
  }
  for (uint32_t i = 0; i < t->vocab()->size(); ++i) {
    if (t->kind() == fb::TokenizerKind_Unigram && (i == 0 || t->scores()->Get(i) < tokenizer.min_score_)) {
      tokenizer.min_score_ = t->scores()->Get(i);
    }
  }
  if (t->byte_fallback()) {
    // A byte without its <0xXX> piece stays -1 (Gemma 2's vocabulary has no <0x09>, its tab
    // is the piece "\t"): a character needing it becomes unk, as tokenizers' BPE and Unigram
    // do when a byte piece is missing.
    for (uint32_t b = 0; b < 256; ++b) {
      char piece[6];
      tokenizer::byte_piece_text(static_cast<uint8_t>(b), piece);
      tokenizer.byte_token_[b] = tokenizer.find(piece, sizeof(piece));
    }
  }
  if (t->kind() == fb::TokenizerKind_ByteLevelBpe) {
    for (uint32_t b = 0; b < 256; ++b) {
      char utf8[2];
      const size_t n = tokenizer::utf8_encode(tokenizer::byte_to_code_point(b), utf8);
      tokenizer.byte_token_[b] = tokenizer.find(utf8, n);
      if (tokenizer.byte_token_[b] < 0) {
        return Status::error(StatusCode::kInvalidModel, "byte-level BPE vocabulary lacks the token of byte %u",
                             static_cast<unsigned>(b));
      }
    }
  }
  return tokenizer;
}

size_t Tokenizer::vocab_size() const { return t_->vocab()->size(); }

const char* Tokenizer::token_text(int32_t id, size_t* bytes) const {
  *bytes = 0;
  if (id < 0 || static_cast<size_t>(id) >= vocab_size()) return nullptr;
  const flatbuffers::String& s = *t_->vocab()->Get(static_cast<uint32_t>(id));
  *bytes = s.size();
  return s.c_str();
}
int32_t Tokenizer::bos_id() const { return t_->bos_id(); }
int32_t Tokenizer::eos_id() const { return t_->eos_id(); }
int32_t Tokenizer::unk_id() const { return t_->unk_id(); }
const char* Tokenizer::kind() const {
  switch (t_->kind()) {
    case fb::TokenizerKind_ByteLevelBpe: return "byte-level-bpe";
    case fb::TokenizerKind_WordPiece: return "wordpiece";
    case fb::TokenizerKind_Unigram: return "unigram";
    case fb::TokenizerKind_SentencePieceBpe: return "sentencepiece-bpe";
    default: return "characters";
  }
}

// Binary search over sorted_vocab (verified at load to be a permutation in string order).
int32_t Tokenizer::find(const char* text, size_t bytes) const {
  const auto& order = *t_->sorted_vocab();
  size_t lo = 0, hi = order.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const int32_t id = order.Get(static_cast<uint32_t>(mid));
    const int c = compare(*t_->vocab()->Get(static_cast<uint32_t>(id)), text, bytes);
    if (c == 0) return id;
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return -1;
}

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

// The working arrays of a BPE run over n symbols, in caller memory: the heap of pair keys
// (at most n - 1 + 2 (n - 1) are ever pushed), then six arrays of n 32-bit values: the
// token, previous, next, the merge of the pair starting there and its rank, and the byte
// offset of the symbol in the text. 48 n bytes.
struct BpeWork {
  static constexpr size_t kBytesPerSymbol = 3 * sizeof(uint64_t) + 6 * sizeof(int32_t);
  uint64_t* heap;
  int32_t *token, *merged, *rank;
  uint32_t *prev, *next, *offset;

  BpeWork(void* work, size_t n) : heap(static_cast<uint64_t*>(work)) {
    token = reinterpret_cast<int32_t*>(heap + 3 * n);
    prev = reinterpret_cast<uint32_t*>(token + n);
    next = prev + n;
    merged = reinterpret_cast<int32_t*>(next + n);  // -1: no merge (or a dead node)
    rank = merged + n;
    offset = reinterpret_cast<uint32_t*>(rank + n);
  }
};

constexpr uint32_t kNone = UINT32_MAX;

}  // namespace

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

// With byte fallback, whether every byte of `text` has its <0xXX> piece.
bool Tokenizer::has_byte_pieces(const char* text, size_t bytes) const {
  if (!t_->byte_fallback()) return false;
  for (size_t i = 0; i < bytes; ++i) {
    if (byte_token_[static_cast<uint8_t>(text[i])] < 0) return false;
  }
  return true;
}

// An unknown character: its <0xXX> byte pieces with byte fallback when the vocabulary has
// them all, else unk (a run of unknowns is one unk, as SentencePiece and tokenizers'
// fuse_unk make it).
Status Tokenizer::emit_unknown(const char* text, size_t bytes, int32_t* ids, size_t* count, size_t capacity) const {
  if (has_byte_pieces(text, bytes)) {
    for (size_t i = 0; i < bytes; ++i) {
      if (*count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
      ids[(*count)++] = byte_token_[static_cast<uint8_t>(text[i])];
    }
    return Status();
  }
  if (t_->unk_id() < 0) return Status::error(StatusCode::kInvalidArgument, "unknown characters and no unk piece");
  if (*count > 0 && ids[*count - 1] == t_->unk_id()) return Status();
  if (*count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
  ids[(*count)++] = t_->unk_id();
  return Status();
}

// Byte-level BPE (GPT-2, Llama 3, Qwen): the text, NFC-normalized when the tokenizer
// says so, split by its pre-tokenizer regex; each pre-token is one vocabulary entry when
// ignore_merges finds it whole, else starts as its bytes' tokens and merges. Scratch
// (encode_scratch_bytes): the normalized text (at most 3 bytes per text byte), then the
// normalization's work or BpeWork for the longest pre-token, 48 bytes per byte of it.
Result<size_t> Tokenizer::encode_bpe(const char* text, size_t bytes, int32_t* ids, size_t capacity, void* work,
                                     size_t work_bytes) const {
  if (t_->normalization() == fb::TextNormalization_Nfc) {
    char* normal = static_cast<char*>(work);
    const size_t offset = (tokenizer::kNormalizedBytesPerByte * bytes + 8) / 8 * 8;
    uint32_t* words = reinterpret_cast<uint32_t*>(static_cast<char*>(work) + offset);
    if (offset + 4 * tokenizer::normalization_work_words(bytes) > work_bytes) {
      return Status::error(StatusCode::kResourceExhausted, "tokenizer scratch too small");
    }
    const size_t n = tokenizer::to_nfc(text, bytes, normal, words);
    return encode_pretokens(normal, n, ids, capacity, words, work_bytes - offset);
  }
  return encode_pretokens(text, bytes, ids, capacity, work, work_bytes);
}

Result<size_t> Tokenizer::encode_pretokens(const char* text, size_t bytes, int32_t* ids, size_t capacity, void* work,
                                           size_t work_bytes) const {
  const auto pattern = static_cast<tokenizer::SplitPattern>(t_->split_pattern());
  size_t count = 0;
  for (size_t i = 0; i < bytes;) {
    const size_t length = tokenizer::next_pretoken(pattern, text, bytes, i);
    if (length > work_bytes / BpeWork::kBytesPerSymbol || length >= kNone) {
      return Status::error(StatusCode::kResourceExhausted, "tokenizer scratch too small");
    }
    if (t_->ignore_merges()) {  // the pre-token's byte characters (2 bytes each at most) looked up whole
      char* mapped = static_cast<char*>(work);
      size_t mapped_bytes = 0;
      for (size_t k = 0; k < length; ++k) {
        mapped_bytes += tokenizer::utf8_encode(tokenizer::byte_to_code_point(static_cast<uint8_t>(text[i + k])),
                                               mapped + mapped_bytes);
      }
      const int32_t whole = find(mapped, mapped_bytes);
      if (whole >= 0) {
        if (count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
        ids[count++] = whole;
        i += length;
        continue;
      }
    }
    BpeWork w(work, length);
    for (size_t k = 0; k < length; ++k) {
      w.token[k] = byte_token_[static_cast<uint8_t>(text[i + k])];
      w.offset[k] = static_cast<uint32_t>(k);
    }
    FOCAL_RETURN_IF_ERROR(merge_symbols(static_cast<uint32_t>(length), work, ids, &count, capacity, text + i, length));
    i += length;
  }
  return count;
}

// SentencePiece's BPE (Llama-2, Phi-3, Gemma): the normalized text's characters, each its
// piece or unknown, merge by rank (the converter ranked the merges by the merged pieces'
// scores, or took tokenizer.json's order). Scratch: the normalized text (3 bytes + 3 per
// text byte, rounded to 8), then BpeWork for at most one symbol per text byte plus the
// prefix: 51 bytes + 59 per byte, within encode_scratch_bytes().
Result<size_t> Tokenizer::encode_sentencepiece_bpe(const char* text, size_t bytes, int32_t* ids, size_t capacity,
                                                   uint8_t* work) const {
  char* normal = reinterpret_cast<char*>(work);
  const size_t n = tokenizer::normalize_sentencepiece(text, bytes, t_->add_dummy_prefix(),
                                                      t_->remove_extra_whitespaces(), normal);
  void* symbols = work + (tokenizer::normalized_bytes(bytes) + 8) / 8 * 8;
  uint32_t count = 0;
  for (size_t i = 0; i < n; ++count) {
    uint32_t cp = 0;
    i += tokenizer::utf8_decode(normal, n, i, &cp);
  }
  BpeWork w(symbols, count);
  for (size_t i = 0, k = 0; i < n; ++k) {
    uint32_t cp = 0;
    const size_t length = tokenizer::utf8_decode(normal, n, i, &cp);
    w.token[k] = find(normal + i, length);
    if (w.token[k] == t_->unk_id()) w.token[k] = -1;  // "<unk>" typed in the text is unknown too
    w.offset[k] = static_cast<uint32_t>(i);
    i += length;
  }
  size_t written = 0;
  FOCAL_RETURN_IF_ERROR(merge_symbols(count, symbols, ids, &written, capacity, normal, n));
  return written;
}

Result<size_t> Tokenizer::encode_characters(const char* text, size_t bytes, int32_t* ids, size_t capacity) const {
  size_t count = 0;
  for (size_t i = 0; i < bytes;) {
    uint32_t cp = 0;
    const size_t n = tokenizer::utf8_decode(text, bytes, i, &cp);
    char lowered = text[i];
    if (t_->lowercase() && n == 1 && lowered >= 'A' && lowered <= 'Z') lowered = char(lowered - 'A' + 'a');
    int32_t id = n == 1 ? find(&lowered, 1) : find(text + i, n);
    if (id < 0) id = t_->unk_id();
    if (id < 0) {
      return Status::error(StatusCode::kInvalidArgument, "character U+%04X at byte %zu is not in the vocabulary",
                           static_cast<unsigned>(cp), i);
    }
    if (count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
    ids[count++] = id;
    i += n;
  }
  return count;
}

// BERT: words from bert_words(), each split greedily into the longest vocabulary entries
// from the left ("##" marks a continuation); a word with an unmatched rest, or over 100
// characters (BERT's max_input_chars_per_word), is one unk. Each piece is found by one
// walk forward through the sorted vocabulary (extend()), which ends where no entry
// continues, so a word costs its length times the longest entry's at most.
Result<size_t> Tokenizer::encode_wordpiece(const char* text, size_t bytes, int32_t* ids, size_t capacity,
                                           char* work) const {
  // Scratch: bert_words_scratch_bytes() (40 bytes per text byte and 32) of encode_scratch_bytes().
  static_assert(tokenizer::kBertScratchBytesPerByte <= kScratchBytesPerTextByte, "BERT's words fit the scratch");
  tokenizer::BertText how;
  how.lowercase = t_->lowercase();
  how.strip_accents = t_->strip_accents() == fb::AccentStripping_AsLowercase ? how.lowercase
                                                                              : t_->strip_accents() == fb::AccentStripping_Strip;
  const char* words = nullptr;
  const size_t length = tokenizer::bert_words(text, bytes, how, work, &words);
  size_t count = 0;
  const auto emit = [&](int32_t id) -> bool {
    if (count == capacity) return false;
    ids[count++] = id;
    return true;
  };
  // The entries beginning with "##" (continuations).
  const SortedVocab vocab(*t_);
  Prefix hashes = vocab.all();
  const bool any_continuation = vocab.extend(&hashes, '#') && vocab.extend(&hashes, '#');
  for (size_t w = 0; w < length;) {
    const char* word = words + w;
    const size_t n = std::strlen(word);
    w += n + 1;
    size_t chars = 0;
    for (size_t k = 0; k < n; ++k) chars += (static_cast<uint8_t>(word[k]) & 0xC0) != 0x80 ? 1 : 0;
    const size_t before = count;
    bool unknown = chars > 100;
    for (size_t start = 0; start < n && !unknown;) {
      // The longest entry ("##" + it after the first piece) that word[start..] begins
      // with and that ends at a character boundary.
      int32_t found = -1;
      size_t end = start;
      Prefix p = start > 0 ? hashes : vocab.all();
      if (start == 0 || any_continuation) {
        for (size_t k = start; k < n && vocab.extend(&p, static_cast<uint8_t>(word[k]));) {
          ++k;
          if (k < n && (static_cast<uint8_t>(word[k]) & 0xC0) == 0x80) continue;  // inside a character
          const int32_t id = vocab.exact(p);
          if (id >= 0) {
            found = id;
            end = k;
          }
        }
      }
      if (found < 0) {
        unknown = true;
        break;
      }
      if (!emit(found)) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
      start = end;
    }
    if (unknown) {
      count = before;
      if (t_->unk_id() < 0) return Status::error(StatusCode::kInvalidArgument, "a word has no pieces and there is no unk");
      if (!emit(t_->unk_id())) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
    }
  }
  return count;
}

// SentencePiece's unigram model: the normalized text (sentencepiece_text.h, or charsmap.h
// with a character map), then the segmentation into vocabulary pieces with the highest
// total score (Viterbi over
// byte positions; a character no piece starts with is an unknown scoring 10 below the
// lowest piece), consecutive unknowns merged into one, as SentencePiece does (with byte
// fallback, each unknown character is its bytes' pieces instead). The pieces
// starting at a position come from one walk forward through the sorted vocabulary, which
// ends where no entry continues: linear in the text, times the longest piece at most
// (kMaxTokenBytes, checked at load).
Result<size_t> Tokenizer::encode_unigram(const char* text, size_t bytes, int32_t* ids, size_t capacity,
                                         uint8_t* work) const {
  // Scratch: the normalized text, n <= 16 bytes + 3 per text byte (3 + 3 without a
  // character map), rounded to 8; then the lattice, 16 (n + 1) bytes: 272 per byte and 75.
  static_assert(17 * tokenizer::kMaxCharsmapGrowth <= kScratchBytesPerTextByte, "the unigram lattice fits the scratch");
  char* normal = reinterpret_cast<char*>(work);
  size_t n = 0;
  if (charsmap_ != nullptr) {
    const tokenizer::SentencePieceFlags flags{t_->add_dummy_prefix(), t_->remove_extra_whitespaces()};
    Result<size_t> normalized = tokenizer::normalize_with_charsmap(tokenizer::charsmap_parts(charsmap_, charsmap_bytes_),
                                                                   text, bytes, flags, normal);
    if (!normalized.ok()) return normalized.status();
    n = normalized.value();
  } else {
    n = tokenizer::normalize_sentencepiece(text, bytes, t_->add_dummy_prefix(), t_->remove_extra_whitespaces(), normal);
  }
  // Lattice over byte positions 0..n: the best score ending there, and its last piece.
  uint8_t* lattice = work + ((n + 8) / 8 * 8);
  double* best = reinterpret_cast<double*>(lattice);
  int32_t* from = reinterpret_cast<int32_t*>(best + n + 1);
  int32_t* piece = from + n + 1;
  for (size_t i = 0; i <= n; ++i) {
    best[i] = i == 0 ? 0.0 : -1e300;
    from[i] = -1;
    piece[i] = -1;
  }
  const double unk_score = double(min_score_) - 10.0;
  const SortedVocab vocab(*t_);
  for (size_t start = 0; start < n; ++start) {
    if (start > 0 && from[start] < 0) continue;  // not reachable: inside a character
    uint32_t cp = 0;
    const size_t char_bytes = tokenizer::utf8_decode(normal, n, start, &cp);
    bool single = false;
    Prefix p = vocab.all();
    for (size_t end = start + 1; end <= n && vocab.extend(&p, static_cast<uint8_t>(normal[end - 1])); ++end) {
      const int32_t id = vocab.exact(p);
      if (id < 0 || is_control_piece(id)) continue;
      single = single || end - start == char_bytes;
      const double score = best[start] + double(t_->scores()->Get(static_cast<uint32_t>(id)));
      if (score > best[end]) {
        best[end] = score;
        from[end] = static_cast<int32_t>(start);
        piece[end] = id;
      }
    }
    if (!single) {
      const size_t end = start + char_bytes;
      const double score = best[start] + unk_score;
      if (score > best[end]) {
        best[end] = score;
        from[end] = static_cast<int32_t>(start);
        piece[end] = -2;  // unknown
      }
    }
  }
  // Walk back from the end, writing pieces in reverse, then reverse them in place.
  size_t count = 0;
  for (size_t at = n; at > 0; at = static_cast<size_t>(from[at])) {
    const size_t from_at = static_cast<size_t>(from[at]);
    if (piece[at] == -2 && has_byte_pieces(normal + from_at, at - from_at)) {  // in reverse, like the pieces
      for (size_t b = at; b > static_cast<size_t>(from[at]); --b) {
        if (count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
        ids[count++] = byte_token_[static_cast<uint8_t>(normal[b - 1])];
      }
      continue;
    }
    const int32_t id = piece[at] == -2 ? t_->unk_id() : piece[at];
    if (id < 0) return Status::error(StatusCode::kInvalidArgument, "unknown characters and no unk piece");
    const bool unknown = piece[at] == -2;
    if (unknown && count > 0 && ids[count - 1] == id) continue;  // merged unknowns
    if (count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
    ids[count++] = id;
  }
  for (size_t i = 0; i < count / 2; ++i) {
    const int32_t swap = ids[i];
    ids[i] = ids[count - 1 - i];
    ids[count - 1 - i] = swap;
  }
  return count;
}

// SentencePiece's control pieces (<s>, </s>, <pad>) and <unk> are never matched in the
// text by the model ("<s>" typed is "<", "s", ">"); added tokens match them before it.
bool Tokenizer::is_control_piece(int32_t id) const {
  return id == t_->unk_id() || id == t_->bos_id() || id == t_->eos_id() || id == t_->pad_id();
}

// One text (no added tokens in it) through the model; encode() checked the arguments.
Result<size_t> Tokenizer::encode_model(const char* text, size_t bytes, int32_t* ids, size_t capacity,
                                       void* scratch) const {
  switch (t_->kind()) {
    case fb::TokenizerKind_Characters: return encode_characters(text, bytes, ids, capacity);
    case fb::TokenizerKind_WordPiece: return encode_wordpiece(text, bytes, ids, capacity, static_cast<char*>(scratch));
    case fb::TokenizerKind_Unigram: return encode_unigram(text, bytes, ids, capacity, static_cast<uint8_t*>(scratch));
    case fb::TokenizerKind_SentencePieceBpe:
      return encode_sentencepiece_bpe(text, bytes, ids, capacity, static_cast<uint8_t*>(scratch));
    case fb::TokenizerKind_ByteLevelBpe:
    case fb::TokenizerKind_None: break;
  }
  return encode_bpe(text, bytes, ids, capacity, scratch, encode_scratch_bytes(bytes));
}

Result<size_t> Tokenizer::decode_token(int32_t id, char* out, size_t capacity) const {
  if (id < 0 || static_cast<size_t>(id) >= vocab_size()) {
    return Status::error(StatusCode::kOutOfRange, "token id %d outside the vocabulary of %zu", static_cast<int>(id),
                         vocab_size());
  }
  const flatbuffers::String& s = *t_->vocab()->Get(static_cast<uint32_t>(id));
  const bool sentencepiece = t_->kind() == fb::TokenizerKind_Unigram || t_->kind() == fb::TokenizerKind_SentencePieceBpe;
  const int byte = t_->byte_fallback() ? tokenizer::byte_piece_value(s.c_str(), s.size()) : -1;
  if (sentencepiece && byte >= 0) {
    if (capacity == 0) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
    out[0] = static_cast<char>(byte);
    return size_t{1};
  }
  if (t_->kind() == fb::TokenizerKind_WordPiece || sentencepiece) {
    // WordPiece: "##x" continues a word, any other piece starts one after a space;
    // SentencePiece: U+2581 stands for a space, <0xXX> for a byte (byte fallback).
    const bool continuation = t_->kind() == fb::TokenizerKind_WordPiece && s.size() >= 2 && s.c_str()[0] == '#' &&
                              s.c_str()[1] == '#';
    size_t written = 0;
    if (t_->kind() == fb::TokenizerKind_WordPiece && !continuation) {
      if (capacity == 0) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
      out[written++] = ' ';
    }
    for (size_t i = continuation ? 2 : 0; i < s.size(); ++i) {
      const bool space = i + 3 <= s.size() && std::memcmp(s.c_str() + i, "\xE2\x96\x81", 3) == 0;
      if (written == capacity) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
      out[written++] = space ? ' ' : s.c_str()[i];
      if (space) i += 2;
    }
    return written;
  }
  if (t_->kind() == fb::TokenizerKind_Characters) {
    if (s.size() > capacity) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
    std::memcpy(out, s.data(), s.size());
    return static_cast<size_t>(s.size());
  }
  size_t written = 0;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    i += tokenizer::utf8_decode(s.data(), s.size(), i, &cp);
    const int b = tokenizer::code_point_to_byte(cp);
    if (b < 0) continue;  // not a byte character (a special token's text): no bytes
    if (written == capacity) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
    out[written++] = static_cast<char>(b);
  }
  return written;
}

size_t Tokenizer::decoded_bytes_bound(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= vocab_size()) return 0;
  return t_->vocab()->Get(static_cast<uint32_t>(id))->size() + 1;  // + WordPiece's space
}

}  // namespace focal
