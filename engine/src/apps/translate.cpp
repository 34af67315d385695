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

// Where everything lives in the caller's scratch (k = beam width, T = max_steps,
// L = source length, V = vocabulary).
struct Layout {
  size_t source, mask, prev, rows;                 // int32: k*L, k*L, k, k
  size_t live_tokens, next_tokens, done_tokens;    // int32: k*T, k*T, 2k*T
  size_t done_length;                              // int32: 2k
  size_t live_score, next_score, done_score;       // double: k, k, 2k
  size_t candidates;                               // Candidate: 2k
  size_t live_align, next_align, done_align;       // float: k*T*L, k*T*L, 2k*T*L
  // (up to k hypotheses finish during the search, and up to k more live ones at the end)
  size_t end;
};

size_t align8(size_t n) { return (n + 7) / 8 * 8; }

Layout layout(const TranslateOptions& o, size_t source_length) {
  const size_t k = o.beam_width, t = o.max_steps, l = source_length;
  Layout s;
  size_t at = 0;
  const auto take = [&](size_t bytes) {
    const size_t here = at;
    at = align8(at + bytes);
    return here;
  };
  s.source = take(k * l * 4);
  s.mask = take(k * l * 4);
  s.prev = take(k * 4);
  s.rows = take(k * 4);
  s.live_tokens = take(k * t * 4);
  s.next_tokens = take(k * t * 4);
  s.done_tokens = take(2 * k * t * 4);
  s.done_length = take(2 * k * 4);
  s.live_score = take(k * 8);
  s.next_score = take(k * 8);
  s.done_score = take(2 * k * 8);
  s.candidates = take(2 * k * sizeof(Candidate));
  s.live_align = take(k * t * l * 4);
  s.next_align = take(k * t * l * 4);
  s.done_align = take(2 * k * t * l * 4);
  s.end = at;
  return s;
}

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

template <class T>
T* at(uint8_t* ws, size_t offset) {
  return reinterpret_cast<T*>(ws + offset);
}

