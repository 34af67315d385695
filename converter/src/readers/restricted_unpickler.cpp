#include "readers/restricted_unpickler.h"

#include <cstring>

namespace focal {
namespace convert {
namespace {

using Kind = PickleValue::Kind;

constexpr size_t kMaxStack = 1 << 20;  // values; a state_dict needs a few dozen at once
constexpr size_t kMaxMemo = 1 << 22;
// The budget for pickle values: each opcode makes at most one, of about 260 bytes, so a
// pickle of cheap opcodes ("N", "a": 2 bytes each) would otherwise cost 130x its size.
// 2^21 values (~0.5 GB) hold a state_dict of over 100,000 tensors (about 15 each).
constexpr size_t kMaxValues = size_t(1) << 21;


bool storage_type(const std::string& global, ElementType* type) {
  static const std::pair<const char*, ElementType> kStorages[] = {
      {"torch.FloatStorage", ElementType::kF32},   {"torch.HalfStorage", ElementType::kF16},
      {"torch.BFloat16Storage", ElementType::kBF16}, {"torch.DoubleStorage", ElementType::kF64},
      {"torch.LongStorage", ElementType::kI64},    {"torch.IntStorage", ElementType::kI32},
      {"torch.ShortStorage", ElementType::kI16},   {"torch.CharStorage", ElementType::kI8},
      {"torch.ByteStorage", ElementType::kU8},     {"torch.BoolStorage", ElementType::kBool}};
  for (const auto& s : kStorages) {
    if (global == s.first) {
      *type = s.second;
      return true;
    }
  }
  return false;
}

bool allowed_global(const std::string& name) {
  ElementType unused;
  return name == "collections.OrderedDict" || name == "torch._utils._rebuild_tensor_v2" ||
         name == "torch._utils._rebuild_parameter" || storage_type(name, &unused);
}

class Unpickler {
 public:
  Unpickler(const std::vector<uint8_t>& bytes, const std::string& where) : b_(bytes), where_(where) {}

  Result<PickleDocument> run() {
    while (pos_ < b_.size()) {
      const uint8_t op = b_[pos_++];
      if (op == '.') {  // STOP
        if (stack_.size() != 1) return fail("STOP with " + std::to_string(stack_.size()) + " values on the stack");
        doc_.root = stack_.back();
        return std::move(doc_);
      }
      if (doc_.values.size() >= kMaxValues) {
        return fail("more than " + std::to_string(kMaxValues) + " values (the budget for pickle values)");
      }
      Status status = step(op);
      if (!status.ok()) return status;
    }
    return fail("ends without STOP (truncated)");
  }

 private:
  PickleRef make(Kind kind) {
    doc_.values.push_back(std::make_unique<PickleValue>());
    doc_.values.back()->kind = kind;
    return doc_.values.back().get();
  }

  Status fail(const std::string& what) const {
    return reader_error(where_, what + " at pickle byte " + std::to_string(pos_));
  }

  bool need(size_t n) const { return b_.size() - pos_ >= n; }

  template <class T>
  bool read(T* value) {
    if (!need(sizeof(T))) return false;
    std::memcpy(value, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }

  Status push(PickleRef v) {
    if (stack_.size() >= kMaxStack) return fail("stack too deep");
    stack_.push_back(v);
    return Status();
  }

  // Removes the top value (above the last MARK) into *v; false when there is none. A
  // bool, not a Status, so that callers (and the static analyzer) see *v set on success.
  bool pop(PickleRef* v) {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) return false;
    *v = stack_.back();
    stack_.pop_back();
    return true;
  }

  Status underflow() const { return fail("stack underflow"); }

  // Values pushed since the last MARK, removing them and the mark.
  Status pop_to_mark(std::vector<PickleRef>* items) {
    if (marks_.empty()) return fail("no MARK");
    const size_t at = marks_.back();
    marks_.pop_back();
    items->assign(stack_.begin() + static_cast<long>(at), stack_.end());
    stack_.resize(at);
    return Status();
  }

