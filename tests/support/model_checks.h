// The parity checks of each model family, shared by the live PyTorch tests
// (test_models.cpp, models converted at test time) and the golden tests
// (test_goldens.cpp, committed models, also under qemu). Error measure:
// |got - want| / (|want| + 1): relative for large values, absolute for small ones.
#pragma once

#include <string>
#include <vector>

#include "support/model_cases.h"

namespace focal {
namespace testing {

constexpr double kF32Tolerance = 1e-4;

// The reference case `name` of `family` under $FOCAL_MODEL_CASES; fails the test if absent.
ModelCase model_case(const char* family, const std::string& name);
// Every reference case of `family` under $FOCAL_MODEL_CASES; fails the test if there is none.
std::vector<ModelCase> cases_of(const char* family);

// Runs an encoder case (BERT, nn.TransformerEncoder) once on its inputs; the worst
// error over its outputs (last_hidden_state only at unpadded positions).
double encoder_error(const ModelCase& c, LoadedCase& loaded, const char* label);
// Each row of the case alone at its length (attention_mask's 1s), every input but
// attention_mask trimmed to it and attention_mask left unset, as transformers and PyTorch
// allow: the worst error against the row's expected outputs (per-position ones at its
// length). The reference's rows are computed batched with the mask, which for an encoder
// equals the row alone.
double encoder_rows_without_mask_error(const ModelCase& c, LoadedCase& loaded);

// Decoder-only: prefill logits, then (when the case has step_logits) every cached step's
// logits, within kF32Tolerance; and greedy generation equal to PyTorch's tokens.
void check_decoder(const ModelCase& c, LoadedCase& loaded);

// nn.Transformer: encode once, decode the whole target at once and again one position
// per run, both within kF32Tolerance.
void check_encoder_decoder(const ModelCase& c, LoadedCase& loaded);

}  // namespace testing
}  // namespace focal
