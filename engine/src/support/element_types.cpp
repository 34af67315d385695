#include "focal/internal/element_types.h"

namespace focal {

// The engine's rows only (kEngineElementTypes), so that firmware links no checkpoint type.
const char* dtype_name(DType dtype) {
  const size_t i = static_cast<size_t>(dtype);
  return i < kEngineElementTypeCount ? kEngineElementTypes[i].name : "?";
}

size_t dtype_size(DType dtype) {
  const size_t i = static_cast<size_t>(dtype);
  return i < kEngineElementTypeCount ? kEngineElementTypes[i].bytes : 0;
}

}  // namespace focal