  Status read_string(size_t length) {
    if (!need(length)) return fail("string of " + std::to_string(length) + " bytes past the end");
    auto v = make(Kind::kString);
    v->s.assign(reinterpret_cast<const char*>(b_.data() + pos_), length);
    pos_ += length;
    return push(v);
  }

  Status push_int(int64_t i) {
    auto v = make(Kind::kInt);
    v->i = i;
    return push(v);
  }

  Status memo_put(uint32_t index) {
    if (stack_.empty()) return fail("memoize with an empty stack");
    if (index >= kMaxMemo) return fail("memo index too large");
    memo_[index] = stack_.back();
    return Status();
  }

  Status memo_get(uint32_t index) {
    const auto it = memo_.find(index);
    if (it == memo_.end()) return fail("memo " + std::to_string(index) + " was never stored");
    return push(it->second);
  }

  Status global(const std::string& module, const std::string& name) {
    const std::string full = module + "." + name;
    if (!allowed_global(full)) {
      return fail("refusing global " + full +
                  ": a checkpoint reader never runs code from a file; only tensors, "
                  "OrderedDict and plain values are accepted");
    }
    auto v = make(Kind::kGlobal);
    v->s = full;
    return push(v);
  }

  Status tuple_of(size_t n) {
    if (stack_.size() < n || (!marks_.empty() && stack_.size() - n < marks_.back())) return fail("stack underflow");
    auto v = make(Kind::kTuple);
    v->items.assign(stack_.end() - static_cast<long>(n), stack_.end());
    stack_.resize(stack_.size() - n);
    return push(v);
  }

  static bool int_list(const PickleRef& v, std::vector<int64_t>* out) {
    if (v->kind != Kind::kTuple && v->kind != Kind::kList) return false;
    for (const PickleRef& item : v->items) {
      if (item->kind != Kind::kInt) return false;
      out->push_back(item->i);
    }
    return true;
  }

  // Applies one of the allowed callables to its argument tuple.
  Status reduce() {
    PickleRef args = nullptr, callable = nullptr;
    if (!pop(&args) || !pop(&callable)) return underflow();
    if (callable->kind != Kind::kGlobal || args->kind != Kind::kTuple) return fail("REDUCE needs a global and a tuple");
    if (callable->s == "collections.OrderedDict") {
      if (!args->items.empty()) return fail("OrderedDict with arguments");
      return push(make(Kind::kDict));
    }
    if (callable->s == "torch._utils._rebuild_parameter") {
      if (args->items.empty() || args->items[0]->kind != Kind::kTensor) return fail("_rebuild_parameter without a tensor");
      return push(args->items[0]);
    }
    if (callable->s == "torch._utils._rebuild_tensor_v2") {
      // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
      if (args->items.size() < 4 || args->items[0]->kind != Kind::kStorage || args->items[1]->kind != Kind::kInt) {
        return fail("_rebuild_tensor_v2 with unexpected arguments");
      }
      auto t = make(Kind::kTensor);
      t->tensor.storage = args->items[0]->storage;
      t->tensor.offset = args->items[1]->i;
      if (!int_list(args->items[2], &t->tensor.shape) || !int_list(args->items[3], &t->tensor.stride) ||
          t->tensor.shape.size() != t->tensor.stride.size()) {
        return fail("tensor size and stride must be integer tuples of one length");
      }
      return push(t);
    }
    return fail("cannot call " + callable->s);
  }

  // ('storage', storage_type, key, location, numel) -> a storage reference.
  Status persistent_load() {
    PickleRef pid = nullptr;
    if (!pop(&pid)) return underflow();
    if (pid->kind != Kind::kTuple || pid->items.size() < 5 || pid->items[0]->kind != Kind::kString ||
        pid->items[0]->s != "storage" || pid->items[1]->kind != Kind::kGlobal ||
        pid->items[2]->kind != Kind::kString || pid->items[4]->kind != Kind::kInt) {
      return fail("persistent id is not a storage reference");
    }
    auto v = make(Kind::kStorage);
    if (!storage_type(pid->items[1]->s, &v->storage.type)) return fail("unknown storage " + pid->items[1]->s);
    v->storage.key = pid->items[2]->s;
    v->storage.numel = pid->items[4]->i;
    if (v->storage.numel < 0) return fail("negative storage size");
    return push(v);
  }

