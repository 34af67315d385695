// Rebuilding a FlatBuffer through its schema's reflection data, copying what it reads and
// mutating some of it on the way (the choices: flatbuffer_mutator_choices.cpp).
#include "flatbuffer_mutator.h"
#include "flatbuffer_bits.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace focal {
namespace fuzz {

FlatBufferMutator::FlatBufferMutator(const reflection::Schema& schema) : schema_(schema) {
  for (uint32_t i = 0; i < schema.objects()->size(); ++i)
    object_index_[schema.objects()->Get(i)] = i;
}

std::vector<uint8_t> FlatBufferMutator::mutate(const flatbuffers::Table& root, int mutations,
                                               Random& random) {
  random_ = &random;
  const reflection::Object& root_object = *schema_.root_table();

  // Pass 1 rebuilds unchanged, counting every site's instances and sampling values.
  counting_ = true;
  visits_.clear();
  seen_values_.clear();
  seen_texts_.clear();
  targets_.clear();
  builder_.Clear();
  (void)copy_table(root_object, &root);
  // Sites are chosen uniformly, then an instance of the site: a vocabulary of thousands
  // of strings is one site, as likely to change as the memory plan's arena size.
  const std::vector<std::pair<SiteKey, uint32_t>> sites(visits_.begin(), visits_.end());
  for (int m = 0; m < mutations && !sites.empty(); ++m) {
    const auto& site = sites[random.below(sites.size())];
    targets_.insert({site.first, static_cast<uint32_t>(random.below(site.second))});
  }

  // Pass 2 rebuilds with the chosen changes. Instance numbers after a change that adds
  // or removes elements shift; a target then lands on a neighbour, which is as random.
  counting_ = false;
  visits_.clear();
  builder_.Clear();
  const flatbuffers::uoffset_t new_root = copy_table(root_object, &root);
  builder_.FinishSizePrefixed(
      flatbuffers::Offset<void>(new_root),
      schema_.file_ident() != nullptr ? schema_.file_ident()->c_str() : nullptr);
  return std::vector<uint8_t>(builder_.GetBufferPointer(),
                              builder_.GetBufferPointer() + builder_.GetSize());
}

flatbuffers::uoffset_t FlatBufferMutator::copy_table(const reflection::Object& object,
                                                     const flatbuffers::Table* table) {
  if (table == nullptr) return copy_fresh_table(object);
  // Scalars first: a union's value is built with the (possibly mutated) type beside it.
  std::vector<Scalar> scalars;
  for (const reflection::Field* field : *object.fields()) {
    if (field->deprecated() || !is_scalar(field->type()->base_type())) continue;
    Scalar scalar = read_scalar(*field, table);
    const SiteKey key = key_of(object, *field, false);
    remember(key, scalar.bits);
    if (visit(key)) {
      if (scalar.present && random_->one_in(6)) {
        scalar.present = false;  // absent: the default applies
      } else {
        scalar.bits = mutate_scalar_bits(field->type()->base_type(), field->type()->index(),
                                         scalar.bits, key);
        scalar.present = true;
      }
    }
    scalars.push_back(scalar);
  }
  // Children are serialized before the table that refers to them.
  std::vector<std::pair<const reflection::Field*, flatbuffers::uoffset_t>> children;
  std::vector<std::pair<const reflection::Field*, std::vector<uint8_t>>> structs;
  for (const reflection::Field* field : *object.fields()) {
    if (field->deprecated()) continue;
    const reflection::Type& type = *field->type();
    flatbuffers::uoffset_t child = 0;
    switch (type.base_type()) {
      case reflection::String:
        child = copy_string(object, *field, *table);
        break;
      case reflection::Vector:
        child = copy_vector(object, *field, *table);
        break;
      case reflection::Union:
        child = copy_union(*field, *table, scalars);
        break;
      case reflection::Obj: {
        const reflection::Object& sub =
            *schema_.objects()->Get(static_cast<uint32_t>(type.index()));
        if (sub.is_struct()) {
          std::vector<uint8_t> bytes = copy_struct(object, sub, *field, *table);
          if (!bytes.empty()) structs.emplace_back(field, std::move(bytes));
          break;
        }
        const auto* sub_table = table->GetPointer<const flatbuffers::Table*>(field->offset());
        if (visit(key_of(object, *field, false))) {
          // Drop a present table (a required one fails verification: that is tested too),
          // or add an absent one with arbitrary scalars.
          child = sub_table != nullptr ? 0 : copy_fresh_table(sub);
        } else if (sub_table != nullptr) {
          child = copy_table(sub, sub_table);
        }
        break;
      }
      default:
        break;
    }
    if (child != 0) children.emplace_back(field, child);
  }

  const flatbuffers::uoffset_t start = builder_.StartTable();
  for (const auto& s : structs) {
    const reflection::Object& sub =
        *schema_.objects()->Get(static_cast<uint32_t>(s.first->type()->index()));
    builder_.Align(static_cast<size_t>(sub.minalign()));
    builder_.PushBytes(s.second.data(), s.second.size());
    builder_.TrackField(s.first->offset(), builder_.GetSize());
  }
  for (const Scalar& scalar : scalars) {
    if (scalar.present) add_scalar(scalar);
  }
  for (const auto& c : children)
    builder_.AddOffset(c.first->offset(), flatbuffers::Offset<void>(c.second));
  return builder_.EndTable(start);
}

// A table that was not in the file (a union switched to another member, an added
// optional table): small scalars, so the verifier's later checks see plausible values;
// no children, so a required one is missing and refused.
flatbuffers::uoffset_t FlatBufferMutator::copy_fresh_table(const reflection::Object& object) {
  std::vector<Scalar> scalars;
  for (const reflection::Field* field : *object.fields()) {
    const reflection::Type& type = *field->type();
    if (field->deprecated() || !is_scalar(type.base_type())) continue;
    Scalar scalar{field, 0, true};
    if (type.index() >= 0) {
      scalar.bits = random_enum_value(type.index());
    } else if (type.base_type() == reflection::Float) {
      scalar.bits = random_->one_in(2) ? float_bits(static_cast<float>(field->default_real()))
                                       : float_bits(interesting_float(*random_));
    } else if (type.base_type() == reflection::Double) {
      scalar.bits = double_bits(field->default_real());
    } else {
      scalar.bits = random_->below(9);  // head counts, dims, widths: 0 to 8
    }
    scalars.push_back(scalar);
  }
  const flatbuffers::uoffset_t start = builder_.StartTable();
  for (const Scalar& scalar : scalars) add_scalar(scalar);
  return builder_.EndTable(start);
}

flatbuffers::uoffset_t FlatBufferMutator::copy_string(const reflection::Object& object,
                                                      const reflection::Field& field,
                                                      const flatbuffers::Table& table) {
  const auto* original = table.GetPointer<const flatbuffers::String*>(field.offset());
  bool present = original != nullptr;
  std::string text = present ? original->str() : std::string();
  const SiteKey key = key_of(object, field, false);
  remember(key, text);
  if (visit(key)) {
    if (present && random_->one_in(6)) {
      present = false;
    } else {
      mutate_text(text, key);
      present = true;
    }
  }
  return present ? builder_.CreateString(text.data(), text.size()).o : 0;
}

flatbuffers::uoffset_t FlatBufferMutator::copy_vector(const reflection::Object& object,
                                                      const reflection::Field& field,
                                                      const flatbuffers::Table& table) {
  const reflection::Type& type = *field.type();
  const BaseType element = type.element();
  const reflection::Object* element_object =
      element == reflection::Obj ? schema_.objects()->Get(static_cast<uint32_t>(type.index()))
                                 : nullptr;
  const bool inline_elements =
      is_scalar(element) || (element_object != nullptr && element_object->is_struct());
  const size_t element_bytes =
      is_scalar(element) ? inline_bytes(element)
                         : (inline_elements ? static_cast<size_t>(element_object->bytesize())
                                            : sizeof(flatbuffers::uoffset_t));

  const uint8_t* vector = table.GetPointer<const uint8_t*>(field.offset());
  bool present = vector != nullptr;
  const uint32_t length = present ? flatbuffers::ReadScalar<flatbuffers::uoffset_t>(vector) : 0;
  const uint8_t* data = present ? vector + sizeof(flatbuffers::uoffset_t) : nullptr;

  // The new vector as indices into the old one; -1 is an element that was not there.
  std::vector<int64_t> order(length);
  std::iota(order.begin(), order.end(), int64_t(0));
  if (visit(key_of(object, field, false))) {
    present = true;
    const size_t n = order.size();
    switch (random_->below(8)) {
      case 0:
        present = false;
        break;
      case 1:
        order.clear();
        break;
      case 2:
        if (n > 0) order.erase(order.begin() + static_cast<std::ptrdiff_t>(random_->below(n)));
        break;
      case 3:
        if (n > 0)
          order.insert(order.begin() + static_cast<std::ptrdiff_t>(random_->below(n + 1)),
                       order[random_->below(n)]);
        break;
      case 4:
        if (n > 1) std::swap(order[random_->below(n)], order[random_->below(n)]);
        break;
      case 5:
        order.resize(random_->below(n + 1));
        break;
      case 6:
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(random_->below(n + 1)), -1);
        break;
      default:
        std::reverse(order.begin(), order.end());
        break;
    }
  }
  if (!present) return 0;
  const SiteKey key = key_of(object, field, true);

