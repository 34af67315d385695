// Files written whole or not at all: the bytes go to a temporary file in the target's
// directory, are fsynced, and only then renamed over the target. A failed or interrupted
// write (a full disk, a crash) leaves the old file as it was, and a process that has the
// old file mapped keeps reading its bytes (the rename gives the name a new inode; the
// old one lives until unmapped), instead of dying of SIGBUS on a truncated file.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <vector>

#include "focal/status.h"

namespace focal {

// How bytes reach the temporary file: ::write, or a stand-in that tests use to inject a
// short or failing write.
using WriteFunction = ssize_t (*)(int fd, const void* data, size_t size);

// Writes `size` bytes to `path` as described above. The new file gets the usual mode
// (0666 less the umask). Refuses a target that exists and is not a regular file (a
// directory, /dev/null, a FIFO): renaming over it would replace the device or the pipe.
Status write_file_atomically(const std::string& path, const void* data, size_t size,
                             WriteFunction write = ::write);

// True when `a` and `b` name the same existing file (same device and inode: hard links
// and other spellings of one path included); false when either does not exist.
bool same_file(const std::string& a, const std::string& b);

// An error naming the input when `output` is the same file as one of `inputs` (writing
// it would replace that input); ok otherwise.
Status check_output_is_not_an_input(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace focal