  Status set_items(PickleRef dict, const std::vector<PickleRef>& items) {
    if (dict->kind != Kind::kDict || items.size() % 2 != 0) return fail("SETITEMS on a non-dict or an odd count");
    for (size_t i = 0; i < items.size(); i += 2) dict->entries.emplace_back(items[i], items[i + 1]);
    return Status();
  }

  // LONG1: n-byte little-endian two's complement.
  Status long1() {
    uint8_t n;
    if (!read(&n) || n > 8 || !need(n)) return fail("LONG1 wider than 64 bits or truncated");
    uint64_t value = 0;
    for (uint8_t k = 0; k < n; ++k) value |= uint64_t(b_[pos_ + k]) << (8 * k);
    if (n > 0 && n < 8 && (b_[pos_ + n - 1] & 0x80)) value |= ~uint64_t(0) << (8 * n);
    pos_ += n;
    return push_int(static_cast<int64_t>(value));
  }

  // BINFLOAT: a big-endian double.
  Status binfloat() {
    if (!need(8)) return fail("truncated BINFLOAT");
    uint64_t bits = 0;
    for (int k = 0; k < 8; ++k) bits = (bits << 8) | b_[pos_ + static_cast<size_t>(k)];
    pos_ += 8;
    auto v = make(Kind::kFloat);
    std::memcpy(&v->f, &bits, 8);
    return push(v);
  }

  Status push_bool(bool value) {
    auto v = make(Kind::kBool);
    v->i = value;
    return push(v);
  }

  Status tuple_from_mark() {
    std::vector<PickleRef> items;
    FOCAL_RETURN_IF_ERROR(pop_to_mark(&items));
    auto v = make(Kind::kTuple);
    v->items = std::move(items);
    return push(v);
  }

  // APPEND (one value) or APPENDS (the values since the MARK) to the list below them.
  Status append(bool many) {
    std::vector<PickleRef> items(1, nullptr);
    if (many) {
      FOCAL_RETURN_IF_ERROR(pop_to_mark(&items));
    } else if (!pop(&items[0])) {
      return underflow();
    }
    if (stack_.empty() || stack_.back()->kind != Kind::kList) {
      return fail(many ? "APPENDS to a non-list" : "APPEND to a non-list");
    }
    for (auto& item : items) stack_.back()->items.push_back(item);
    return Status();
  }

  // SETITEM (one key and value) or SETITEMS (the pairs since the MARK) into the dict below.
  Status set_item(bool many) {
    std::vector<PickleRef> items(2, nullptr);
    if (many) {
      FOCAL_RETURN_IF_ERROR(pop_to_mark(&items));
    } else {
      if (!pop(&items[1]) || !pop(&items[0])) return underflow();
    }
    if (stack_.empty()) return fail(many ? "SETITEMS without a dict" : "SETITEM without a dict");
    return set_items(stack_.back(), items);
  }

  // GLOBAL "module\nname\n".
  Status global_by_lines() {
    std::string parts[2];
    for (std::string& part : parts) {
      const uint8_t* end = static_cast<const uint8_t*>(std::memchr(b_.data() + pos_, '\n', b_.size() - pos_));
      if (end == nullptr || end - (b_.data() + pos_) > 256) return fail("malformed GLOBAL");
      part.assign(reinterpret_cast<const char*>(b_.data() + pos_), static_cast<size_t>(end - (b_.data() + pos_)));
      pos_ = static_cast<size_t>(end - b_.data()) + 1;
    }
    return global(parts[0], parts[1]);
  }

  Status stack_global() {
    PickleRef name = nullptr, module = nullptr;
    if (!pop(&name) || !pop(&module)) return underflow();
    if (name->kind != Kind::kString || module->kind != Kind::kString) return fail("STACK_GLOBAL needs two strings");
    return global(module->s, name->s);
  }

  // BUILD: object state (an OrderedDict's _metadata); kept out of the tensors.
  Status build() {
    PickleRef state = nullptr;
    if (!pop(&state)) return underflow();
    if (stack_.empty() || stack_.back()->kind != Kind::kDict) return fail("BUILD on something that is not a dict");
    return Status();
  }

