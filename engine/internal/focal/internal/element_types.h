// Every element type focal meets, named and sized in one table: the engine's DType
// (focal/tensor.h's dtype_name and dtype_size) and the converter's checkpoint element
// types (converter/src/readers/checkpoint.h, whose names are these in capitals) both
// read their names and sizes here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/tensor.h"

namespace focal {

// The first six are DType's, in its order (the file format's), so a DType converts by
// value; the rest occur only in checkpoints. i4 is the engine's packed int4 (at most a
// byte per element: its packed size is the layout's).
enum class ElementType : uint8_t { kF32, kF16, kBF16, kI8, kI32, kI4, kF64, kI64, kI16, kU8, kBool };

struct ElementTypeRow {
  char name[5];  // in the row itself: no pointer per row and no string table
  uint8_t bytes;
};

// The table in two parts, so that firmware links only the engine's.
inline constexpr ElementTypeRow kEngineElementTypes[] = {
    {"f32", 4}, {"f16", 2}, {"bf16", 2}, {"i8", 1}, {"i32", 4}, {"i4", 1}};
inline constexpr ElementTypeRow kCheckpointElementTypes[] = {
    {"f64", 8}, {"i64", 8}, {"i16", 2}, {"u8", 1}, {"bool", 1}};
inline constexpr size_t kEngineElementTypeCount = sizeof(kEngineElementTypes) / sizeof(kEngineElementTypes[0]);
inline constexpr size_t kElementTypeCount =
    kEngineElementTypeCount + sizeof(kCheckpointElementTypes) / sizeof(kCheckpointElementTypes[0]);

// {"?", 0} for a value outside the table.
inline const ElementTypeRow& element_type_row(ElementType type) {
  static constexpr ElementTypeRow kUnknown = {"?", 0};
  const size_t i = static_cast<size_t>(type);
  if (i < kEngineElementTypeCount) return kEngineElementTypes[i];
  if (i < kElementTypeCount) return kCheckpointElementTypes[i - kEngineElementTypeCount];
  return kUnknown;
}

inline ElementType element_type_of(DType dtype) { return static_cast<ElementType>(dtype); }

}  // namespace focal
