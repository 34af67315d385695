// Contents the engine later trusts: self-test cases it replays and tokenizer tables it
// searches.
#include <cstring>

#include "load/verify_checks.h"

namespace focal {
namespace verify {
namespace {

Status check_tensor_value(const fb::Model& model, const FileLayout& file,
                          const fb::TensorValue& value, int case_index) {
  const auto& tensors = *model.tensors();
  if (value.tensor() < 0 || static_cast<uint32_t>(value.tensor()) >= tensors.size()) {
    return invalid("self-test %d names tensor %d, the model has %u", case_index,
                   static_cast<int>(value.tensor()), static_cast<unsigned>(tensors.size()));
  }
  const fb::Tensor& t = *tensors.Get(value.tensor());
  if (!aligned_longs(value.shape())) {
    return invalid("self-test %d: the value of '%s' has a misaligned shape vector", case_index,
                   name_of(t));
  }
  if (value.shape()->size() != t.shape()->size()) {
    return invalid("self-test %d: value of '%s' has rank %u, the tensor %u", case_index, name_of(t),
                   static_cast<unsigned>(value.shape()->size()),
                   static_cast<unsigned>(t.shape()->size()));
  }
  uint64_t bytes = dtype_size(to_dtype(t.dtype()));
  for (uint32_t i = 0; i < value.shape()->size(); ++i) {
    const int64_t d = value.shape()->Get(i);
    const bool symbolic = t.dim_symbols() && t.dim_symbols()->Get(i) != -1;
    if (d < 1 || d > t.shape()->Get(i) || (!symbolic && d != t.shape()->Get(i))) {
      return invalid("self-test %d: value of '%s' has dim %u = %lld, outside its plan", case_index,
                     name_of(t), static_cast<unsigned>(i), static_cast<long long>(d));
    }
    bytes *= static_cast<uint64_t>(d);  // <= the verified maximum, cannot overflow
  }
  return check_buffer(file, value.data(), bytes, "self-test value of", name_of(t));
}

}  // namespace

Status check_self_tests(const fb::Model& model, const FileLayout& file) {
  if (model.self_tests() == nullptr) return Status();
  int index = 0;
  for (const fb::SelfTestCase* c : *model.self_tests()) {
    if (c->inputs() == nullptr || c->expected_outputs() == nullptr) {
      return invalid("self-test %d lacks inputs or expected outputs", index);
    }
    for (const fb::TensorValue* v : *c->inputs()) {
      FOCAL_RETURN_IF_ERROR(check_tensor_value(model, file, *v, index));
      if (model.tensors()->Get(v->tensor())->role() != fb::TensorRole_Input) {
        return invalid("self-test %d sets a tensor that is not an input", index);
      }
    }
    for (const fb::TensorValue* v : *c->expected_outputs()) {
      FOCAL_RETURN_IF_ERROR(check_tensor_value(model, file, *v, index));
      if (model.tensors()->Get(v->tensor())->role() != fb::TensorRole_Output) {
        return invalid("self-test %d expects a tensor that is not an output", index);
      }
    }
    if (!(c->atol() >= 0.0f) || !(c->rtol() >= 0.0f)) {
      return invalid("self-test %d has a negative or NaN tolerance", index);
    }
    ++index;
  }
  return Status();
}

namespace {

// The next entry of a string table the engine binary-searches: present, at most
// kMaxTokenBytes (what bounds encoding's walks) and strictly after *previous, bytewise
// (which also rules out repeats); *previous becomes s.
bool next_in_order(const flatbuffers::String** previous, const flatbuffers::String* s) {
  const flatbuffers::String* p = *previous;
  *previous = s;
  if (s == nullptr || s->size() > kMaxTokenBytes) return false;
  if (p == nullptr) return true;
  const int c = std::memcmp(p->data(), s->data(), p->size() < s->size() ? p->size() : s->size());
  return c < 0 || (c == 0 && p->size() < s->size());
}

}  // namespace

// Added tokens (in range, non-empty, in strictly increasing string order: encode walks
// them by binary searches; an empty one is reported as missing) and the post-processor's
// templates (ids in range, or -1/-2 for the texts).
Status check_specials(const fb::Tokenizer* t, const char* which) {
  const int64_t size = t->vocab()->size();
  if (t->added_tokens() != nullptr) {
    const flatbuffers::String* previous = nullptr;
    for (const fb::AddedToken* a : *t->added_tokens()) {
      if (a == nullptr || a->id() < 0 || a->id() >= size) {
        return invalid("%s: an added token is outside the vocabulary", which);
      }
      const flatbuffers::String* s = t->vocab()->Get(static_cast<uint32_t>(a->id()));
      if (!next_in_order(&previous, s) || s->size() == 0) {
        return invalid("%s: %s %d is missing, over %u bytes or out of order", which, "added token",
                       static_cast<int>(a->id()), static_cast<unsigned>(kMaxTokenBytes));
      }
    }
  }
  for (const flatbuffers::Vector<int32_t>* steps : {t->template_single(), t->template_pair()}) {
    if (steps == nullptr) continue;
    for (int32_t id : *steps) {
      if (id < -2 || id >= size) return invalid("%s: template step %d outside the vocabulary", which, static_cast<int>(id));
    }
  }
  return Status();
}

// A tokenizer's lookup tables are searched by the engine, so they must be what they
// claim: sorted_vocab a permutation of the ids in strictly increasing string order, no
// entry over kMaxTokenBytes (what bounds encoding's walks), merge rules in range and
// strictly ordered by (left, right), special ids in range.
Status check_tokenizer(const fb::Tokenizer* t, const char* which) {
  if (t == nullptr) return Status();
  if (t->vocab() == nullptr || t->sorted_vocab() == nullptr ||
      t->sorted_vocab()->size() != t->vocab()->size()) {
    return invalid("%s: vocab and sorted_vocab must be present and the same size", which);
  }
  const int64_t size = t->vocab()->size();
  for (int32_t id : {t->unk_id(), t->bos_id(), t->eos_id(), t->pad_id()}) {
    if (id < -1 || id >= size)
      return invalid("%s: special token id %d outside the vocabulary", which, static_cast<int>(id));
  }
  const flatbuffers::String* previous = nullptr;
  for (int32_t id : *t->sorted_vocab()) {
    if (id < 0 || id >= size)
      return invalid("%s: sorted_vocab names id %d of %lld", which, static_cast<int>(id),
                     static_cast<long long>(size));
    if (!next_in_order(&previous, t->vocab()->Get(static_cast<uint32_t>(id)))) {
      return invalid("%s: %s %d is missing, over %u bytes or out of order", which, "vocab entry",
                     static_cast<int>(id), static_cast<unsigned>(kMaxTokenBytes));
    }
  }
  if (t->merge_rules() != nullptr) {
    int64_t last_left = -1, last_right = -1;
    for (const fb::MergeRule* r : *t->merge_rules()) {
      if (r->left() < 0 || r->left() >= size || r->right() < 0 || r->right() >= size ||
          r->merged() < 0 || r->merged() >= size) {
        return invalid("%s: a merge rule names a token outside the vocabulary", which);
      }
      if (r->left() < last_left || (r->left() == last_left && r->right() <= last_right)) {
        return invalid("%s: merge rules are not strictly ordered by (left, right)", which);
      }
      last_left = r->left();
      last_right = r->right();
    }
  } else if (t->kind() == fb::TokenizerKind_ByteLevelBpe) {
    return invalid("%s: a byte-level BPE tokenizer needs merge rules", which);
  }
  return check_specials(t, which);
}

}  // namespace verify
}  // namespace focal
