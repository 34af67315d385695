#include "focal/translate.h"

#include <cmath>
#include <cstring>

namespace focal {
namespace {

struct Candidate {
  double score;
  int32_t hyp;
  int32_t token;
};

bool better(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.hyp != b.hyp ? a.hyp < b.hyp : a.token < b.token;
}

// k hypotheses' tokens [k, T] (T = max_steps), their attention rows over the source
// [k, T, L] (L = source length) and their scores [k].
struct Hypotheses {
  int32_t* tokens;
  float* align;
  double* score;
};

// Everything a translation keeps, carved from the caller's scratch in one place (k = beam
// width): the encoder's inputs, the live hypotheses, the next step's (built from the best
// candidates), the finished ones (up to k finish during the search, up to k more live
// ones at the end: 2k) and the candidates. Carving from null only counts the bytes.
class BeamState {
 public:
  BeamState(const TranslateOptions& o, size_t source_length, uint8_t* scratch)
      : k(o.beam_width), steps(o.max_steps), l(source_length), base_(scratch) {
    source = take<int32_t>(k * l);
    mask = take<int32_t>(k * l);
    prev = take<int32_t>(k);
    rows = take<int32_t>(k);
    live.tokens = take<int32_t>(k * steps);
    next.tokens = take<int32_t>(k * steps);
    done.tokens = take<int32_t>(2 * k * steps);
    done_length = take<int32_t>(2 * k);
    live.score = take<double>(k);
    next.score = take<double>(k);
    done.score = take<double>(2 * k);
    top = take<Candidate>(2 * k);
    live.align = take<float>(k * steps * l);
    next.align = take<float>(k * steps * l);
    done.align = take<float>(2 * k * steps * l);
  }
  size_t bytes() const { return used_; }

  int32_t* tokens_of(const Hypotheses& h, size_t i) const { return h.tokens + i * steps; }
  float* align_of(const Hypotheses& h, size_t i) const { return h.align + i * steps * l; }

  // Appends a finished hypothesis of `length` tokens with its normalized score.
  void finish(const int32_t* tokens, const float* align, size_t length, double normalized) {
    std::memcpy(tokens_of(done, done_count), tokens, length * 4);
    std::memcpy(align_of(done, done_count), align, length * l * 4);
    done_length[done_count] = int32_t(length);
    done.score[done_count++] = normalized;
  }

  const size_t k, steps, l;
  int32_t *source, *mask;  // [k, L]: the source once per row
  int32_t *prev, *rows;    // [k]: each live hypothesis's last token; the rows the next step keeps
  Hypotheses live, next, done;
  int32_t* done_length;  // [2k]
  Candidate* top;        // [2k], best first
  size_t live_count = 1, done_count = 0;

