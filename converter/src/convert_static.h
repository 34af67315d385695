// `focal convert --quantize static` after its draft (issue 36): the draft model (f32
// weights, f32 activations, its self-test passed) calibrated on the calibration inputs in
// double precision (quantize/activation_ranges.h), rewritten on static int8 activations
// (quantize/static_graph.h) and given its own self-test.
//
// The self-test: the draft's self-test inputs, and as expected outputs the int8 model's
// own, computed by the engine here, compared bit for bit (atol = rtol = 0) on every
// device. Checked: the outputs written by ops on int8 activations (a Dense op's
// dequantized logits, an attention pool's weights): integer arithmetic plus one f32
// product per element, the same bits on every core. Left out: outputs of f32 ops after
// them (a softmax's probabilities), whose exp differs in the last bits between the
// kernel sets of the cores (they follow from the checked logits).
// Accuracy: every f32 output of the int8 model against the draft's expected outputs
// (PyTorch's when the self-test directory gave them, else the double-precision
// reference), reported as the largest difference per output; with given expected
// outputs, a difference beyond the draft's tolerance fails the conversion.
#pragma once

#include "convert.h"
#include "file_buffer.h"

namespace focal {
namespace convert {

Result<Converted> quantize_static_from_draft(const ConvertOptions& options, const FileBuffer& draft_file,
                                             bool draft_expected_given);

}  // namespace convert
}  // namespace focal
