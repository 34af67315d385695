// Reading and writing the scalars of a FlatBuffer by reflection type, for the
// structure-aware mutator (flatbuffer_mutator*.cpp).
#pragma once

#include <flatbuffers/flatbuffers.h>
#include <flatbuffers/reflection_generated.h>

#include <cstdint>
#include <cstring>

namespace focal {
namespace fuzz {

using reflection::BaseType;

inline bool is_scalar(BaseType type) {
  return type >= reflection::UType && type <= reflection::Double;
}
inline bool is_float(BaseType type) {
  return type == reflection::Float || type == reflection::Double;
}

// Bytes a value of `type` takes inline: scalars, and 4 for anything stored by offset.
inline size_t inline_bytes(BaseType type) {
  switch (type) {
    case reflection::UType:
    case reflection::Bool:
    case reflection::Byte:
    case reflection::UByte:
      return 1;
    case reflection::Short:
    case reflection::UShort:
      return 2;
    case reflection::Int:
    case reflection::UInt:
    case reflection::Float:
      return 4;
    case reflection::Long:
    case reflection::ULong:
    case reflection::Double:
      return 8;
    default:
      return sizeof(flatbuffers::uoffset_t);
  }
}

// FlatBuffers are little-endian, as every host this fuzzes on.
inline uint64_t load_bits(const uint8_t* p, size_t bytes) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, bytes);
  return bits;
}
inline void store_bits(uint8_t* p, uint64_t bits, size_t bytes) { std::memcpy(p, &bits, bytes); }

inline const uint8_t* follow(const uint8_t* offset_at) {
  return offset_at + flatbuffers::ReadScalar<flatbuffers::uoffset_t>(offset_at);
}

inline uint64_t double_bits(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  return bits;
}

}  // namespace fuzz
}  // namespace focal
