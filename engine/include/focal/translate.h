// Decoding with a sequence-to-sequence model (the rnn-seq2seq preset, or any model with
// the same contract): stage "encode" reads input_ids and, when the model has it,
// attention_mask [batch, src_len] (or by the older names source_ids and source_mask);
// stage "decode" reads decoder_input_ids (or prev_ids) [batch] (or [batch, 1]: one step
// of a transformer decoder, t5 and marian) and writes logits [batch, vocab] (or
// [batch, 1, vocab]) and, optionally, attention
// [batch, src_len]; the decoder's state lives in state tensors. Greedy decoding runs one
// row; beam search runs one row per beam and reorders the states after every step
// (Session::permute_state_batch), so the model must be planned for a batch of at least
// the beam width. Everything runs in the session's arena and the caller's scratch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/session.h"
#include "focal/status.h"

namespace focal {

struct TranslateOptions {
  size_t max_steps = 64;      // tokens generated at most (eos included)
  int32_t bos_id = 1;         // fed at the first step
  int32_t eos_id = 2;         // ends a hypothesis; -1: none (always max_steps)
  size_t beam_width = 1;      // 1: greedy
  float length_penalty = 0;   // alpha: a finished beam ranks by log-probability / length^alpha
};

// Beam search, step t = 1..max_steps: every live hypothesis extends by every token,
// scored by its summed log-probabilities (log-softmax in double); candidates are taken
// best first (ties: lower hypothesis, then lower token) until beam_width live ones are
// found, and an eos candidate met before that joins the finished list (normalized by
// t^alpha) while it has room. Search stops when beam_width hypotheses have finished;
// at max_steps the live ones finish too (normalized by their length). The result is the
// finished hypothesis with the best normalized score (ties: the one finished first).
struct Translation {
  size_t length = 0;  // tokens written (the eos included when one ended it)
  double score = 0;   // greedy: summed log-probabilities; beam: the normalized score
};

// Scratch bytes for these options and the longest source (whatever the vocabulary:
// candidates are kept 2 x beam_width at a time).
size_t translate_scratch_bytes(const TranslateOptions& options, size_t max_source_length);

// Translates one source. `tokens` holds max_steps ids; `alignment`, when not null,
// receives the attention of each produced token over the source, [length][source_length].
Result<Translation> translate(Session& session, const int32_t* source, size_t source_length,
                              const TranslateOptions& options, void* scratch, size_t scratch_bytes,
                              int32_t* tokens, float* alignment);

}  // namespace focal
