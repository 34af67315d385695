#include "tokenizers/sentencepiece_model.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string_view>
#include <vector>

#include "focal/limits.h"
#include "readers/checkpoint.h"

namespace focal {
namespace convert {
namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::internal::WireFormatLite;

// Field numbers of sentencepiece_model.proto (SentencePiece 0.1.9x).
enum ModelField { kPieces = 1, kTrainerSpec = 2, kNormalizerSpec = 3 };
enum PieceField { kPiece = 1, kScore = 2, kType = 3 };
enum PieceType { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };
enum TrainerField {
  kModelType = 3, kTreatWhitespaceAsSuffix = 24, kByteFallback = 35, kUnkId = 40, kBosId = 41, kEosId = 42, kPadId = 43
};
enum ModelType { kUnigram = 1, kBpe = 2, kWord = 3, kChar = 4 };
enum NormalizerField { kName = 1, kPrecompiledCharsmap = 2, kAddDummyPrefix = 3, kRemoveExtraWhitespaces = 4,
                       kEscapeWhitespaces = 5 };

struct Piece {
  std::string text;
  float score = 0.0f;
  uint32_t type = kNormal;
};

// What the converter needs of the trainer and normalizer specs (their proto defaults).
struct Specs {
  uint32_t model_type = kUnigram;
  bool byte_fallback = false, suffix_whitespace = false;
  int32_t unk_id = 0, bos_id = 1, eos_id = 2, pad_id = -1;
  std::string normalizer = "nmt_nfkc", charsmap;
  bool add_dummy_prefix = true, remove_extra_whitespaces = true, escape_whitespaces = true;
};

// Reads the fields of one (sub)message with `field` (number, wire type, stream); the
// callback returns false for a field it does not take, which is skipped.
template <typename Field>
bool read_message(CodedInputStream* in, Field field) {
  for (;;) {
    const uint32_t tag = in->ReadTag();
    if (tag == 0) return in->ConsumedEntireMessage() || in->BytesUntilLimit() == 0;
    const int number = WireFormatLite::GetTagFieldNumber(tag);
    const WireFormatLite::WireType wire = WireFormatLite::GetTagWireType(tag);
    bool ok = false;
    if (!field(number, wire, in, &ok)) {
      if (!WireFormatLite::SkipField(in, tag)) return false;
    } else if (!ok) {
      return false;
    }
  }
}

template <typename Field>
bool read_submessage(CodedInputStream* in, Field field) {
  uint32_t length = 0;
  if (!in->ReadVarint32(&length)) return false;
  const CodedInputStream::Limit limit = in->PushLimit(static_cast<int>(length));
  const bool ok = read_message(in, field) && in->BytesUntilLimit() == 0;
  in->PopLimit(limit);
  return ok;
}

bool read_varint(CodedInputStream* in, uint32_t* value) { return in->ReadVarint32(value); }

bool read_int32(CodedInputStream* in, int32_t* value) {
  uint64_t v = 0;
  if (!in->ReadVarint64(&v)) return false;
  *value = static_cast<int32_t>(static_cast<int64_t>(v));
  return true;
}

bool read_bool(CodedInputStream* in, bool* value) {
  uint64_t v = 0;
  if (!in->ReadVarint64(&v)) return false;
  *value = v != 0;
  return true;
}

bool read_string(CodedInputStream* in, std::string* value) {
  uint32_t length = 0;
  return in->ReadVarint32(&length) && in->ReadString(value, static_cast<int>(length));
}

bool read_piece(CodedInputStream* in, Piece* piece) {
  return read_submessage(in, [&](int number, WireFormatLite::WireType wire, CodedInputStream* s, bool* ok) {
    if (number == kPiece && wire == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) *ok = read_string(s, &piece->text);
    else if (number == kScore && wire == WireFormatLite::WIRETYPE_FIXED32) {
      uint32_t bits = 0;
      *ok = s->ReadLittleEndian32(&bits);
      std::memcpy(&piece->score, &bits, sizeof(bits));
    } else if (number == kType && wire == WireFormatLite::WIRETYPE_VARINT) *ok = read_varint(s, &piece->type);
    else return false;
    return true;
  });
}

bool read_trainer(CodedInputStream* in, Specs* specs) {
  return read_submessage(in, [&](int number, WireFormatLite::WireType wire, CodedInputStream* s, bool* ok) {
    if (wire != WireFormatLite::WIRETYPE_VARINT) return false;
    switch (number) {
      case kModelType: *ok = read_varint(s, &specs->model_type); return true;
      case kTreatWhitespaceAsSuffix: *ok = read_bool(s, &specs->suffix_whitespace); return true;
      case kByteFallback: *ok = read_bool(s, &specs->byte_fallback); return true;
      case kUnkId: *ok = read_int32(s, &specs->unk_id); return true;
      case kBosId: *ok = read_int32(s, &specs->bos_id); return true;
      case kEosId: *ok = read_int32(s, &specs->eos_id); return true;
      case kPadId: *ok = read_int32(s, &specs->pad_id); return true;
      default: return false;
    }
  });
}

bool read_normalizer(CodedInputStream* in, Specs* specs) {
  return read_submessage(in, [&](int number, WireFormatLite::WireType wire, CodedInputStream* s, bool* ok) {
    const bool text = wire == WireFormatLite::WIRETYPE_LENGTH_DELIMITED, flag = wire == WireFormatLite::WIRETYPE_VARINT;
    if (number == kName && text) *ok = read_string(s, &specs->normalizer);
    else if (number == kPrecompiledCharsmap && text) *ok = read_string(s, &specs->charsmap);
    else if (number == kAddDummyPrefix && flag) *ok = read_bool(s, &specs->add_dummy_prefix);
    else if (number == kRemoveExtraWhitespaces && flag) *ok = read_bool(s, &specs->remove_extra_whitespaces);
    else if (number == kEscapeWhitespaces && flag) *ok = read_bool(s, &specs->escape_whitespaces);
    else return false;
    return true;
  });
}

// What focal implements of the specs, or an error naming what it does not.
Status check_supported(const std::string& path, const Specs& specs) {
  if (specs.model_type != kUnigram && specs.model_type != kBpe) {
    return Status::error(StatusCode::kUnsupported, "'%s': SentencePiece model type %u (word or char) is not supported",
                         path.c_str(), static_cast<unsigned>(specs.model_type));
  }
  if (!specs.charsmap.empty() && specs.model_type != kUnigram) {
    return Status::error(StatusCode::kUnsupported,
                         "'%s': normalizer '%s' (a precompiled character map, e.g. NFKC) is supported for unigram "
                         "models only, not BPE",
                         path.c_str(), specs.normalizer.c_str());
  }
  if (!specs.escape_whitespaces || specs.suffix_whitespace) {
    return Status::error(StatusCode::kUnsupported, "'%s': %s is not supported", path.c_str(),
                         specs.suffix_whitespace ? "treat_whitespace_as_suffix" : "escape_whitespaces = false");
  }
  return Status();
}

}  // namespace

namespace {

// Strings in bytewise order, walked along a text one byte at a time: the entries that begin
// with the bytes walked so far are a range [lo, hi), narrowed by two binary searches on the
// byte at the walk's depth (an entry that has ended sorts first, as if its byte were -1).
// Which prefixes of an m-byte text are entries thus costs O(m log n), and the walk stops as
// soon as no entry continues, never comparing whole strings.
class SortedTable {
 public:
  explicit SortedTable(std::vector<std::string_view> entries) : entries_(std::move(entries)) {
    std::sort(entries_.begin(), entries_.end());
  }

