// Parity checks of the RNN families (tests/models/make_rnn_reference.py), shared by the
// live PyTorch tests and the goldens: seq2seq decoding (batched teacher-forced logits,
// greedy tokens and alignments through focal::translate, beam search) and the
// attention-pooled classifier.
#pragma once

#include "support/model_cases.h"

namespace focal {
namespace testing {

void check_seq2seq(const ModelCase& c, LoadedCase& loaded);
void check_rnn_classifier(const ModelCase& c, LoadedCase& loaded);
// Each row alone at its length, without attention_mask (a Keras model has none; a preset
// takes it as optional): the row's logits, probabilities and attention as PyTorch
// computes them (the generator checks a row alone equals its batched one).
void check_rnn_classifier_without_mask(const ModelCase& c, LoadedCase& loaded);

}  // namespace testing
}  // namespace focal
