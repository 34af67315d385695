// The C API test's oracle (cpp_reference.h): the C++ API called directly.
#include "c_api/cpp_reference.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "focal/focal.h"
#include "model_writer.h"
#include "support/tiny_model.h"

using namespace focal;

// The session keeps a pointer to the model, so the model lives here first.
struct cref_session {
  Model model;
  void* arena = nullptr;  // 64-byte aligned, owned
  std::optional<Session> session;
  ~cref_session() { std::free(arena); }
};

namespace {

int report(const Status& status, const char* what) {
  if (status.ok()) return 0;
  std::fprintf(stderr, "cpp_reference: %s: %s\n", what, status.message());
  return 1;
}

unsigned char* copy_out(const std::vector<uint8_t>& bytes, size_t* size) {
  auto* out = static_cast<unsigned char*>(std::malloc(bytes.size()));
  if (out != nullptr) std::memcpy(out, bytes.data(), bytes.size());
  *size = bytes.size();
  return out;
}

Shape to_shape(const focal_shape& shape) {
  Shape s;
  s.rank = shape.rank;
  for (int d = 0; d < shape.rank; ++d) s.dims[d] = shape.dims[d];
  return s;
}

}  // namespace

extern "C" {

unsigned char* cref_tiny_model(size_t* size) { return copy_out(testing::build_tiny_model(), size); }

unsigned char* cref_tokenizer_model(size_t* size) {
  TokenizerSpec spec;
  spec.kind = fb::TokenizerKind_Characters;
  spec.vocab = {"<pad>", "<bos>", "<eos>", "<unk>", " "};
  for (char c = 'a'; c <= 'z'; ++c) spec.vocab.emplace_back(1, c);
  spec.pad_id = 0;
  spec.bos_id = 1;
  spec.eos_id = 2;
  spec.unk_id = 3;
  ModelWriter writer;
  writer.set_tokenizer(spec);
  auto bytes = writer.finish();
  if (!bytes.ok()) {
    report(bytes.status(), "tokenizer model");
    return nullptr;
  }
  return copy_out(bytes.value(), size);
}

cref_session* cref_open(const void* bytes, size_t size) {
  auto model = Model::from_bytes(bytes, size);
  if (report(model.status(), "load") != 0) return nullptr;
  auto needed = Session::required_arena_bytes(*model, SessionOptions());
  if (report(needed.status(), "arena") != 0) return nullptr;
  auto* s = new cref_session{model.value(), nullptr, std::nullopt};
  s->arena = ::aligned_alloc(kBufferAlignment, (needed.value() + kBufferAlignment) / kBufferAlignment * kBufferAlignment);
  auto session = Session::create(s->model, SessionOptions(), s->arena, needed.value());
  if (report(session.status(), "session") != 0) {
    delete s;
    return nullptr;
  }
  s->session.emplace(session.value());
  return s;
}

void cref_close(cref_session* session) { delete session; }

int cref_set_input(cref_session* s, const char* name, const focal_shape* shape, const void* data, size_t bytes) {
  return report(s->session->set_input(s->session->find_input(name), to_shape(*shape), data, bytes), name);
}

int cref_run(cref_session* s, const char* stage) {
  if (stage == nullptr) return report(s->session->run(), "run");
  return report(s->session->run_stage(s->session->find_stage(stage)), stage);
}

int cref_output(const cref_session* s, const char* name, void* out, size_t capacity, focal_shape* shape,
                size_t* bytes) {
  const TensorView view = s->session->output(s->session->find_output(name));
  if (view.data == nullptr) return report(Status::error(StatusCode::kInvalidArgument, "no output"), name);
  *bytes = size_t(view.shape.element_count()) * dtype_size(view.dtype);
  if (*bytes > capacity) return report(Status::error(StatusCode::kResourceExhausted, "too small"), name);
  std::memcpy(out, view.data, *bytes);
  shape->rank = view.shape.rank;
  for (int d = 0; d < view.shape.rank; ++d) shape->dims[d] = view.shape.dims[d];
  return 0;
}

int cref_generate(const void* bytes, size_t size, const int32_t* prompt, size_t prompt_length, size_t max_new,
                  int32_t end_token, const focal_sampling* sampling, int32_t* tokens, size_t capacity,
                  size_t* count) {
  cref_session* s = cref_open(bytes, size);
  if (s == nullptr) return 1;
  const Shape logits = s->model.tensor(s->model.output_tensor(s->session->find_output("logits"))).shape;
  const size_t vocab = size_t(logits.dims[logits.rank - 1]);
  std::vector<uint32_t> scratch(sampler_scratch_bytes(vocab) / 4);
  SamplingOptions options;
  options.temperature = sampling->temperature;
  options.top_k = sampling->top_k;
  options.top_p = sampling->top_p;
  options.seed = sampling->seed;
  auto sampler = Sampler::create(options, vocab, scratch.data(), scratch.size() * 4);
  struct Sink {
    int32_t* tokens;
    size_t capacity, count;
    static bool add(int32_t token, void* user) {
      auto* sink = static_cast<Sink*>(user);
      if (sink->count < sink->capacity) sink->tokens[sink->count] = token;
      ++sink->count;
      return true;
    }
  } sink{tokens, capacity, 0};
  GenerateOptions generate_options;
  generate_options.max_new_tokens = max_new;
  generate_options.end_token = end_token;
  const int failed = sampler.ok() ? report(generate(*s->session, prompt, prompt_length, sampler.value(),
                                                    generate_options, Sink::add, &sink), "generate")
                                  : report(sampler.status(), "sampler");
  *count = sink.count;
  cref_close(s);
  return failed;
}

int cref_translate(const void* bytes, size_t size, const int32_t* source, size_t source_length,
                   const focal_translate_options* options, int32_t* tokens, float* alignment, size_t* length,
                   double* score) {
  cref_session* s = cref_open(bytes, size);
  if (s == nullptr) return 1;
  TranslateOptions o;
  o.max_steps = options->max_steps;
  o.bos_id = options->bos_id;
  o.eos_id = options->eos_id;
  o.beam_width = options->beam_width;
  o.length_penalty = options->length_penalty;
  std::vector<uint64_t> scratch(translate_scratch_bytes(o, source_length) / 8 + 1);
  auto result = translate(*s->session, source, source_length, o, scratch.data(), scratch.size() * 8, tokens, alignment);
  const int failed = report(result.status(), "translate");
  if (failed == 0) {
    *length = result->length;
    *score = result->score;
  }
  cref_close(s);
  return failed;
}

int cref_encode(const void* bytes, size_t size, const char* text, int32_t* ids, size_t capacity, size_t* count) {
  auto model = Model::from_bytes(bytes, size);
  if (report(model.status(), "load") != 0) return 1;
  auto tokenizer = Tokenizer::from_model(*model);
  if (report(tokenizer.status(), "tokenizer") != 0) return 1;
  const size_t text_bytes = std::strlen(text);
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(text_bytes) / 8 + 1);
  auto n = tokenizer->encode(text, text_bytes, ids, capacity, scratch.data(), scratch.size() * 8);
  if (report(n.status(), "encode") != 0) return 1;
  *count = n.value();
  return 0;
}

int cref_self_test(const void* bytes, size_t size, focal_self_test_report* out) {
  cref_session* s = cref_open(bytes, size);
  if (s == nullptr) return 1;
  auto result = run_self_tests(*s->session);
  const int failed = report(result.status(), "self-test");
  if (failed == 0) {
    out->cases = result->cases;
    out->failed_cases = result->failed_cases;
    out->max_abs_error = result->max_abs_error;
    out->worst_tolerance_ratio = result->worst_tolerance_ratio;
  }
  cref_close(s);
  return failed;
}

int cref_throwing_callback(int32_t token, void*) { throw std::runtime_error("token " + std::to_string(token)); }

}  // extern "C"