  if (inline_elements) {
    std::vector<uint8_t> bytes(order.size() * element_bytes, 0);
    for (size_t i = 0; i < order.size(); ++i) {
      uint8_t* at = bytes.data() + i * element_bytes;
      if (order[i] >= 0) {
        std::memcpy(at, data + static_cast<size_t>(order[i]) * element_bytes, element_bytes);
      } else if (is_float(element)) {
        store_bits(at,
                   element == reflection::Float ? float_bits(interesting_float(*random_))
                                                : double_bits(1e300),
                   element_bytes);
      } else if (is_scalar(element)) {
        store_bits(at, interesting_integer(*random_), element_bytes);
      }
      if (is_scalar(element)) {
        uint64_t bits = load_bits(at, element_bytes);
        remember(key, bits);
        if (visit(key)) bits = mutate_scalar_bits(element, type.index(), bits, key);
        store_bits(at, bits, element_bytes);
      } else {
        remember_struct(*element_object, at, key);
        if (visit(key)) mutate_struct_bytes(*element_object, at, key);
      }
    }
    // StartVector aligns the data to its second argument: the element's alignment, with
    // the length given in units of it (struct sizes are multiples of their alignment).
    const size_t align =
        is_scalar(element) ? element_bytes : static_cast<size_t>(element_object->minalign());
    builder_.StartVector(bytes.size() / align, align);
    builder_.PushBytes(bytes.data(), bytes.size());
    return builder_.EndVector(order.size());
  }

