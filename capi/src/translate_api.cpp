// focal_translator_* and focal_translate(_text): focal::translate with scratch sized
// once per handle (so translating allocates nothing), and the source-side tokenizer for
// text.
#include <string_view>

#include "c_api_internal.h"

namespace focal {
namespace capi {
namespace {

// A UTF-8 character is at most 4 bytes: the text capacity of a source of N tokens.
constexpr size_t kTextBytesPerToken = 4;

TranslateOptions engine_options(const focal_translate_options& options) {
  TranslateOptions engine;
  engine.max_steps = options.max_steps;
  engine.bos_id = options.bos_id;
  engine.eos_id = options.eos_id;
  engine.beam_width = options.beam_width;
  engine.length_penalty = options.length_penalty;
  return engine;
}

bool has_encode_stage(const Model& model) {
  for (int i = 0; i < model.stage_count(); ++i) {
    if (std::string_view(model.stage(i).name) == "encode") return true;
  }
  return false;
}

// The planned source length: dim 1 of input "input_ids" (or, in files written before
// the rnn-seq2seq preset took that name, "source_ids") [batch, src_len] of a model with
// an encode stage (a decoder-only model's input_ids is no source); 0 without it.
size_t planned_source_length(const Model& model) {
  if (!has_encode_stage(model)) return 0;
  for (int i = 0; i < model.input_count(); ++i) {
    const TensorInfo tensor = model.tensor(model.input_tensor(i));
    const std::string_view name(tensor.name);
    if ((name == "input_ids" || name == "source_ids") && tensor.shape.rank == 2) {
      return static_cast<size_t>(tensor.shape.dims[1]);
    }
  }
  return 0;
}

focal_status allocate_scratch(focal_translator* t) {
  const size_t bytes = translate_scratch_bytes(t->options, t->max_source_length);
  if (!t->scratch.allocate(bytes, 8)) return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for translate scratch");
  auto tokenizer = Tokenizer::from_model(t->session->model->model);
  if (!tokenizer.ok()) return FOCAL_OK;  // ids only
  t->tokenizer.emplace(tokenizer.value());
  const size_t text_bytes = Tokenizer::encode_scratch_bytes(kTextBytesPerToken * t->max_source_length);
  if (!t->text_ids.allocate(t->max_source_length * sizeof(int32_t), 8) || !t->encode_scratch.allocate(text_bytes, 8)) {
    return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for text scratch");
  }
  return FOCAL_OK;
}

focal_status check_capacities(const focal_translator* t, size_t source_length, size_t token_capacity,
                              const float* alignment, size_t alignment_capacity) {
  if (source_length > t->max_source_length) {
    return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "a source of %zu tokens is longer than the translator's %zu",
                        source_length, t->max_source_length);
  }
  if (token_capacity < t->options.max_steps) {
    return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "tokens holds %zu ids, max_steps is %zu", token_capacity,
                        t->options.max_steps);
  }
  if (alignment != nullptr && alignment_capacity / t->options.max_steps < source_length) {
    return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "alignment holds %zu floats, %zu x %zu needed", alignment_capacity,
                        t->options.max_steps, source_length);
  }
  return FOCAL_OK;
}

focal_status translate_ids(focal_translator* t, const int32_t* source, size_t source_length, int32_t* tokens,
                           size_t token_capacity, float* alignment, size_t alignment_capacity,
                           focal_translation* result) {
  const focal_status fits = check_capacities(t, source_length, token_capacity, alignment, alignment_capacity);
  if (fits != FOCAL_OK) return fits;
  auto translation = translate(t->session->session, source, source_length, t->options, t->scratch.data,
                               translate_scratch_bytes(t->options, t->max_source_length), tokens, alignment);
  if (!translation.ok()) return fail(translation.status());
  result->length = translation->length;
  result->score = translation->score;
  result->source_length = source_length;
  return FOCAL_OK;
}

}  // namespace
}  // namespace capi
}  // namespace focal

using namespace focal;

