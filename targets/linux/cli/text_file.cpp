#include "cli/text_file.h"

#include <cstdio>
#include <cstring>

#include "cli/printable.h"

namespace focal {
namespace cli {

Status read_text_file(const char* option, const char* path, std::string* text) {
  std::FILE* file = std::strcmp(path, "-") == 0 ? stdin : std::fopen(path, "rb");
  if (file == nullptr) {
    return Status::error(StatusCode::kIoError, "%s: cannot open '%s'", option, printable(path, 200).c_str());
  }
  text->clear();
  char chunk[4096];
  size_t n = 0;
  while (text->size() <= kMaxTextFileBytes && (n = std::fread(chunk, 1, sizeof(chunk), file)) > 0) text->append(chunk, n);
  const bool failed = std::ferror(file) != 0;
  if (file != stdin) std::fclose(file);
  if (failed) return Status::error(StatusCode::kIoError, "%s: cannot read '%s'", option, printable(path, 200).c_str());
  if (text->size() > kMaxTextFileBytes) {
    return Status::error(StatusCode::kInvalidArgument, "%s: '%s' holds more than %zu bytes", option,
                         printable(path, 200).c_str(), kMaxTextFileBytes);
  }
  if (!text->empty() && text->back() == '\n') text->pop_back();
  return Status();
}

}  // namespace cli
}  // namespace focal
