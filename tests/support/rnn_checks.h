// Parity checks of the RNN families (tests/models/make_rnn_reference.py), shared by the
// live PyTorch tests and the goldens: seq2seq decoding (batched teacher-forced logits,
// greedy tokens and alignments through focal::translate, beam search) and the
// attention-pooled classifier.
#pragma once

#include <string>

#include "support/model_cases.h"

namespace focal {
namespace testing {

void check_seq2seq(const ModelCase& c, LoadedCase& loaded);
// A seq2seq model's input by transformers' name (input_ids, attention_mask,
// decoder_input_ids: the rnn-seq2seq preset), else by the older one the specs and the
// goldens use (source_ids, source_mask, prev_ids); -1 when it has neither.
int seq2seq_input(const Session& s, const std::string& name);
// The case's inputs/source_ids and inputs/source_mask into the encode stage's inputs.
void set_seq2seq_source(Session& s, const ModelCase& c);
void check_rnn_classifier(const ModelCase& c, LoadedCase& loaded);
// Each row alone at its length, without attention_mask (a Keras model has none; a preset
// takes it as optional): the row's logits, probabilities and attention as PyTorch
// computes them (the generator checks a row alone equals its batched one).
void check_rnn_classifier_without_mask(const ModelCase& c, LoadedCase& loaded);
// The keras-classifier preset's model: exactly the Keras model's one input, input_ids
// (no attention_mask, not even an optional one), and each row alone as PyTorch computes it.
void check_keras_classifier(const ModelCase& c, LoadedCase& loaded);
// The rnn-seq2seq preset driven by transformers' names without a mask: the inputs are
// input_ids, an optional attention_mask (unset: every position a token) and
// decoder_input_ids; each row alone at its length, given input_ids only, then fed
// PyTorch's greedy tokens as decoder_input_ids, gives PyTorch's logits and attention.
void check_seq2seq_without_mask(const ModelCase& c, LoadedCase& loaded);

}  // namespace testing
}  // namespace focal
