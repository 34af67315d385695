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

// Added tokens (in range, non-empty) and the post-processor's templates (ids in range, or
// -1/-2 for the texts).
Status check_specials(const fb::Tokenizer* t, const char* which) {
  const int64_t size = t->vocab()->size();
  if (t->added_tokens() != nullptr) {
    for (const fb::AddedToken* a : *t->added_tokens()) {
      if (a == nullptr || a->id() < 0 || a->id() >= size || t->vocab()->Get(static_cast<uint32_t>(a->id()))->size() == 0) {
        return invalid("%s: an added token is outside the vocabulary or empty", which);
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
// claim: sorted_vocab a permutation of the ids in strictly increasing string order, merge
// rules in range and strictly ordered by (left, right), special ids in range.
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
    const flatbuffers::String* s = t->vocab()->Get(static_cast<uint32_t>(id));
    if (s == nullptr) return invalid("%s: vocab entry %d is missing", which, static_cast<int>(id));
    if (previous != nullptr) {
      const size_t n = previous->size() < s->size() ? previous->size() : s->size();
      const int c = std::memcmp(previous->data(), s->data(), n);
      if (c > 0 || (c == 0 && previous->size() >= s->size())) {
        return invalid("%s: sorted_vocab is not in strictly increasing order at id %d", which,
                       static_cast<int>(id));
      }
    }
    previous = s;  // strictly increasing strings also rule out repeated ids
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
