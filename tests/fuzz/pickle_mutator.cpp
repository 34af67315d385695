#include "pickle_mutator.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace focal {
namespace fuzz {
namespace {

struct Op {
  uint8_t code;
  std::vector<uint8_t> argument;  // the bytes after the opcode, length prefixes included
};

enum class Argument { kNone, kFixed, kCounted, kLine, kTwoLines, kUnknown };

struct Layout {
  Argument kind;
  size_t bytes;  // kFixed: argument bytes; kCounted: bytes of the little-endian count
};

// True when `code` is one of the bytes in `codes` (never for 0, the terminator).
bool one_of(uint8_t code, const char* codes) {
  return code != 0 && std::strchr(codes, static_cast<char>(code)) != nullptr;
}

// Opcodes by how their argument is laid out (Python's pickletools). Hex escapes are
// separate literals so a following letter is not read as another hex digit.
Layout layout_of(uint8_t code) {
  if (one_of(code,
             "Kqh"
             "\x80"
             "\x82"))
    return {Argument::kFixed, 1};
  if (one_of(code,
             "M"
             "\x83"))
    return {Argument::kFixed, 2};
  if (one_of(code,
             "Jrj"
             "\x84"))
    return {Argument::kFixed, 4};
  if (one_of(code,
             "G"
             "\x95"))
    return {Argument::kFixed, 8};
  if (one_of(code,
             "UC"
             "\x8a"
             "\x8c"))
    return {Argument::kCounted, 1};
  if (one_of(code,
             "TXB"
             "\x8b"))
    return {Argument::kCounted, 4};
  if (one_of(code,
             "\x8d"
             "\x8e"
             "\x96"))
    return {Argument::kCounted, 8};
  if (one_of(code, "ILSVFpgP")) return {Argument::kLine, 0};
  if (one_of(code, "ci")) return {Argument::kTwoLines, 0};
  if (one_of(code,
             "(.012Nt)]aeld}sub"
             "RQo"
             "\x81"
             "\x85"
             "\x86"
             "\x87"
             "\x88"
             "\x89"
             "\x8f"
             "\x90"
             "\x91"
             "\x92"
             "\x93"
             "\x94"
             "\x97"
             "\x98")) {
    return {Argument::kNone, 0};
  }
  return {Argument::kUnknown, 0};
}

// Splits into opcodes; the part after STOP or after the first unparsable byte is `tail`.
std::vector<Op> parse(const std::vector<uint8_t>& pickle, std::vector<uint8_t>* tail) {
  std::vector<Op> ops;
  size_t at = 0;
  while (at < pickle.size()) {
    const uint8_t code = pickle[at];
    const Layout layout = layout_of(code);
    size_t bytes = 0;
    const size_t rest = pickle.size() - at - 1;
    const uint8_t* arg = pickle.data() + at + 1;
    if (layout.kind == Argument::kUnknown) break;
    if (layout.kind == Argument::kFixed) bytes = layout.bytes;
    if (layout.kind == Argument::kCounted) {
      if (rest < layout.bytes) break;
      uint64_t count = 0;
      for (size_t i = 0; i < layout.bytes; ++i) count |= uint64_t(arg[i]) << (8 * i);
      if (count > rest - layout.bytes) break;
      bytes = layout.bytes + static_cast<size_t>(count);
    }
    if (layout.kind == Argument::kLine || layout.kind == Argument::kTwoLines) {
      const void* nl = std::memchr(arg, '\n', rest);
      if (nl == nullptr) break;
      bytes = static_cast<size_t>(static_cast<const uint8_t*>(nl) - arg) + 1;
      if (layout.kind == Argument::kTwoLines) {
        const void* nl2 = std::memchr(arg + bytes, '\n', rest - bytes);
        if (nl2 == nullptr) break;
        bytes = static_cast<size_t>(static_cast<const uint8_t*>(nl2) - arg) + 1;
      }
    }
    if (bytes > rest) break;
    ops.push_back(Op{code, std::vector<uint8_t>(arg, arg + bytes)});
    at += 1 + bytes;
    if (code == '.') break;
  }
  tail->assign(pickle.begin() + static_cast<std::ptrdiff_t>(at), pickle.end());
  return ops;
}

Op op_with_bytes(uint8_t code, uint64_t value, size_t bytes) {
  Op op{code, {}};
  for (size_t i = 0; i < bytes; ++i) op.argument.push_back(static_cast<uint8_t>(value >> (8 * i)));
  return op;
}

// An integer in the smallest encoding that holds it, or a random wider one.
Op integer_op(uint64_t value, Random& random) {
  const auto as_signed = static_cast<int64_t>(value);
  if (!random.one_in(3)) {
    if (value < 256) return op_with_bytes('K', value, 1);
    if (value < 65536) return op_with_bytes('M', value, 2);
    if (as_signed >= INT32_MIN && as_signed <= INT32_MAX) return op_with_bytes('J', value, 4);
  }
  Op op = op_with_bytes(0x8a, 8, 1);  // LONG1 with 8 bytes of two's complement
  for (size_t i = 0; i < 8; ++i) op.argument.push_back(static_cast<uint8_t>(value >> (8 * i)));
  return op;
}

Op text_op(const std::string& text) {
  Op op =
      text.size() < 256 ? op_with_bytes(0x8c, text.size(), 1) : op_with_bytes('X', text.size(), 4);
  op.argument.insert(op.argument.end(), text.begin(), text.end());
  return op;
}

Op global_op(Random& random) {
  static const char* const kGlobals[] = {"torch._utils\n_rebuild_tensor_v2\n",
                                         "torch._utils\n_rebuild_parameter\n",
                                         "collections\nOrderedDict\n",
                                         "torch\nFloatStorage\n",
                                         "torch\nHalfStorage\n",
                                         "torch\nBFloat16Storage\n",
                                         "torch\nLongStorage\n",
                                         "torch\nIntStorage\n",
                                         "torch\nByteStorage\n",
                                         "torch\nBoolStorage\n",
                                         "torch\nDoubleStorage\n",
                                         "torch\nfloat32\n",
                                         "os\nsystem\n",
                                         "builtins\neval\n",
                                         "torch._utils\n_rebuild_tensor\n"};
  const char* g = kGlobals[random.below(sizeof(kGlobals) / sizeof(kGlobals[0]))];
  return Op{'c', std::vector<uint8_t>(g, g + std::strlen(g))};
}

Op text_like_torch(Random& random) {
  static const char* const kTexts[] = {"storage", "0",      "1",           "2",         "cpu",
                                       "cuda:0",  "weight", "bias",        "_metadata", "version",
                                       "a.b",     "",       "FloatStorage"};
  if (random.one_in(3)) return text_op(interesting_text(random));
  return text_op(kTexts[random.below(sizeof(kTexts) / sizeof(kTexts[0]))]);
}

Op random_op(Random& random) {
  static const uint8_t kBare[] = {'(',  '.',  '0', '1',  '2',  'N',  0x88, 't', 0x85,
                                  0x86, 0x87, ')', ']',  '}',  'a',  'e',  's', 'u',
                                  'b',  'R',  'Q', 0x93, 0x94, 0x81, 'l',  'd'};
  switch (random.below(7)) {
    case 0:
      return integer_op(interesting_integer(random), random);
    case 1:
      return text_like_torch(random);
    case 2:
      return global_op(random);
    case 3:
      return op_with_bytes('h', random.below(16), 1);
    case 4:
      return op_with_bytes(random.one_in(2) ? 'q' : 'r', random.below(16),
                           random.one_in(2) ? 1 : 4);
    case 5:
      return op_with_bytes('j', interesting_integer(random), 4);
    default:
      return Op{kBare[random.below(sizeof(kBare))], {}};
  }
}

// x = (x, x) or x = {"a": x, "b": x}, `depth` times through the memo: a few bytes
// pushing one value whose full expansion has 2^depth leaves, which a reader must not
// materialize or walk.
std::vector<Op> sharing_bomb(Random& random) {
  const uint32_t slot = 200 + static_cast<uint32_t>(random.below(50));
  const bool dicts = random.one_in(2);
  std::vector<Op> ops{Op{dicts ? uint8_t('}') : uint8_t(']'), {}}, op_with_bytes('q', slot, 1)};
  for (size_t depth = 8 + random.below(40); depth > 0; --depth) {
    if (dicts) {
      ops.push_back(Op{'}', {}});
      ops.push_back(Op{'(', {}});
      ops.push_back(text_op("a"));
      ops.push_back(op_with_bytes('h', slot, 1));
      ops.push_back(text_op("b"));
      ops.push_back(op_with_bytes('h', slot, 1));
      ops.push_back(Op{'u', {}});  // SETITEMS
    } else {
      ops.push_back(op_with_bytes('h', slot, 1));
      ops.push_back(op_with_bytes('h', slot, 1));
      ops.push_back(Op{0x86, {}});  // TUPLE2
    }
    ops.push_back(op_with_bytes('q', slot, 1));
  }
  return ops;
}

// Opcodes that push exactly one value and do nothing else: replacing one with another
// value-pushing sequence keeps the stack balanced, so the rest of the pickle still runs.
bool pushes_one_value(uint8_t code) {
  return one_of(code,
                "KMJXNG)]}hj"
                "\x8a"
                "\x8c"
                "\x88"
                "\x89");
}

// The bomb as one more entry of a dict (a key and it, before a SETITEMS, so the
// reader walks it as part of the state_dict), or in place of one value, else anywhere.
void insert_sharing_bomb(std::vector<Op>& ops, Random& random) {
  std::vector<size_t> values, setitems;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (pushes_one_value(ops[i].code)) values.push_back(i);
    if (ops[i].code == 'u') setitems.push_back(i);
  }
  std::vector<Op> bomb = sharing_bomb(random);
  if (!setitems.empty() && random.one_in(2)) {
    bomb.insert(bomb.begin(), text_op("shared"));
    ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(setitems[random.below(setitems.size())]),
               bomb.begin(), bomb.end());
    return;
  }
  if (values.empty()) {
    ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(random.below(ops.size() + 1)),
               bomb.begin(), bomb.end());
    return;
  }
  const auto at = ops.begin() + static_cast<std::ptrdiff_t>(values[random.below(values.size())]);
  ops.insert(ops.erase(at), bomb.begin(), bomb.end());
}

