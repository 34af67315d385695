// Structure-aware mutation of a FlatBuffer through its reflection schema (.bfbs): the
// buffer is rebuilt table by table, and a few randomly chosen places change on the way
// (a scalar field's value or presence, a string, a vector's length or elements, a struct
// field, a union's member type). Generic over the schema, so every table, field and
// union member of schema/focal.fbs is reachable, and fields added later are too.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "flatbuffers/reflection_generated.h"
#include "mutation_values.h"

namespace focal {
namespace fuzz {

class FlatBufferMutator {
 public:
  // `schema` must outlive the mutator.
  explicit FlatBufferMutator(const reflection::Schema& schema);

  // `root`: the root table of a buffer already checked by the FlatBuffers Verifier
  // against this schema. Returns the rebuilt, size-prefixed buffer (with the schema's
  // file identifier) carrying `mutations` changes chosen by `random`.
  std::vector<uint8_t> mutate(const flatbuffers::Table& root, int mutations, Random& random);

 private:
  // A place that can change: one field of one table type, or the elements of a vector
  // field. Every instance of it in the buffer is counted in a first pass.
  using SiteKey = uint32_t;
  struct Target {
    SiteKey key;
    uint32_t instance;
    bool operator<(const Target& o) const {
      return key != o.key ? key < o.key : instance < o.instance;
    }
  };
  struct Scalar {
    const reflection::Field* field;
    uint64_t bits;
    bool present;
  };

  // One rebuild: count sites (no targets) or apply the chosen targets.
  flatbuffers::uoffset_t copy_table(const reflection::Object& object,
                                    const flatbuffers::Table* table);
  flatbuffers::uoffset_t copy_fresh_table(const reflection::Object& object);
  flatbuffers::uoffset_t copy_string(const reflection::Object& object,
                                     const reflection::Field& field,
                                     const flatbuffers::Table& table);
  flatbuffers::uoffset_t copy_vector(const reflection::Object& object,
                                     const reflection::Field& field,
                                     const flatbuffers::Table& table);
  flatbuffers::uoffset_t copy_union(const reflection::Field& field, const flatbuffers::Table& table,
                                    const std::vector<Scalar>& scalars);
  // The struct's bytes as they go into the table; empty when the field stays absent.
  std::vector<uint8_t> copy_struct(const reflection::Object& owner,
                                   const reflection::Object& object, const reflection::Field& field,
                                   const flatbuffers::Table& table);
  Scalar read_scalar(const reflection::Field& field, const flatbuffers::Table* table) const;
  void add_scalar(const Scalar& scalar);

  // Counts the visit of a site; true when this instance is a chosen target.
  bool visit(SiteKey key);
  SiteKey key_of(const reflection::Object& object, const reflection::Field& field,
                 bool elements) const;
  // enum_index: the scalar's enum in the schema, -1 for a plain number.
  uint64_t mutate_scalar_bits(reflection::BaseType type, int32_t enum_index, uint64_t bits,
                              SiteKey key);
  uint64_t random_enum_value(int32_t enum_index);
  void mutate_struct_bytes(const reflection::Object& object, uint8_t* bytes, SiteKey key);
  void remember_struct(const reflection::Object& object, const uint8_t* bytes, SiteKey key);
  void mutate_text(std::string& text, SiteKey key);
  void remember(SiteKey key, uint64_t bits);
  void remember(SiteKey key, const std::string& text);

  const reflection::Schema& schema_;
  std::map<const reflection::Object*, uint32_t> object_index_;
  Random* random_ = nullptr;
  flatbuffers::FlatBufferBuilder builder_;
  std::map<SiteKey, uint32_t> visits_;                      // this pass: instances seen per site
  std::map<SiteKey, std::vector<uint64_t>> seen_values_;    // counting pass: some values per site
  std::map<SiteKey, std::vector<std::string>> seen_texts_;  // counting pass: some strings per site
  bool counting_ = false;
  std::set<Target> targets_;  // mutation pass: what changes
};

}  // namespace fuzz
}  // namespace focal
