// A text argument given as a file, as llama.cpp's -f takes it: the file's bytes ("-":
// standard input), less one trailing newline, at most kMaxTextFileBytes.
#pragma once

#include <cstddef>
#include <string>

#include "focal/status.h"

namespace focal {
namespace cli {

constexpr size_t kMaxTextFileBytes = size_t(16) << 20;

// `option` names the argument in messages ("--prompt-file: cannot open 'x'").
Status read_text_file(const char* option, const char* path, std::string* text);

}  // namespace cli
}  // namespace focal
