// One op of the draft written on static int8 activations (static_graph.h): its operands
// carried over or quantized, its options with their requantization records.
#pragma once

#include <map>
#include <vector>

#include "focal/model.h"
#include "focal/status.h"
#include "model_writer.h"
#include "quantize/activation_ranges.h"
#include "quantize/static_int8.h"

namespace focal {
namespace quantize {

struct StaticWriter {
  const Model& draft;
  ModelWriter& out;
  const Ranges& ranges;     // per draft tensor and weight
  std::vector<bool> int8;   // per draft tensor: an int8 activation
  std::vector<int> mapped;  // per draft tensor: its index in `out`, -1 not yet
  // Per draft tensor: the f32 model output it is, when its op writes an int8 twin that a
  // Scale op dequantizes into the output; else -1.
  std::vector<int> dequantized;
  // Quantizations chosen other than by a tensor's own range (a pool's output keeps its
  // input's), by draft tensor.
  std::map<int, ActivationParams> chosen;
};

// Writes draft op `index` into w.out; fails naming the op when it has no int8 form here.
Status write_static_op(StaticWriter& w, int index);

}  // namespace quantize
}  // namespace focal
