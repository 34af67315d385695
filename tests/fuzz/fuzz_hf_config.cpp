// libFuzzer: arbitrary bytes as a Hugging Face folder's config.json and
// generation_config.json, read as `focal convert --hf DIR` reads them: the bounded JSON
// reader, the preset detected from config.json (model_type, architectures), and the
// generation ids (generation_config.json, config.json's keys standing in). The input is
// config.json, or config.json, a line "--generation_config.json--" and
// generation_config.json. Errors are fine; a crash or sanitizer report is a finding.
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "hf/generation_config.h"
#include "json/json_file.h"
#include "presets/preset_detection.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char kSplit[] = "\n--generation_config.json--\n";
  const char* text = reinterpret_cast<const char*>(data);
  const char* split = static_cast<const char*>(memmem(text, size, kSplit, sizeof(kSplit) - 1));
  auto config = focal::convert::parse_json(text, split ? size_t(split - text) : size, "config.json");
  if (!config.ok()) return 0;
  if (config->is_object()) (void)focal::convert::preset_from_config(config.value());
  nlohmann::json generation = nlohmann::json::object();
  if (split != nullptr) {
    const char* rest = split + sizeof(kSplit) - 1;
    auto read = focal::convert::parse_json(rest, size_t(text + size - rest), "generation_config.json");
    if (!read.ok() || !read->is_object()) return 0;
    generation = std::move(read.value());
  }
  if (config->is_object()) (void)focal::convert::generation_ids(generation, config.value());
  return 0;
}