 private:
  template <class T>
  T* take(size_t count) {
    const size_t here = used_;
    used_ = (used_ + count * sizeof(T) + 7) / 8 * 8;
    return base_ != nullptr ? reinterpret_cast<T*>(base_ + here) : nullptr;
  }
  uint8_t* base_;
  size_t used_ = 0;
};

struct Io {
  int source_ids, source_mask, prev_ids, logits, attention, encode, decode;
  int prev_rank = 1;  // prev_ids [batch], or [batch, seq] (a transformer decoder, run one step at a time)
};

// The input named `newer`, else the one named `older`, else -1.
int find_either(const Session& s, const char* newer, const char* older) {
  const int i = s.find_input(newer);
  return i >= 0 ? i : s.find_input(older);
}

// transformers' names (input_ids, attention_mask, decoder_input_ids: the t5 and marian
// presets) or the older ones (source_ids, source_mask, prev_ids: rnn-seq2seq, and t5 and
// marian files converted before). The source mask may be absent (an optional input).
Status find_io(const Session& s, Io* io) {
  io->source_ids = find_either(s, "input_ids", "source_ids");
  io->source_mask = find_either(s, "attention_mask", "source_mask");
  io->prev_ids = find_either(s, "decoder_input_ids", "prev_ids");
  io->logits = s.find_output("logits");
  io->attention = s.find_output("attention");
  io->encode = s.find_stage("encode");
  io->decode = s.find_stage("decode");
  if (io->source_ids < 0 || io->prev_ids < 0 || io->logits < 0 || io->encode < 0 || io->decode < 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "translate needs stages encode/decode, inputs input_ids (or source_ids), "
                         "decoder_input_ids (or prev_ids), optionally attention_mask (or source_mask), "
                         "and output logits");
  }
  io->prev_rank = s.model().tensor(s.model().input_tensor(io->prev_ids)).shape.rank;
  return Status();
}

Shape shape2(int64_t a, int64_t b) {
  Shape s;
  s.rank = 2;
  s.dims[0] = a;
  s.dims[1] = b;
  return s;
}

// Encodes `rows` copies of the source.
Status encode(Session& s, const Io& io, const int32_t* source, size_t length, size_t rows, int32_t* ids,
              int32_t* mask) {
  for (size_t r = 0; r < rows; ++r) {
    std::memcpy(ids + r * length, source, length * 4);
    for (size_t j = 0; j < length; ++j) mask[r * length + j] = 1;
  }
  const Shape shape = shape2(int64_t(rows), int64_t(length));
  s.reset_state();
  FOCAL_RETURN_IF_ERROR(s.set_input(io.source_ids, shape, ids, rows * length * 4));
  if (io.source_mask >= 0) FOCAL_RETURN_IF_ERROR(s.set_input(io.source_mask, shape, mask, rows * length * 4));
  return s.run_stage(io.encode);
}

// prev_ids is [batch] (one token per row), or [batch, seq] for decoders that also take
// a whole target (a transformer's), fed one position here.
Status decode(Session& s, const Io& io, const int32_t* prev, size_t rows) {
  Shape shape = shape2(int64_t(rows), 1);
  shape.rank = io.prev_rank == 2 ? 2 : 1;
  FOCAL_RETURN_IF_ERROR(s.set_input(io.prev_ids, shape, prev, rows * 4));
  return s.run_stage(io.decode);
}

// log-softmax denominators in double: log sum exp(logits).
double log_sum_exp(const float* logits, size_t vocab) {
  double largest = -HUGE_VAL;
  for (size_t v = 0; v < vocab; ++v) largest = logits[v] > largest ? double(logits[v]) : largest;
  double sum = 0.0;
  for (size_t v = 0; v < vocab; ++v) sum += std::exp(double(logits[v]) - largest);
  // cppcheck-suppress invalidFunctionArg ; vocab >= 1 (a verified dim), so sum >= exp(0)
  return largest + std::log(sum);
}

Result<Translation> greedy(Session& s, const Io& io, const TranslateOptions& o, size_t source_length, size_t vocab,
                           int32_t* tokens, float* alignment) {
  Translation result;
  int32_t prev = o.bos_id;
  for (size_t t = 0; t < o.max_steps; ++t) {
    FOCAL_RETURN_IF_ERROR(decode(s, io, &prev, 1));
    const float* logits = static_cast<const float*>(s.output(io.logits).data);
    int32_t best = 0;
    for (size_t v = 1; v < vocab; ++v) best = logits[v] > logits[best] ? int32_t(v) : best;
    result.score += double(logits[best]) - log_sum_exp(logits, vocab);
    tokens[result.length++] = best;
    if (alignment != nullptr && io.attention >= 0) {
      std::memcpy(alignment + t * source_length, s.output(io.attention).data, source_length * 4);
    }
    if (best == o.eos_id) break;
    prev = best;
  }
  return result;
}

// Keeps the best 2k candidates in `top` (sorted, best first).
void offer(Candidate* top, size_t* count, size_t capacity, const Candidate& c) {
  if (*count == capacity && !better(c, top[*count - 1])) return;
  size_t at = *count < capacity ? (*count)++ : capacity - 1;
  while (at > 0 && better(c, top[at - 1])) {
    top[at] = top[at - 1];
    --at;
  }
  top[at] = c;
}

// Offers every extension of every live hypothesis; returns how many candidates `top` holds.
size_t rank_candidates(BeamState& b, const float* logits, size_t vocab) {
  size_t count = 0;
  for (size_t h = 0; h < b.live_count; ++h) {
    const float* row = logits + h * vocab;
    const double base = b.live.score[h] - log_sum_exp(row, vocab);
    for (size_t v = 0; v < vocab; ++v) offer(b.top, &count, 2 * b.k, {base + double(row[v]), int32_t(h), int32_t(v)});
  }
  return count;
}

// Step t's best candidates, best first, until k live ones are found: each extends its
// hypothesis into `next`; an eos one finishes instead (while there is room). Returns the
// live count for the next step.
size_t select_candidates(BeamState& b, const TranslateOptions& o, size_t count, size_t t, const float* attention) {
  const size_t l = b.l;
  size_t next = 0;
  for (size_t c = 0; c < count && next < b.k; ++c) {
    const Candidate& cand = b.top[c];
    int32_t* toks = b.tokens_of(b.next, next);  // built here, used by either list
    float* align = b.align_of(b.next, next);
    std::memcpy(toks, b.tokens_of(b.live, size_t(cand.hyp)), (t - 1) * 4);
    std::memcpy(align, b.align_of(b.live, size_t(cand.hyp)), (t - 1) * l * 4);
    toks[t - 1] = cand.token;
    if (attention != nullptr) std::memcpy(align + (t - 1) * l, attention + size_t(cand.hyp) * l, l * 4);
    else std::memset(align + (t - 1) * l, 0, l * 4);
    if (cand.token == o.eos_id) {
      if (b.done_count < b.k) b.finish(toks, align, t, cand.score / std::pow(double(t), double(o.length_penalty)));
      continue;
    }
    b.rows[next] = cand.hyp;
    b.next.score[next] = cand.score;
    ++next;
  }
  return next;
}

// The next step's hypotheses become the live ones; the session's states follow their rows.
Status advance(Session& s, BeamState& b, size_t next) {
  if (next > 0) {
    FOCAL_RETURN_IF_ERROR(s.permute_state_batch(b.rows, int(next)));
    std::memcpy(b.live.tokens, b.next.tokens, next * b.steps * 4);
    std::memcpy(b.live.align, b.next.align, next * b.steps * b.l * 4);
    std::memcpy(b.live.score, b.next.score, next * 8);
  }
  b.live_count = next;
  return Status();
}

// The finished hypothesis with the best normalized score (the first among equals).
Translation best_finished(const BeamState& b, int32_t* tokens, float* alignment) {
  size_t best = 0;
  for (size_t f = 1; f < b.done_count; ++f) best = b.done.score[f] > b.done.score[best] ? f : best;
  Translation result;
  result.length = size_t(b.done_length[best]);
  result.score = b.done.score[best];
  std::memcpy(tokens, b.tokens_of(b.done, best), result.length * 4);
  if (alignment != nullptr) std::memcpy(alignment, b.align_of(b.done, best), result.length * b.l * 4);
  return result;
}

Result<Translation> beam(Session& s, const Io& io, const TranslateOptions& o, BeamState& b, size_t vocab,
                         int32_t* tokens, float* alignment) {
  size_t t = 0;
  bool stopped = false;  // by k finished hypotheses, not by max_steps
  b.live.score[0] = 0.0;
  for (t = 1; t <= b.steps; ++t) {
    for (size_t h = 0; h < b.live_count; ++h) b.prev[h] = t == 1 ? o.bos_id : b.tokens_of(b.live, h)[t - 2];
    FOCAL_RETURN_IF_ERROR(decode(s, io, b.prev, b.live_count));
    const float* logits = static_cast<const float*>(s.output(io.logits).data);
    const float* attention = io.attention >= 0 ? static_cast<const float*>(s.output(io.attention).data) : nullptr;
    const size_t count = rank_candidates(b, logits, vocab);
    FOCAL_RETURN_IF_ERROR(advance(s, b, select_candidates(b, o, count, t, attention)));
    if (b.done_count >= b.k || b.live_count == 0) {
      stopped = true;
      break;
    }
  }
  if (b.done_count == 0 || !stopped) {  // the search ran out of steps: the live ones finish too
    const size_t length = stopped ? t : b.steps;
    for (size_t h = 0; h < b.live_count; ++h) {
      b.finish(b.tokens_of(b.live, h), b.align_of(b.live, h), length,
               b.live.score[h] / std::pow(double(length), double(o.length_penalty)));
    }
  }
  return best_finished(b, tokens, alignment);
}

}  // namespace

