// The envelope of a .focal file, for mutators that rebuild it:
//   [u32 flatbuffer size][flatbuffer: Model][zero padding to 64][data segment]
// (schema/focal.fbs). Buffer offsets are relative to the data segment, so a rebuilt
// FlatBuffer of another size keeps every weight valid once the segment is re-aligned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace focal {
namespace fuzz {

struct FocalFileParts {
  const uint8_t* flatbuffer = nullptr;  // without the size prefix
  size_t flatbuffer_bytes = 0;
  const uint8_t* data_segment = nullptr;
  size_t data_bytes = 0;  // 0 when the file ends before its data segment
};

// Splits `file` (8-byte aligned, as FlatBuffers reads scalars in place); false when the
// size prefix points past the end or the FlatBuffer fails the schema's Verifier.
bool split_focal_file(const uint8_t* file, size_t size, FocalFileParts* parts);

// [prefix][flatbuffer][padding][data segment], the data segment at the next multiple of 64.
std::vector<uint8_t> assemble_focal_file(const uint8_t* flatbuffer, size_t flatbuffer_bytes,
                                         const uint8_t* data_segment, size_t data_bytes);

// Writes the CRC-32 the loader expects (engine/src/checksum.h) into the file's checksum
// field, as the converter does; false when the structure does not verify or carries no
// checksum (the file then fails the loader's first checks, which is tested too).
bool restamp_checksum(std::vector<uint8_t>& file);

}  // namespace fuzz
}  // namespace focal