  std::vector<flatbuffers::Offset<void>> elements;
  for (const int64_t source : order) {
    const uint8_t* at =
        source >= 0 ? follow(data + static_cast<size_t>(source) * element_bytes) : nullptr;
    if (element == reflection::String) {
      std::string text = at != nullptr ? reinterpret_cast<const flatbuffers::String*>(at)->str()
                                       : interesting_text(*random_);
      remember(key, text);
      if (visit(key)) mutate_text(text, key);
      elements.push_back(builder_.CreateString(text.data(), text.size()).Union());
    } else if (element_object != nullptr) {
      elements.push_back(flatbuffers::Offset<void>(
          copy_table(*element_object, reinterpret_cast<const flatbuffers::Table*>(at))));
    }
  }
  return builder_.CreateVector(elements).o;
}

flatbuffers::uoffset_t FlatBufferMutator::copy_union(const reflection::Field& field,
                                                     const flatbuffers::Table& table,
                                                     const std::vector<Scalar>& scalars) {
  // flatc names a union's type field "<name>_type".
  const std::string type_name = field.name()->str() + "_type";
  const Scalar* type_field = nullptr;
  for (const Scalar& s : scalars) {
    if (s.field->name()->str() == type_name) type_field = &s;
  }
  if (type_field == nullptr) return 0;
  const uint64_t original_type = table.GetField<uint8_t>(type_field->field->offset(), 0);
  const uint64_t new_type = type_field->present ? type_field->bits : 0;
  if (new_type == 0) return 0;  // NONE
  const reflection::Enum& members =
      *schema_.enums()->Get(static_cast<uint32_t>(field.type()->index()));
  for (const reflection::EnumVal* member : *members.values()) {
    if (static_cast<uint64_t>(member->value()) != new_type || member->union_type() == nullptr)
      continue;
    const reflection::Object& object =
        *schema_.objects()->Get(static_cast<uint32_t>(member->union_type()->index()));
    const auto* value = table.GetPointer<const flatbuffers::Table*>(field.offset());
    return new_type == original_type && value != nullptr ? copy_table(object, value)
                                                         : copy_fresh_table(object);
  }
  // A type the schema does not know: an empty table, which a reader must refuse.
  return builder_.EndTable(builder_.StartTable());
}