size_t translate_scratch_bytes(const TranslateOptions& options, size_t max_source_length) {
  return BeamState(options, max_source_length, nullptr).bytes();
}

Result<Translation> translate(Session& session, const int32_t* source, size_t source_length,
                              const TranslateOptions& o, void* scratch, size_t scratch_bytes, int32_t* tokens,
                              float* alignment) {
  Io io;
  FOCAL_RETURN_IF_ERROR(find_io(session, &io));
  if (source == nullptr || source_length == 0 || tokens == nullptr || o.max_steps == 0 || o.beam_width == 0 ||
      !(o.length_penalty >= 0.0f)) {
    return Status::error(StatusCode::kInvalidArgument,
                         "translate: empty source, no token buffer, max_steps or beam_width 0, or negative alpha");
  }
  const size_t needed = translate_scratch_bytes(o, source_length);
  if (scratch == nullptr || scratch_bytes < needed || reinterpret_cast<uintptr_t>(scratch) % 8 != 0) {
    return Status::error(StatusCode::kResourceExhausted, "translate needs %zu bytes of 8-byte aligned scratch",
                         needed);
  }
  BeamState state(o, source_length, static_cast<uint8_t*>(scratch));
  FOCAL_RETURN_IF_ERROR(encode(session, io, source, source_length, o.beam_width, state.source, state.mask));
  // logits [batch, vocab], or [batch, seq, vocab] (every position; one per step here)
  const Shape logits_shape = session.model().tensor(session.model().output_tensor(io.logits)).shape;
  const size_t vocab = size_t(logits_shape.dims[logits_shape.rank - 1]);
  if (o.beam_width == 1) return greedy(session, io, o, source_length, vocab, tokens, alignment);
  return beam(session, io, o, state, vocab, tokens, alignment);
}

}  // namespace focal
