// `focal convert` without the command line's printing, for callers that convert in
// process (the Python module's focal.convert takes the command's options as keyword
// arguments and passes them through this parser, so both accept exactly the same).
// Host builds only (FOCAL_HAVE_CONVERT).
#pragma once

#include <string>

#include "convert.h"
#include "focal/status.h"

namespace focal {
namespace cli {

// Parses `focal convert`'s arguments (argv holds the options only, no command name);
// -o is optional here (empty `output`: the caller keeps the bytes). --list-presets and
// --json are refused: they are the command's ways of printing.
Status parse_convert_arguments(int argc, char** argv, convert::ConvertOptions* options, std::string* output);

// Converts and, when `output` is not empty, writes the model there atomically, after
// refusing an `output` that is one of the conversion's inputs.
Result<convert::Converted> convert_and_write(const convert::ConvertOptions& options, const std::string& output);

}  // namespace cli
}  // namespace focal
