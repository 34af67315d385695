// focal_generator_* and focal_generate: a Sampler with its scratch, kept per handle so
// generating allocates nothing, and focal::generate behind a callback relay that keeps
// C++ exceptions of a caller's callback out of the engine.
#include "c_api_internal.h"

namespace focal {
namespace capi {
namespace {

SamplingOptions engine_sampling(const focal_sampling* sampling) {
  SamplingOptions options;
  if (sampling != nullptr) {
    options.temperature = sampling->temperature;
    options.top_k = sampling->top_k;
    options.top_p = sampling->top_p;
    options.seed = sampling->seed;
  }
  return options;
}

// Vocabulary size: the last dim of output "logits" ([1, V] or [1, S, V]), 0 without one.
size_t logits_vocab(const Session& session) {
  const int logits = session.find_output("logits");
  if (logits < 0) return 0;
  const Shape shape = session.model().tensor(session.model().output_tensor(logits)).shape;
  return static_cast<size_t>(shape.dims[shape.rank - 1]);
}

// Passes each token to the caller's callback; an exception from it stops generation
// here (the engine is never unwound) and is reported after generate returns.
struct TokenRelay {
  focal_token_callback callback;
  void* user;
  bool threw;

  static bool relay(int32_t token, void* context) {
    auto* self = static_cast<TokenRelay*>(context);
    if (self->callback == nullptr) return true;
#if defined(__cpp_exceptions)
    try {
      return self->callback(token, self->user) != 0;
    } catch (...) {
      self->threw = true;
      return false;
    }
#else
    return self->callback(token, self->user) != 0;
#endif
  }
};

}  // namespace
}  // namespace capi
}  // namespace focal

using namespace focal;

extern "C" {

focal_sampling focal_sampling_default(void) noexcept {
  const SamplingOptions defaults;
  return focal_sampling{defaults.temperature, defaults.top_k, defaults.top_p, defaults.seed};
}

focal_status focal_generator_create(focal_session* session, const focal_sampling* sampling,
                                    focal_generator** generator) noexcept {
  FOCAL_C_REQUIRE(generator);
  *generator = nullptr;
  FOCAL_C_REQUIRE(session);
  FOCAL_C_TRY {
    const size_t vocab = capi::logits_vocab(session->session);
    if (vocab == 0) {
      return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "the model has no 'logits' output to generate from");
    }
    void* scratch = std::malloc(sampler_scratch_bytes(vocab));
    if (scratch == nullptr) return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for sampler scratch");
    auto sampler = Sampler::create(capi::engine_sampling(sampling), vocab, scratch, sampler_scratch_bytes(vocab));
    if (sampler.ok()) *generator = capi::new_handle<focal_generator>(session, vocab, scratch, sampler.value());
    if (*generator == nullptr) {
      std::free(scratch);
      if (!sampler.ok()) return capi::fail(sampler.status());
      return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for a generator handle");
    }
    return FOCAL_OK;
  }
  FOCAL_C_CATCH
}

void focal_generator_free(focal_generator* generator) noexcept { capi::delete_handle(generator); }

focal_status focal_generator_set_sampling(focal_generator* generator, const focal_sampling* sampling) noexcept {
  FOCAL_C_REQUIRE(generator);
  FOCAL_C_REQUIRE(sampling);
  auto sampler = Sampler::create(capi::engine_sampling(sampling), generator->vocab, generator->scratch,
                                 sampler_scratch_bytes(generator->vocab));
  if (!sampler.ok()) return capi::fail(sampler.status());
  generator->sampler = sampler.value();
  return FOCAL_OK;
}

focal_status focal_generate(focal_generator* generator, const int32_t* prompt, size_t prompt_length,
                            size_t max_new_tokens, int32_t end_token, focal_token_callback on_token,
                            void* user) noexcept {
  FOCAL_C_REQUIRE(generator);
  FOCAL_C_REQUIRE(prompt);
  FOCAL_C_USE_SESSION(generator->session);
  FOCAL_C_TRY {
    GenerateOptions options;
    options.max_new_tokens = max_new_tokens;
    options.end_token = end_token;
    capi::TokenRelay relay{on_token, user, false};
    const Status status = generate(generator->session->session, prompt, prompt_length, generator->sampler, options,
                                   capi::TokenRelay::relay, &relay);
    if (relay.threw) return capi::caught("the token callback of focal_generate", nullptr);
    return capi::fail(status);
  }
  FOCAL_C_CATCH
}

}  // extern "C"
