// One op of the draft written on static int8 activations (static_graph.h): its operands
// carried over or quantized, its options with their requantization records.
#pragma once

#include <vector>

#include "focal/model.h"
#include "focal/status.h"
#include "model_writer.h"
#include "quantize/activation_ranges.h"

namespace focal {
namespace quantize {

struct StaticWriter {
  const Model& draft;
  ModelWriter& out;
  const std::vector<TensorRange>& ranges;  // per draft tensor
  std::vector<bool> int8;                  // per draft tensor: an int8 activation
  std::vector<int> mapped;                 // per draft tensor: its index in `out`, -1 not yet
};

// Writes draft op `index` into w.out; fails naming the op when it has no int8 form here.
Status write_static_op(StaticWriter& w, int index);

}  // namespace quantize
}  // namespace focal
