// NumPy arrays in and out of a session. Inputs: a C-contiguous array of the input's
// dtype (float32, or int32 for token ids) is read in place by Session::set_input, which
// copies it into the arena; any other array is converted first (floats to float32,
// integers to int32 exactly: a value outside int32 is refused), one temporary copy.
// Outputs: copied into new arrays, written into caller-provided arrays (no allocation),
// or returned as read-only views of the arena (valid until the session's next run).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "focal/session.h"

namespace focal {
namespace python {

// Sets input `index` from `value`; `name` only words errors. Holds the GIL.
void set_input_array(Session& session, int index, const char* name, pybind11::handle value);

// A new array holding a copy of the output.
pybind11::array copy_of(const TensorView& output);
// A read-only array over the output's arena bytes; `owner` (the session) is kept alive.
pybind11::array view_of(const TensorView& output, pybind11::handle owner);
// Copies the output into `target`, which must be a writable C-contiguous array of the
// output's dtype and actual shape; else focal.Error. Allocates nothing.
void copy_into(const TensorView& output, pybind11::handle target);

}  // namespace python
}  // namespace focal