  // The framing, marks and constants: true when `op` is one of them.
  bool structure_op(uint8_t op, Status* status) {
    switch (op) {
      case 0x80: {  // PROTO
        uint8_t version;
        *status = read(&version) && version <= 5 ? Status() : fail("unsupported pickle protocol");
        return true;
      }
      case 0x95: {  // FRAME: a length hint only
        uint64_t length;
        *status = read(&length) ? Status() : fail("truncated FRAME");
        return true;
      }
      case '(': marks_.push_back(stack_.size()); *status = Status(); return true;
      case '}': *status = push(make(Kind::kDict)); return true;
      case ']': *status = push(make(Kind::kList)); return true;
      case ')': *status = push(make(Kind::kTuple)); return true;
      case 'N': *status = push(make(Kind::kNone)); return true;
      case 0x88: case 0x89: *status = push_bool(op == 0x88); return true;  // NEWTRUE, NEWFALSE
      default: return false;
    }
  }

  // Numbers and strings.
  bool scalar_op(uint8_t op, Status* status) {
    switch (op) {
      case 'K': { uint8_t v; *status = read(&v) ? push_int(v) : fail("truncated BININT1"); return true; }
      case 'M': { uint16_t v; *status = read(&v) ? push_int(v) : fail("truncated BININT2"); return true; }
      case 'J': { int32_t v; *status = read(&v) ? push_int(v) : fail("truncated BININT"); return true; }
      case 0x8a: *status = long1(); return true;
      case 'G': *status = binfloat(); return true;
      case 'X': { uint32_t n; *status = read(&n) ? read_string(n) : fail("truncated BINUNICODE"); return true; }
      case 0x8c: { uint8_t n; *status = read(&n) ? read_string(n) : fail("truncated SHORT_BINUNICODE"); return true; }
      default: return false;
    }
  }

  // The memo, and values built from others: tuples, lists, dicts, globals and calls.
  bool compound_op(uint8_t op, Status* status) {
    switch (op) {
      case 'q': { uint8_t i; *status = read(&i) ? memo_put(i) : fail("truncated BINPUT"); return true; }
      case 'r': { uint32_t i; *status = read(&i) ? memo_put(i) : fail("truncated LONG_BINPUT"); return true; }
      case 0x94: *status = memo_put(static_cast<uint32_t>(memo_.size())); return true;  // MEMOIZE
      case 'h': { uint8_t i; *status = read(&i) ? memo_get(i) : fail("truncated BINGET"); return true; }
      case 'j': { uint32_t i; *status = read(&i) ? memo_get(i) : fail("truncated LONG_BINGET"); return true; }
      case 't': *status = tuple_from_mark(); return true;
      case 0x85: case 0x86: case 0x87: *status = tuple_of(size_t(op - 0x84)); return true;  // TUPLE1..3
      case 'a': case 'e': *status = append(op == 'e'); return true;
      case 's': case 'u': *status = set_item(op == 'u'); return true;
      case 'c': *status = global_by_lines(); return true;
      case 0x93: *status = stack_global(); return true;
      case 'R': *status = reduce(); return true;
      case 'Q': *status = persistent_load(); return true;
      case 'b': *status = build(); return true;
      default: return false;
    }
  }

  Status step(uint8_t op) {
    Status status;
    if (structure_op(op, &status) || scalar_op(op, &status) || compound_op(op, &status)) return status;
    char hex[8];
    (void)std::snprintf(hex, sizeof(hex), "0x%02x", op);  // "0xff" fits
    return fail(std::string("unsupported pickle opcode ") + hex);
  }

  const std::vector<uint8_t>& b_;
  std::string where_;
  size_t pos_ = 0;
  std::vector<PickleRef> stack_;
  std::vector<size_t> marks_;
  std::map<uint32_t, PickleRef> memo_;
  PickleDocument doc_;
};

}  // namespace

Result<PickleDocument> unpickle(const std::vector<uint8_t>& bytes, const std::string& where) {
  return Unpickler(bytes, where).run();
}

}  // namespace convert
}  // namespace focal
