// The mutator's choices: which sites to mutate, the values it writes (edge scalars,
// enum values one past the last, a sibling's remembered value), and what it remembers.
#include <algorithm>
#include <cstring>

#include "flatbuffer_bits.h"
#include "flatbuffer_mutator.h"

namespace focal {
namespace fuzz {
namespace {

constexpr size_t kRemembered = 32;  // values kept per site for "copy a sibling's value"

}  // namespace

bool FlatBufferMutator::visit(SiteKey key) {
  const uint32_t instance = visits_[key]++;
  return !counting_ && targets_.count(Target{key, instance}) > 0;
}

FlatBufferMutator::SiteKey FlatBufferMutator::key_of(const reflection::Object& object,
                                                     const reflection::Field& field,
                                                     bool elements) const {
  const auto it = object_index_.find(&object);
  const uint32_t index = it != object_index_.end() ? it->second : 0xFFu;
  return (index << 10) | (static_cast<uint32_t>(field.id()) << 1) | (elements ? 1u : 0u);
}

uint64_t FlatBufferMutator::mutate_scalar_bits(BaseType type, int32_t enum_index, uint64_t bits,
                                               SiteKey key) {
  const size_t bytes = inline_bytes(type);
  // Another instance's value of the same field: an operand naming another tensor, two
  // tensors at one arena offset, a shape copied from a neighbour.
  const auto seen = seen_values_.find(key);
  if (seen != seen_values_.end() && !seen->second.empty() && random_->one_in(4)) {
    return seen->second[random_->below(seen->second.size())];
  }
  if (type == reflection::Bool) return random_->below(3);  // 2: a bool byte that is neither
  if (enum_index >= 0 && !random_->one_in(4)) return random_enum_value(enum_index);
  if (type == reflection::Float) {
    const float f = bits_float(static_cast<uint32_t>(bits));
    switch (random_->below(4)) {
      case 0:
        return float_bits(f * 2.0f);
      case 1:
        return float_bits(-f);
      case 2:
        return mutate_integer_bits(bits, bytes, *random_);
      default:
        return float_bits(interesting_float(*random_));
    }
  }
  if (type == reflection::Double)
    return double_bits(static_cast<double>(interesting_float(*random_)));
  return mutate_integer_bits(bits, bytes, *random_);
}

// One of the enum's values, or one past the largest (the first unknown value).
uint64_t FlatBufferMutator::random_enum_value(int32_t enum_index) {
  const reflection::Enum& e = *schema_.enums()->Get(static_cast<uint32_t>(enum_index));
  const auto& values = *e.values();
  if (values.size() == 0 || random_->one_in(5)) {
    int64_t largest = 0;
    for (const reflection::EnumVal* v : values) largest = std::max(largest, v->value());
    return static_cast<uint64_t>(largest + 1);
  }
  return static_cast<uint64_t>(
      values.Get(static_cast<uint32_t>(random_->below(values.size())))->value());
}

// Struct fields share the struct's site; each field gets its own remembered values.
void FlatBufferMutator::mutate_struct_bytes(const reflection::Object& object, uint8_t* bytes,
                                            SiteKey key) {
  const auto& fields = *object.fields();
  if (fields.size() == 0) return;
  const uint32_t which = static_cast<uint32_t>(random_->below(fields.size()));
  const reflection::Field& field = *fields.Get(which);
  const BaseType type = field.type()->base_type();
  if (!is_scalar(type)) return;
  const size_t size = inline_bytes(type);
  const uint64_t bits = load_bits(bytes + field.offset(), size);
  store_bits(bytes + field.offset(),
             mutate_scalar_bits(type, field.type()->index(), bits, key | ((which + 1) << 24)),
             size);
}

void FlatBufferMutator::remember_struct(const reflection::Object& object, const uint8_t* bytes,
                                        SiteKey key) {
  const auto& fields = *object.fields();
  for (uint32_t i = 0; i < fields.size(); ++i) {
    const reflection::Field& field = *fields.Get(i);
    const BaseType type = field.type()->base_type();
    if (is_scalar(type))
      remember(key | ((i + 1) << 24), load_bits(bytes + field.offset(), inline_bytes(type)));
  }
}

void FlatBufferMutator::mutate_text(std::string& text, SiteKey key) {
  const auto seen = seen_texts_.find(key);
  const size_t n = text.size();
  switch (random_->below(6)) {
    case 0:  // a sibling's string: duplicate names, repeated vocabulary entries
      if (seen != seen_texts_.end() && !seen->second.empty())
        text = seen->second[random_->below(seen->second.size())];
      break;
    case 1:
      text = interesting_text(*random_);
      break;
    case 2:
      text.insert(random_->below(n + 1), interesting_text(*random_));
      break;
    case 3:
      if (n > 0) text[random_->below(n)] = static_cast<char>(random_->next());
      break;
    case 4:
      text.resize(random_->below(n + 1));
      break;
    default:
      if (n < 4096) text += text;
      break;
  }
}

void FlatBufferMutator::remember(SiteKey key, uint64_t bits) {
  if (!counting_) return;
  std::vector<uint64_t>& values = seen_values_[key];
  if (values.size() < kRemembered) {
    values.push_back(bits);
  } else {
    values[random_->below(kRemembered)] = bits;
  }
}

void FlatBufferMutator::remember(SiteKey key, const std::string& text) {
  if (!counting_) return;
  std::vector<std::string>& texts = seen_texts_[key];
  if (texts.size() < kRemembered) {
    texts.push_back(text);
  } else {
    texts[random_->below(kRemembered)] = text;
  }
}

}  // namespace fuzz
}  // namespace focal
