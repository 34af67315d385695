// focal_tokenizer_*: the tokenizer stored in a model (focal::Tokenizer), with encode
// scratch sized once per handle.
#include "c_api_internal.h"

using namespace focal;

extern "C" {

focal_status focal_tokenizer_create(const focal_model* model, int target, size_t max_text_bytes,
                                    focal_tokenizer** tokenizer) noexcept {
  FOCAL_C_REQUIRE(tokenizer);
  *tokenizer = nullptr;
  FOCAL_C_REQUIRE(model);
  FOCAL_C_TRY {
    if (max_text_bytes == 0) return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "max_text_bytes must be at least 1");
    auto stored = Tokenizer::from_model(model->model, target != 0);
    if (!stored.ok()) return capi::fail(stored.status());
    capi::AlignedBlock scratch;
    if (max_text_bytes > (SIZE_MAX - 256) / Tokenizer::kScratchBytesPerTextByte ||
        !scratch.allocate(Tokenizer::encode_scratch_bytes(max_text_bytes), 8)) {
      return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "no memory for the scratch of %zu bytes of text", max_text_bytes);
    }
    *tokenizer = capi::new_handle<focal_tokenizer>(stored.value(), max_text_bytes, scratch);
    if (*tokenizer == nullptr) {
      scratch.release();
      return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for a tokenizer handle");
    }
    (*tokenizer)->model = model;
    capi::hold_model(model);
    return FOCAL_OK;
  }
  FOCAL_C_CATCH
}

void focal_tokenizer_free(focal_tokenizer* tokenizer) noexcept {
  if (tokenizer == nullptr) return;
  const focal_model* model = tokenizer->model;
  capi::delete_handle(tokenizer);
  capi::drop_model(model);
}

const char* focal_tokenizer_kind(const focal_tokenizer* tokenizer) noexcept {
  return tokenizer == nullptr ? "" : tokenizer->tokenizer.kind();
}

size_t focal_tokenizer_vocab_size(const focal_tokenizer* tokenizer) noexcept {
  return tokenizer == nullptr ? 0 : tokenizer->tokenizer.vocab_size();
}

int32_t focal_tokenizer_bos_id(const focal_tokenizer* tokenizer) noexcept {
  return tokenizer == nullptr ? -1 : tokenizer->tokenizer.bos_id();
}

int32_t focal_tokenizer_eos_id(const focal_tokenizer* tokenizer) noexcept {
  return tokenizer == nullptr ? -1 : tokenizer->tokenizer.eos_id();
}

focal_status focal_tokenizer_set_parse_special(focal_tokenizer* tokenizer, int parse) noexcept {
  FOCAL_C_REQUIRE(tokenizer);
  tokenizer->tokenizer.set_parse_special(parse != 0);
  return FOCAL_OK;
}

focal_status focal_tokenizer_encode(focal_tokenizer* tokenizer, const char* text, size_t text_bytes, int32_t* ids,
                                    size_t capacity, size_t* count) noexcept {
  FOCAL_C_REQUIRE(tokenizer);
  FOCAL_C_REQUIRE(text);
  FOCAL_C_REQUIRE(ids);
  FOCAL_C_REQUIRE(count);
  FOCAL_C_TRY {
    if (text_bytes > tokenizer->max_text_bytes) {
      return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "a text of %zu bytes is longer than the tokenizer's %zu",
                          text_bytes, tokenizer->max_text_bytes);
    }
    auto encoded = tokenizer->tokenizer.encode(text, text_bytes, ids, capacity, tokenizer->scratch.data,
                                               Tokenizer::encode_scratch_bytes(tokenizer->max_text_bytes));
    if (!encoded.ok()) return capi::fail(encoded.status());
    *count = encoded.value();
    return FOCAL_OK;
  }
  FOCAL_C_CATCH
}

focal_status focal_tokenizer_decode(const focal_tokenizer* tokenizer, const int32_t* ids, size_t count, char* text,
                                    size_t capacity, size_t* text_bytes) noexcept {
  FOCAL_C_REQUIRE(tokenizer);
  FOCAL_C_REQUIRE(ids);
  FOCAL_C_REQUIRE(text);
  FOCAL_C_REQUIRE(text_bytes);
  FOCAL_C_TRY {
    size_t written = 0;
    for (size_t i = 0; i < count; ++i) {
      auto piece = tokenizer->tokenizer.decode_token(ids[i], text + written, capacity - written);
      if (!piece.ok()) return capi::fail(piece.status());
      written += piece.value();
    }
    *text_bytes = written;
    return FOCAL_OK;
  }
  FOCAL_C_CATCH
}

}  // extern "C"
