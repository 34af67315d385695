// A float form's options table, field by field (ops/options_verifier.h).
#include "ops/options_verifier.h"

namespace focal {

bool verify_float_table(flatbuffers::Verifier& verifier, const void* options, const ScalarField* fields,
                        size_t count, const flatbuffers::voffset_t* int8_parts, size_t int8_count) {
  const auto& table = *static_cast<const flatbuffers::Table*>(options);
  if (!table.VerifyTableStart(verifier)) return false;
  for (size_t i = 0; i < int8_count; ++i) {
    if (table.CheckField(int8_parts[i])) return false;
  }
  const auto* base = static_cast<const uint8_t*>(options);
  for (size_t i = 0; i < count; ++i) {
    const flatbuffers::voffset_t at = table.GetOptionalFieldOffset(fields[i].slot);
    if (at != 0 && !verifier.VerifyFieldStruct(base, at, fields[i].size, fields[i].size)) return false;
  }
  return verifier.EndTable();
}

}  // namespace focal
