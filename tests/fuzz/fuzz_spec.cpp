// libFuzzer: arbitrary text as a declarative model spec, built with random weights of
// whatever shapes it asks for; what builds must also write and load.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "focal/model.h"
#include "model_writer.h"
#include "spec/spec_builder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json spec = nlohmann::json::parse(data, data + size, nullptr, false);
  if (spec.is_discarded() || !spec.is_object()) return 0;
  focal::ModelWriter writer;
  auto weights = focal::convert::WeightSource::random(1);
  focal::convert::GraphBuilder builder(writer, weights);
  focal::convert::PresetOptions options;
  options.max_batch = 2;
  options.max_seq = 8;
  if (!focal::convert::build_from_spec(spec, options, builder).ok()) return 0;
  auto bytes = writer.finish();
  if (!bytes.ok()) return 0;
  void* copy = std::aligned_alloc(64, (bytes->size() + 64) / 64 * 64);
  std::memcpy(copy, bytes->data(), bytes->size());
  (void)focal::Model::from_bytes(copy, bytes->size());
  std::free(copy);
  return 0;
}
