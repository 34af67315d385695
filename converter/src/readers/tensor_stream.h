// The records a reader process (isolated_reader.h) sends its parent: tensors as they
// are read, then an end record, or an error record. Written and read on one machine, so
// in native byte order:
//   'T' u32 name length, name, u8 type (ElementType), u32 rank, rank x i64 dims,
//       u64 byte count, bytes
//   'E' u8 StatusCode, u32 length, message
//   'D'
// The parent trusts nothing in them: names, ranks, types and messages are bounded, each
// byte count must equal what the shape and type give, and all of it is charged to the
// parent's own budget before anything is allocated.
#pragma once

#include <string>

#include "readers/checkpoint.h"
#include "readers/isolated_reader.h"
#include "readers/read_budget.h"

namespace focal {
namespace convert {

// In the child: false if the parent went away.
bool send_tensor(int fd, const CheckpointTensor& tensor);
bool send_error(int fd, const Status& status);
bool send_end(int fd);

// In the parent: the tensors up to the end record, or the child's error, or an error
// naming `path` for a stream that is malformed, over `budget` or ends early.
Result<Checkpoint> receive_checkpoint(ChildStream& stream, const std::string& path, ReadBudget& budget);

}  // namespace convert
}  // namespace focal