Result<Translation> beam(Session& s, const Io& io, const TranslateOptions& o, const Layout& lay, uint8_t* ws,
                         size_t source_length, size_t vocab, int32_t* tokens, float* alignment) {
  const size_t k = o.beam_width, steps = o.max_steps, l = source_length;
  int32_t* prev = at<int32_t>(ws, lay.prev);
  int32_t* rows = at<int32_t>(ws, lay.rows);
  int32_t* live_tokens = at<int32_t>(ws, lay.live_tokens);
  int32_t* next_tokens = at<int32_t>(ws, lay.next_tokens);
  int32_t* done_tokens = at<int32_t>(ws, lay.done_tokens);
  int32_t* done_length = at<int32_t>(ws, lay.done_length);
  double* live_score = at<double>(ws, lay.live_score);
  double* next_score = at<double>(ws, lay.next_score);
  double* done_score = at<double>(ws, lay.done_score);
  Candidate* top = at<Candidate>(ws, lay.candidates);
  float* live_align = at<float>(ws, lay.live_align);
  float* next_align = at<float>(ws, lay.next_align);
  float* done_align = at<float>(ws, lay.done_align);
  size_t live = 1, done = 0, t = 0;
  bool stopped = false;  // by k finished hypotheses, not by max_steps
  live_score[0] = 0.0;
  const auto finish = [&](const int32_t* toks, const float* align, size_t length, double normalized) {
    std::memcpy(done_tokens + done * steps, toks, length * 4);
    std::memcpy(done_align + done * steps * l, align, length * l * 4);
    done_length[done] = int32_t(length);
    done_score[done++] = normalized;
  };
  for (t = 1; t <= steps; ++t) {
    for (size_t h = 0; h < live; ++h) prev[h] = t == 1 ? o.bos_id : live_tokens[h * steps + t - 2];
    FOCAL_RETURN_IF_ERROR(decode(s, io, prev, live));
    const float* logits = static_cast<const float*>(s.output(io.logits).data);
    const float* attention = io.attention >= 0 ? static_cast<const float*>(s.output(io.attention).data) : nullptr;
    size_t count = 0;
    for (size_t h = 0; h < live; ++h) {
      const float* row = logits + h * vocab;
      const double base = live_score[h] - log_sum_exp(row, vocab);
      for (size_t v = 0; v < vocab; ++v) offer(top, &count, 2 * k, {base + double(row[v]), int32_t(h), int32_t(v)});
    }
    size_t next = 0;
    for (size_t c = 0; c < count && next < k; ++c) {
      const Candidate& cand = top[c];
      int32_t* toks = next_tokens + next * steps;  // built here, used by either list
      float* align = next_align + next * steps * l;
      std::memcpy(toks, live_tokens + size_t(cand.hyp) * steps, (t - 1) * 4);
      std::memcpy(align, live_align + size_t(cand.hyp) * steps * l, (t - 1) * l * 4);
      toks[t - 1] = cand.token;
      if (attention != nullptr) std::memcpy(align + (t - 1) * l, attention + size_t(cand.hyp) * l, l * 4);
      else std::memset(align + (t - 1) * l, 0, l * 4);
      if (cand.token == o.eos_id) {
        if (done < k) finish(toks, align, t, cand.score / std::pow(double(t), double(o.length_penalty)));
        continue;
      }
      rows[next] = cand.hyp;
      next_score[next] = cand.score;
      ++next;
    }
    if (next > 0) {
      FOCAL_RETURN_IF_ERROR(s.permute_state_batch(rows, int(next)));
      std::memcpy(live_tokens, next_tokens, next * steps * 4);
      std::memcpy(live_align, next_align, next * steps * l * 4);
      std::memcpy(live_score, next_score, next * 8);
    }
    live = next;
    if (done >= k || live == 0) {
      stopped = true;
      break;
    }
  }
  if (done == 0 || !stopped) {  // the search ran out of steps: the live ones finish too
    const size_t length = stopped ? t : steps;
    for (size_t h = 0; h < live; ++h) {
      finish(live_tokens + h * steps, live_align + h * steps * l, length,
             live_score[h] / std::pow(double(length), double(o.length_penalty)));
    }
  }
  size_t best = 0;
  for (size_t f = 1; f < done; ++f) best = done_score[f] > done_score[best] ? f : best;
  Translation result;
  result.length = size_t(done_length[best]);
  result.score = done_score[best];
  std::memcpy(tokens, done_tokens + best * steps, result.length * 4);
  if (alignment != nullptr) std::memcpy(alignment, done_align + best * steps * l, result.length * l * 4);
  return result;
}

}  // namespace

size_t translate_scratch_bytes(const TranslateOptions& options, size_t max_source_length) {
  return layout(options, max_source_length).end;
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
  const Layout lay = layout(o, source_length);
  if (scratch == nullptr || scratch_bytes < lay.end || reinterpret_cast<uintptr_t>(scratch) % 8 != 0) {
    return Status::error(StatusCode::kResourceExhausted, "translate needs %zu bytes of 8-byte aligned scratch",
                         lay.end);
  }
  uint8_t* ws = static_cast<uint8_t*>(scratch);
  const size_t rows = o.beam_width;
  FOCAL_RETURN_IF_ERROR(encode(session, io, source, source_length, rows, at<int32_t>(ws, lay.source),
                               at<int32_t>(ws, lay.mask)));
  // logits [batch, vocab], or [batch, seq, vocab] (every position; one per step here)
  const Shape logits_shape = session.model().tensor(session.model().output_tensor(io.logits)).shape;
  const size_t vocab = size_t(logits_shape.dims[logits_shape.rank - 1]);
  if (o.beam_width == 1) return greedy(session, io, o, source_length, vocab, tokens, alignment);
  return beam(session, io, o, lay, ws, source_length, vocab, tokens, alignment);
}

}  // namespace focal