extern "C" {

focal_translate_options focal_translate_options_default(const focal_model* model) noexcept {
  const TranslateOptions defaults;
  focal_translate_options options{defaults.max_steps, defaults.bos_id, defaults.eos_id, defaults.beam_width,
                                  defaults.length_penalty};
  if (model == nullptr) return options;
  auto target = Tokenizer::from_model(model->model, true);
  if (target.ok()) {  // as `focal generate` does
    if (target->bos_id() >= 0) options.bos_id = target->bos_id();
    options.eos_id = target->eos_id();
  }
  return options;
}

focal_status focal_translator_create(focal_session* session, const focal_translate_options* options,
                                     size_t max_source_length, focal_translator** translator) noexcept {
  FOCAL_C_REQUIRE(translator);
  *translator = nullptr;
  FOCAL_C_REQUIRE(session);
  FOCAL_C_TRY {
    const focal_translate_options chosen =
        options != nullptr ? *options : focal_translate_options_default(session->model);
    if (chosen.max_steps == 0 || chosen.beam_width == 0 || !(chosen.length_penalty >= 0.0f)) {
      return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "max_steps and beam_width must be at least 1, length_penalty not negative");
    }
    const size_t planned = capi::planned_source_length(session->model->model);
    if (planned == 0) {
      return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "the model has no input input_ids (or source_ids) [batch, src_len] to translate");
    }
    focal_translator* t = capi::new_handle<focal_translator>();
    if (t == nullptr) return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for a translator handle");
    t->session = session;
    t->options = capi::engine_options(chosen);
    t->max_source_length = max_source_length != 0 ? max_source_length : planned;
    const focal_status allocated = capi::allocate_scratch(t);
    if (allocated != FOCAL_OK) {
      capi::delete_handle(t);
      return allocated;
    }
    *translator = t;
    return FOCAL_OK;
  }
  FOCAL_C_CATCH
}

void focal_translator_free(focal_translator* translator) noexcept { capi::delete_handle(translator); }

focal_status focal_translate(focal_translator* translator, const int32_t* source, size_t source_length,
                             int32_t* tokens, size_t token_capacity, float* alignment, size_t alignment_capacity,
                             focal_translation* result) noexcept {
  FOCAL_C_REQUIRE(translator);
  FOCAL_C_REQUIRE(source);
  FOCAL_C_REQUIRE(tokens);
  FOCAL_C_REQUIRE(result);
  FOCAL_C_USE_SESSION(translator->session);
  FOCAL_C_TRY {
    return capi::translate_ids(translator, source, source_length, tokens, token_capacity, alignment,
                               alignment_capacity, result);
  }
  FOCAL_C_CATCH
}

focal_status focal_translate_text(focal_translator* translator, const char* text, size_t text_bytes, int32_t* tokens,
                                  size_t token_capacity, float* alignment, size_t alignment_capacity,
                                  focal_translation* result) noexcept {
  FOCAL_C_REQUIRE(translator);
  FOCAL_C_REQUIRE(text);
  FOCAL_C_REQUIRE(tokens);
  FOCAL_C_REQUIRE(result);
  FOCAL_C_USE_SESSION(translator->session);
  FOCAL_C_TRY {
    if (!translator->tokenizer.has_value()) {
      return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "the model stores no tokenizer: translate ids instead");
    }
    const size_t max_text = capi::kTextBytesPerToken * translator->max_source_length;
    if (text_bytes > max_text) {
      return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "a text of %zu bytes is longer than the translator's %zu",
                          text_bytes, max_text);
    }
    auto* ids = static_cast<int32_t*>(translator->text_ids.data);
    auto count = translator->tokenizer->encode(text, text_bytes, ids, translator->max_source_length,
                                               translator->encode_scratch.data,
                                               Tokenizer::encode_scratch_bytes(max_text));
    if (!count.ok()) return capi::fail(count.status());
    return capi::translate_ids(translator, ids, count.value(), tokens, token_capacity, alignment, alignment_capacity,
                               result);
  }
  FOCAL_C_CATCH
}

}  // extern "C"
