// The self-test that `focal convert` stores, in two halves around the one write of the
// file: before it, the test is sized from the graph alone (its inputs, given expected
// outputs, and zeros of the shapes the computed ones will have); after it, the expected
// outputs are computed in double precision from the weights as stored in the written
// file (reference/evaluator.h) and written into the places kept for them.
#pragma once

#include <string>
#include <vector>

#include "convert.h"
#include "file_buffer.h"
#include "model_writer.h"
#include "reference/evaluator.h"

namespace focal {
namespace convert {

struct SelfTestPlan {
  bool stored = false;    // a self-test was added (not --no-self-test)
  bool computed = false;  // its expected outputs are computed after the write
  std::vector<reference::Value> inputs;
};

// Adds the self-test to `writer` (nothing with --no-self-test), with atol and rtol.
Result<SelfTestPlan> plan_self_test(const ConvertOptions& options, ModelWriter& writer);

// With plan.computed, computes the expected outputs from `file` (just written, with
// zeros in their places), writes them there and stamps the file's checksum again.
Status complete_self_test(const ConvertOptions& options, const SelfTestPlan& plan, FileBuffer& file);

// Loads the finished file (in its own page-aligned buffer, as an mmap would be) and runs
// the stored self-tests on the engine: the converter never hands out a file the engine
// refuses or gets wrong.
Status load_and_self_test(const FileBuffer& file, Converted* converted);

// A progress line to options.progress, when there is one.
void report(const ConvertOptions& options, const std::string& line);

}  // namespace convert
}  // namespace focal