// Positive integers whose products or sums with a tensor's other numbers (shape - 1
// times stride, plus the offset) pass INT64_MAX, where a bounds check that multiplies
// first wraps.
uint64_t overflowing_integer(Random& random) {
  static const uint64_t kValues[] = {0x7FFFFFFFFFFFFFFFull, 0x4000000000000000ull,
                                     0x2AAAAAAAAAAAAAABull, 0x6000000000000000ull,
                                     0x0100000000000001ull, 0x7FFFFFFFFFFFFFF0ull};
  return kValues[random.below(sizeof(kValues) / sizeof(kValues[0]))];
}

bool is_integer(uint8_t code) {
  return one_of(code,
                "KMJ"
                "\x8a"
                "\x8b");
}

// A string or bytes argument: one of torch's own names or a digit changed in place
// (storage keys are "0", "1", ...).
void change_text(Op& op, Random& random) {
  const Layout layout = layout_of(op.code);
  std::string text(op.argument.begin() + static_cast<std::ptrdiff_t>(layout.bytes),
                   op.argument.end());
  if (random.one_in(2) || text.empty()) {
    op = text_like_torch(random);
  } else {
    text[random.below(text.size())] = static_cast<char>('0' + random.below(10));
    op = text_op(text);
  }
}

void change_argument(Op& op, Random& random) {
  if (is_integer(op.code)) {
    const bool overflowing = random.one_in(3);
    op =
        integer_op(overflowing ? overflowing_integer(random) : interesting_integer(random), random);
  } else if (one_of(op.code, "qh")) {  // memo slots: a neighbour or anything
    op.argument[0] = static_cast<uint8_t>(random.one_in(2) ? random.below(8) : random.next());
  } else if (one_of(op.code, "rj")) {
    op = op_with_bytes(op.code, interesting_integer(random), 4);
  } else if (layout_of(op.code).kind == Argument::kCounted) {
    change_text(op, random);
  } else if (op.code == 'c') {
    op = global_op(random);
  } else if (op.code == 'G') {
    for (auto& b : op.argument) b = static_cast<uint8_t>(random.next());
  } else {
    op = random_op(random);
  }
}

