// Options of the simple op kinds as the writer takes them (the schema's object API,
// fb::<Kind>OptionsT, for ModelWriter::add_op), in one call each for the tests.
#pragma once

#include "focal_generated.h"

namespace focal {
namespace testing {

inline fb::ScaleOptionsT scale_options(float scale, float shift) {
  fb::ScaleOptionsT options;
  options.scale = scale;
  options.shift = shift;
  return options;
}

inline fb::L2NormalizeOptionsT l2_normalize_options(float epsilon) {
  fb::L2NormalizeOptionsT options;
  options.epsilon = epsilon;
  return options;
}

inline fb::ClipOptionsT clip_options(float min, float max) {
  fb::ClipOptionsT options;
  options.min = min;
  options.max = max;
  return options;
}

}  // namespace testing
}  // namespace focal