  // hits[d] = 1 when the first d bytes walked (byte(0), byte(1), ...) are an entry, for
  // d in 1..m; hits is resized to m + 1 and cleared first.
  template <typename Byte>
  void walk(size_t m, Byte byte, std::vector<char>* hits) const {
    hits->assign(m + 1, 0);
    size_t lo = 0, hi = entries_.size();
    for (size_t depth = 0; depth < m && lo < hi; ++depth) {
      const int c = static_cast<uint8_t>(byte(depth));
      lo = first_above(lo, hi, depth, c - 1);
      hi = first_above(lo, hi, depth, c);
      if (lo < hi && entries_[lo].size() == depth + 1) (*hits)[depth + 1] = 1;
    }
  }

 private:
  int byte_at(size_t k, size_t depth) const {
    return depth < entries_[k].size() ? static_cast<uint8_t>(entries_[k][depth]) : -1;
  }
  // The first entry in [lo, hi) whose byte at depth is > c (they are sorted by it).
  size_t first_above(size_t lo, size_t hi, size_t depth, int c) const {
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (byte_at(mid, depth) <= c) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  std::vector<std::string_view> entries_;
};

// The merges' text may exceed the pieces' by this factor at most. A real vocabulary's
// merges hold each piece a few times (a piece splits at a few of its cuts); a piece a^n
// with every a^k in the vocabulary would make n^3 bytes of merges from n^2 of pieces.
constexpr size_t kMergeBytesPerPieceByte = 64;

}  // namespace

// Which cuts of a piece give two pieces: a forward walk of the pieces' table along it finds
// the prefixes that are pieces, a backward walk of the reversed pieces' table the suffixes;
// a cut is a merge when both hold. O(total piece bytes x log pieces), where trying every
// cut with substrings was O(sum of piece length^2).
Status merges_from_scores(TokenizerSpec* spec, const std::vector<bool>& mergeable, const std::string& path) {
  std::vector<std::string_view> forward;
  std::vector<std::string> reversed;
  size_t piece_bytes = 0;
  for (size_t i = 0; i < spec->vocab.size(); ++i) {
    if (!mergeable[i]) continue;
    forward.emplace_back(spec->vocab[i]);
    reversed.emplace_back(spec->vocab[i].rbegin(), spec->vocab[i].rend());
    piece_bytes += spec->vocab[i].size();
  }
  const SortedTable prefixes(forward), suffixes(std::vector<std::string_view>(reversed.begin(), reversed.end()));
  const size_t budget = kMergeBytesPerPieceByte * piece_bytes;
  std::vector<size_t> order(spec->vocab.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return spec->scores[a] > spec->scores[b]; });
  std::vector<char> is_prefix, is_suffix;  // of the piece, by the cut's byte offset
  size_t merge_bytes = 0;
  for (size_t id : order) {
    if (!mergeable[id]) continue;
    const std::string& piece = spec->vocab[id];
    const size_t m = piece.size();
    prefixes.walk(m, [&](size_t d) { return piece[d]; }, &is_prefix);
    suffixes.walk(m, [&](size_t d) { return piece[m - 1 - d]; }, &is_suffix);  // is_suffix[d]: the last d bytes
    for (size_t cut = 1; cut < m; ++cut) {
      if ((static_cast<uint8_t>(piece[cut]) & 0xC0) == 0x80) continue;  // inside a character
      if (!is_prefix[cut] || !is_suffix[m - cut]) continue;
      merge_bytes += m;
      if (merge_bytes > budget) {
        return Status::error(StatusCode::kInvalidArgument,
                             "'%s': its pieces imply over %zu bytes of BPE merges (%zu per byte of the pieces); "
                             "not a real vocabulary",
                             path.c_str(), budget, kMergeBytesPerPieceByte);
      }
      spec->merges.emplace_back(piece.substr(0, cut), piece.substr(cut));
    }
  }
  return Status();
}

Result<TokenizerSpec> read_sentencepiece_model(const std::string& path) {
  FOCAL_RETURN_IF_ERROR(check_regular_file(path));
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return Status::error(StatusCode::kIoError, "cannot open '%s'", path.c_str());
  const std::string bytes((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) {
    return Status::error(StatusCode::kInvalidArgument, "'%s' is too large for a SentencePiece model", path.c_str());
  }
  std::vector<Piece> pieces;
  Specs specs;
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  const bool parsed = read_message(&in, [&](int number, WireFormatLite::WireType wire, CodedInputStream* s, bool* ok) {
    if (wire != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) return false;
    if (number == kPieces) {
      pieces.emplace_back();
      *ok = read_piece(s, &pieces.back());
    } else if (number == kTrainerSpec) *ok = read_trainer(s, &specs);
    else if (number == kNormalizerSpec) *ok = read_normalizer(s, &specs);
    else return false;
    return true;
  });
  if (!parsed || pieces.empty()) {
    return Status::error(StatusCode::kInvalidArgument, "'%s' is not a SentencePiece model (ModelProto)", path.c_str());
  }
  FOCAL_RETURN_IF_ERROR(check_supported(path, specs));
  TokenizerSpec spec;
  spec.kind = specs.model_type == kBpe ? fb::TokenizerKind_SentencePieceBpe : fb::TokenizerKind_Unigram;
  spec.add_dummy_prefix = specs.add_dummy_prefix;
  spec.remove_extra_whitespaces = specs.remove_extra_whitespaces;
  spec.byte_fallback = specs.byte_fallback;
  spec.charsmap = specs.charsmap;  // checked when the engine loads it (tokenizer/charsmap.h)
  std::vector<bool> mergeable;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    if (p.type < kNormal || p.type > kByte) {
      return Status::error(StatusCode::kInvalidArgument, "'%s': piece %zu '%s' has unknown type %u", path.c_str(), i,
                           p.text.c_str(), static_cast<unsigned>(p.type));
    }
    if (p.text.size() > kMaxTokenBytes) {
      return Status::error(StatusCode::kInvalidArgument, "'%s': piece %zu is %zu bytes; the engine takes at most %zu",
                           path.c_str(), i, p.text.size(), kMaxTokenBytes);
    }
    spec.vocab.push_back(p.text);
    spec.scores.push_back(p.score);
    mergeable.push_back(p.type == kNormal || p.type == kUserDefined);
    const int32_t id = static_cast<int32_t>(i);
    if (p.type == kUnknown) spec.unk_id = id;
    // SentencePiece matches user-defined pieces in the text before the model.
    if (p.type == kUserDefined) spec.added_tokens.push_back({id, false, false, false});  // text, not special
  }
  const int32_t size = static_cast<int32_t>(pieces.size());
  const auto in_range = [&](int32_t id) { return id >= 0 && id < size ? id : -1; };
  spec.bos_id = in_range(specs.bos_id);
  spec.eos_id = in_range(specs.eos_id);
  spec.pad_id = in_range(specs.pad_id);
  if (spec.kind == fb::TokenizerKind_SentencePieceBpe) FOCAL_RETURN_IF_ERROR(merges_from_scores(&spec, mergeable, path));
  return spec;
}

}  // namespace convert
}  // namespace focal