void mutate_once(std::vector<Op>& ops, Random& random) {
  const size_t n = ops.size();
  const auto at = [&](size_t i) { return ops.begin() + static_cast<std::ptrdiff_t>(i); };
  switch (random.below(9)) {
    case 0:
      if (n > 0) ops.erase(at(random.below(n)));
      break;
    case 1:
      if (n > 0) {
        const size_t i = random.below(n);
        ops.insert(at(i), ops[i]);
      }
      break;
    case 2:
      if (n > 0) {  // a run of up to 16 opcodes copied elsewhere
        const size_t first = random.below(n);
        const size_t count = 1 + random.below(std::min<size_t>(16, n - first));
        const std::vector<Op> run(at(first), at(first + count));
        ops.insert(at(random.below(ops.size() + 1)), run.begin(), run.end());
      }
      break;
    case 3:
      if (n > 1) {
        const size_t i = random.below(n - 1);
        std::swap(ops[i], ops[i + 1]);
      }
      break;
    case 4:
      ops.insert(at(random.below(n + 1)), random_op(random));
      break;
    case 5:
      if (n > 0) change_argument(ops[random.below(n)], random);
      break;
    case 6: {  // integers are what sizes, strides, offsets and storage lengths are made of
      std::vector<size_t> integers;
      for (size_t i = 0; i < n; ++i) {
        if (is_integer(ops[i].code)) integers.push_back(i);
      }
      if (!integers.empty()) change_argument(ops[integers[random.below(integers.size())]], random);
      break;
    }
    case 7:
      insert_sharing_bomb(ops, random);
      break;
    default:
      if (n > 1) {  // move one opcode
        const size_t from = random.below(n);
        const Op op = ops[from];
        ops.erase(at(from));
        ops.insert(at(random.below(ops.size() + 1)), op);
      }
      break;
  }
}

}  // namespace

std::vector<uint8_t> mutate_pickle(const std::vector<uint8_t>& pickle, int mutations,
                                   Random& random) {
  std::vector<uint8_t> tail;
  std::vector<Op> ops = parse(pickle, &tail);
  for (int m = 0; m < mutations; ++m) mutate_once(ops, random);
  std::vector<uint8_t> out;
  for (const Op& op : ops) {
    out.push_back(op.code);
    out.insert(out.end(), op.argument.begin(), op.argument.end());
  }
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

}  // namespace fuzz
}  // namespace focal