std::vector<uint8_t> FlatBufferMutator::copy_struct(const reflection::Object& owner,
                                                    const reflection::Object& object,
                                                    const reflection::Field& field,
                                                    const flatbuffers::Table& table) {
  const uint8_t* original = table.GetStruct<const uint8_t*>(field.offset());
  std::vector<uint8_t> bytes(static_cast<size_t>(object.bytesize()), 0);
  if (original != nullptr) std::memcpy(bytes.data(), original, bytes.size());
  const SiteKey key = key_of(owner, field, false);
  remember_struct(object, bytes.data(), key);
  if (visit(key)) {
    if (original != nullptr && random_->one_in(8)) return {};
    mutate_struct_bytes(object, bytes.data(), key);
    return bytes;
  }
  return original != nullptr ? bytes : std::vector<uint8_t>();
}

FlatBufferMutator::Scalar FlatBufferMutator::read_scalar(const reflection::Field& field,
                                                         const flatbuffers::Table* table) const {
  const BaseType type = field.type()->base_type();
  const size_t bytes = inline_bytes(type);
  Scalar scalar{&field, 0, false};
  const uint8_t* at = table != nullptr ? table->GetAddressOf(field.offset()) : nullptr;
  if (at != nullptr) {
    scalar.bits = load_bits(at, bytes);
    scalar.present = true;
  } else if (type == reflection::Float) {
    scalar.bits = float_bits(static_cast<float>(field.default_real()));
  } else if (type == reflection::Double) {
    scalar.bits = double_bits(field.default_real());
  } else {
    scalar.bits = static_cast<uint64_t>(field.default_integer());
    if (bytes < 8) scalar.bits &= (uint64_t(1) << (bytes * 8)) - 1;
  }
  return scalar;
}

void FlatBufferMutator::add_scalar(const Scalar& scalar) {
  const flatbuffers::voffset_t at = scalar.field->offset();
  switch (inline_bytes(scalar.field->type()->base_type())) {
    case 1:
      builder_.AddElement<uint8_t>(at, static_cast<uint8_t>(scalar.bits));
      break;
    case 2:
      builder_.AddElement<uint16_t>(at, static_cast<uint16_t>(scalar.bits));
      break;
    case 4:
      builder_.AddElement<uint32_t>(at, static_cast<uint32_t>(scalar.bits));
      break;
    default:
      builder_.AddElement<uint64_t>(at, scalar.bits);
      break;
  }
}

}  // namespace fuzz
}  // namespace focal
