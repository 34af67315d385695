/* focal's C API: load a .focal model, run it in a session, generate and translate with
 * it, from C99 or any language that binds to C. Nothing C++ is visible here and no
 * exception crosses it: every entry point that can fail returns a focal_status, and
 * focal_last_error_message() says why in words.
 *
 * Handles and their lifetimes (each is freed by the caller with its _free function;
 * freeing NULL does nothing):
 *
 *   focal_model            read-only after loading; may be shared by any number of
 *                          threads and sessions. Loaded from bytes without copying, the
 *                          bytes stay owned by the caller and must stay alive and
 *                          unchanged until the model is freed. Loaded from a file, or
 *                          with FOCAL_LOAD_COPY, the model owns its bytes.
 *   focal_session_options  plain settings; may be freed as soon as the session exists.
 *   focal_session          one model run in one arena (the caller's, given through the
 *                          options, or one the session allocates and frees); a caller
 *                          arena must outlive it. One thread at a time: a call made
 *                          while another thread is inside the session (or one of its
 *                          generators or translators) returns FOCAL_INVALID_ARGUMENT.
 *   focal_generator        sampling state for a decoder-only session; the session must
 *   focal_translator       outlive it. The translator holds the scratch of a
 *   focal_tokenizer        sequence-to-sequence session; a tokenizer reads its model's
 *                          tables, so the model must outlive it.
 *
 * Free in the reverse order of creation: generators, translators and tokenizers, then
 * sessions, then the model. A model freed first is only marked (focal_model_free says
 * so) and freed with the last session or tokenizer that reads it. After a session exists, running it (set_input, run,
 * run_stage, output, generate, translate, self-test) allocates nothing.
 *
 * Errors: each thread keeps the code and message of its own last failed call (a success
 * leaves them unchanged), so threads never see each other's errors. Bare-metal builds
 * have one thread and keep them in one static. */
#ifndef FOCAL_C_API_H
#define FOCAL_C_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define FOCAL_C_NOEXCEPT noexcept
extern "C" {
#else
#define FOCAL_C_NOEXCEPT
#endif

/* This header's version: raised when a declaration changes. */
#define FOCAL_C_API_VERSION 1
/* Dims per tensor (focal::kMaxRank). */
#define FOCAL_MAX_RANK 6

/* ---------------------------------------------------------------- errors */

typedef enum focal_status {
  FOCAL_OK = 0,
  FOCAL_INVALID_ARGUMENT = 1,   /* null pointer, wrong shape or size, bad index, ... */
  FOCAL_INVALID_MODEL = 2,      /* the model bytes are corrupt, hostile or inconsistent */
  FOCAL_UNSUPPORTED = 3,        /* valid, but not on this engine or target */
  FOCAL_OUT_OF_RANGE = 4,       /* input data beyond the plan: length, token id, ... */
  FOCAL_RESOURCE_EXHAUSTED = 5, /* an arena, buffer or capacity too small; out of memory */
  FOCAL_IO_ERROR = 6,           /* reading a file failed */
  FOCAL_NOT_FOUND = 7,          /* no input, output or stage of that name */
  FOCAL_INTERNAL = 8            /* a C++ exception stopped at the API (a callback's) */
} focal_status;

/* "ok", "invalid argument", ...; "unknown" for a value outside the enum. */
const char* focal_status_name(focal_status status) FOCAL_C_NOEXCEPT;
/* The calling thread's last failure: its code (FOCAL_OK when none yet) and message
 * ("ok" when none), valid until this thread's next failing call. */
focal_status focal_last_error(void) FOCAL_C_NOEXCEPT;
const char* focal_last_error_message(void) FOCAL_C_NOEXCEPT;
/* The model format version this engine reads. */
uint32_t focal_format_version(void) FOCAL_C_NOEXCEPT;

/* ---------------------------------------------------------------- tensors */

typedef enum focal_dtype {
  FOCAL_F32 = 0,
  FOCAL_F16 = 1,
  FOCAL_BF16 = 2,
  FOCAL_I8 = 3,
  FOCAL_I32 = 4
} focal_dtype;

/* Bytes per element (0 for a value outside the enum) and the name ("f32", ...). */
size_t focal_dtype_size(focal_dtype dtype) FOCAL_C_NOEXCEPT;
const char* focal_dtype_name(focal_dtype dtype) FOCAL_C_NOEXCEPT;

typedef struct focal_shape {
  int32_t rank;
  int64_t dims[FOCAL_MAX_RANK];
} focal_shape;

/* An input or output as the model describes it. Strings belong to the model. */
typedef struct focal_tensor_info {
  const char* name;
  focal_dtype dtype;
  focal_shape shape;                    /* the planned maximum */
  const char* dim_names[FOCAL_MAX_RANK]; /* a symbolic dim's name ("batch", "seq"), NULL if fixed */
  size_t max_bytes;                     /* bytes at the planned maximum shape */
} focal_tensor_info;

/* A tensor's value after a run: the actual shape, data in the session's arena. Valid
 * until the session's next run, run_stage, generate, translate or self-test, or its free. */
typedef struct focal_tensor {
  const char* name;
  focal_dtype dtype;
  focal_shape shape;
  const void* data;
  size_t bytes;
} focal_tensor;

/* ---------------------------------------------------------------- models */

typedef struct focal_model focal_model;

/* Load flags (bitwise or). */
#define FOCAL_LOAD_DEFAULT 0u
/* Copy the bytes into memory the model owns (they may then be unaligned and freed
 * right after loading); without it the bytes must be 64-byte aligned and outlive the model. */
#define FOCAL_LOAD_COPY 1u
/* Skip the CRC-32 (about 1 ms per MB): only for bytes already checked. */
#define FOCAL_LOAD_SKIP_CHECKSUM 2u

/* Verifies everything (structure, checksum, version, shapes, plan) and makes *model. */
focal_status focal_model_load_bytes(const void* bytes, size_t size, uint32_t flags,
                                    focal_model** model) FOCAL_C_NOEXCEPT;
/* Maps the file read-only (Linux; the model owns the mapping, FOCAL_LOAD_COPY is
 * ignored). FOCAL_UNSUPPORTED on targets without files (bare-metal firmware). */
focal_status focal_model_load_file(const char* path, uint32_t flags,
                                   focal_model** model) FOCAL_C_NOEXCEPT;
/* Frees the model (FOCAL_OK), or, while sessions or tokenizers made from it are alive,
 * marks it and returns FOCAL_INVALID_ARGUMENT: the last of them to be freed frees it. */
focal_status focal_model_free(focal_model* model) FOCAL_C_NOEXCEPT;

/* Counts are -1 and strings "" for a NULL model. */
int32_t focal_model_input_count(const focal_model* model) FOCAL_C_NOEXCEPT;
int32_t focal_model_output_count(const focal_model* model) FOCAL_C_NOEXCEPT;
focal_status focal_model_input_info(const focal_model* model, int32_t index,
                                    focal_tensor_info* info) FOCAL_C_NOEXCEPT;
focal_status focal_model_output_info(const focal_model* model, int32_t index,
                                     focal_tensor_info* info) FOCAL_C_NOEXCEPT;
/* FOCAL_NOT_FOUND when no input (output) has that name. */
focal_status focal_model_find_input(const focal_model* model, const char* name,
                                    int32_t* index) FOCAL_C_NOEXCEPT;
focal_status focal_model_find_output(const focal_model* model, const char* name,
                                     int32_t* index) FOCAL_C_NOEXCEPT;
/* Named op ranges that run on their own ("encode", "decode"); 0 for a model without. */
int32_t focal_model_stage_count(const focal_model* model) FOCAL_C_NOEXCEPT;
const char* focal_model_stage_name(const focal_model* model, int32_t index) FOCAL_C_NOEXCEPT;
int32_t focal_model_self_test_count(const focal_model* model) FOCAL_C_NOEXCEPT;
uint64_t focal_model_parameter_count(const focal_model* model) FOCAL_C_NOEXCEPT;
const char* focal_model_architecture(const focal_model* model) FOCAL_C_NOEXCEPT;
/* The converter's hyperparameter `key` (a classifier's labels are "label.0", ...);
 * NULL when the model has none of that name. */
const char* focal_model_hyperparameter(const focal_model* model, const char* key) FOCAL_C_NOEXCEPT;

/* ---------------------------------------------------------------- sessions */

typedef struct focal_session_options focal_session_options;
typedef struct focal_session focal_session;

/* Defaults: 1 thread, the model's planned batch and sequence limits, an arena the
 * session allocates. */
focal_status focal_session_options_create(focal_session_options** options) FOCAL_C_NOEXCEPT;
void focal_session_options_free(focal_session_options* options) FOCAL_C_NOEXCEPT;
/* Workers for the ops that split their work: 1 to 1024 (the session owns a thread pool
 * when above 1; FOCAL_UNSUPPORTED above 1 on bare metal). Results do not depend on it. */
focal_status focal_session_options_set_threads(focal_session_options* options,
                                               int32_t threads) FOCAL_C_NOEXCEPT;
/* Limits on the symbols "batch" and "seq": 0 for the planned maximum, which is also the
 * most a session may ask for (focal_session_create refuses more). */
focal_status focal_session_options_set_max_batch(focal_session_options* options,
                                                 int64_t max_batch) FOCAL_C_NOEXCEPT;
focal_status focal_session_options_set_max_seq(focal_session_options* options,
                                               int64_t max_seq) FOCAL_C_NOEXCEPT;
/* A caller-owned arena: 64-byte aligned, at least focal_session_required_arena_bytes()
 * long, alive until the session is freed. NULL (the default) lets the session allocate. */
focal_status focal_session_options_set_arena(focal_session_options* options, void* arena,
                                             size_t bytes) FOCAL_C_NOEXCEPT;
/* The arena bytes a session of this model with these options (NULL: defaults) needs. */
focal_status focal_session_required_arena_bytes(const focal_model* model,
                                                const focal_session_options* options,
                                                size_t* bytes) FOCAL_C_NOEXCEPT;

/* options may be NULL (defaults). FOCAL_RESOURCE_EXHAUSTED for a caller arena too small. */
focal_status focal_session_create(const focal_model* model, const focal_session_options* options,
                                  focal_session** session) FOCAL_C_NOEXCEPT;
void focal_session_free(focal_session* session) FOCAL_C_NOEXCEPT;

/* Copies `bytes` of data of the actual `shape` into the input. The shape must match the
 * model's except on symbolic dims (1 to the session's limit, the same value in every
 * input); bytes must be the shape's exact size. */
focal_status focal_session_set_input(focal_session* session, int32_t index, const focal_shape* shape,
                                     const void* data, size_t bytes) FOCAL_C_NOEXCEPT;
focal_status focal_session_set_input_by_name(focal_session* session, const char* name,
                                             const focal_shape* shape, const void* data,
                                             size_t bytes) FOCAL_C_NOEXCEPT;
/* Runs every op. Every input read must have been set since the previous run. With KV
 * caches, each run appends its tokens to them. */
focal_status focal_session_run(focal_session* session) FOCAL_C_NOEXCEPT;
focal_status focal_session_find_stage(const focal_session* session, const char* name,
                                      int32_t* index) FOCAL_C_NOEXCEPT;
/* Runs one stage; it needs only the inputs its own ops read. */
focal_status focal_session_run_stage(focal_session* session, int32_t index) FOCAL_C_NOEXCEPT;
/* The output's value from the last run (see focal_tensor for how long it stays valid). */
focal_status focal_session_output(const focal_session* session, int32_t index,
                                  focal_tensor* tensor) FOCAL_C_NOEXCEPT;
focal_status focal_session_output_by_name(const focal_session* session, const char* name,
                                          focal_tensor* tensor) FOCAL_C_NOEXCEPT;
/* KV caches: positions already cached (-1 for a NULL session); reset starts a new sequence. */
int64_t focal_session_cached_length(const focal_session* session) FOCAL_C_NOEXCEPT;
focal_status focal_session_reset_state(focal_session* session) FOCAL_C_NOEXCEPT;

typedef struct focal_self_test_report {
  int32_t cases;
  int32_t failed_cases;
  float max_abs_error;
  float worst_tolerance_ratio; /* error / (atol + rtol |expected|): above 1 is a failure */
} focal_self_test_report;

/* Runs the model's stored self-test vectors (resets the session's state). FOCAL_OK means
 * they ran; report->failed_cases says whether the outputs agreed. */
focal_status focal_session_self_test(focal_session* session,
                                     focal_self_test_report* report) FOCAL_C_NOEXCEPT;

/* ---------------------------------------------------------------- generation */

typedef struct focal_sampling {
  float temperature; /* 0: greedy (argmax, the lowest id on ties) */
  int32_t top_k;     /* keep the k most likely tokens; 0: all */
  float top_p;       /* keep the smallest set whose probability reaches top_p; 1: all */
  uint64_t seed;     /* same seed, same model, same tokens */
} focal_sampling;

/* Greedy: temperature 0, top_k 0, top_p 1, seed 0. */
focal_sampling focal_sampling_default(void) FOCAL_C_NOEXCEPT;

typedef struct focal_generator focal_generator;

/* Called with each generated token; return nonzero to go on, 0 to stop. */
typedef int (*focal_token_callback)(int32_t token, void* user);

/* A decoder-only session (input "input_ids", output "logits"): the generator holds the
 * sampler and its scratch. sampling may be NULL (greedy). */
focal_status focal_generator_create(focal_session* session, const focal_sampling* sampling,
                                    focal_generator** generator) FOCAL_C_NOEXCEPT;
void focal_generator_free(focal_generator* generator) FOCAL_C_NOEXCEPT;
/* Restarts sampling with new settings (a new seed restarts the random sequence). */
focal_status focal_generator_set_sampling(focal_generator* generator,
                                          const focal_sampling* sampling) FOCAL_C_NOEXCEPT;
/* Resets the session's state, prefills the prompt (batch 1) and generates up to
 * max_new_tokens tokens, calling on_token (may be NULL) for each; stops after producing
 * end_token (-1: none) or when on_token returns 0. FOCAL_OUT_OF_RANGE, before running,
 * when prompt + new tokens exceed the KV cache. */
focal_status focal_generate(focal_generator* generator, const int32_t* prompt, size_t prompt_length,
                            size_t max_new_tokens, int32_t end_token, focal_token_callback on_token,
                            void* user) FOCAL_C_NOEXCEPT;

/* ---------------------------------------------------------------- translation */

typedef struct focal_translate_options {
  size_t max_steps;     /* tokens generated at most (eos included) */
  int32_t bos_id;       /* fed at the first step */
  int32_t eos_id;       /* ends a hypothesis; -1: none */
  size_t beam_width;    /* 1: greedy */
  float length_penalty; /* alpha: a finished beam ranks by log-probability / length^alpha */
} focal_translate_options;

/* max_steps 64, beam 1, no length penalty; bos and eos from the model's target tokenizer
 * when it has one, else 1 and 2. model may be NULL. */
focal_translate_options focal_translate_options_default(const focal_model* model) FOCAL_C_NOEXCEPT;

typedef struct focal_translation {
  size_t length;        /* tokens written (the eos included when one ended it) */
  double score;         /* greedy: summed log-probabilities; beam: the normalized score */
  size_t source_length; /* source tokens (the alignment's row length) */
} focal_translation;

typedef struct focal_translator focal_translator;

/* A sequence-to-sequence session (stages "encode" and "decode", the rnn-seq2seq
 * contract). Holds the scratch for sources of up to max_source_length tokens (0: the
 * model's planned source length) and, when the model stores a tokenizer, for texts of
 * up to 4 bytes per token. options may be NULL (focal_translate_options_default). */
focal_status focal_translator_create(focal_session* session, const focal_translate_options* options,
                                     size_t max_source_length,
                                     focal_translator** translator) FOCAL_C_NOEXCEPT;
void focal_translator_free(focal_translator* translator) FOCAL_C_NOEXCEPT;
/* Translates source ids. tokens holds at least max_steps ids (token_capacity);
 * alignment, when not NULL, receives each produced token's attention over the source,
 * [length][source_length] floats, and must hold max_steps * source_length. */
focal_status focal_translate(focal_translator* translator, const int32_t* source, size_t source_length,
                             int32_t* tokens, size_t token_capacity, float* alignment,
                             size_t alignment_capacity, focal_translation* result) FOCAL_C_NOEXCEPT;
/* The same from UTF-8 text through the model's (source-side) tokenizer;
 * FOCAL_INVALID_ARGUMENT when the model stores none. */
focal_status focal_translate_text(focal_translator* translator, const char* text, size_t text_bytes,
                                  int32_t* tokens, size_t token_capacity, float* alignment,
                                  size_t alignment_capacity, focal_translation* result) FOCAL_C_NOEXCEPT;

/* ---------------------------------------------------------------- tokenizers */

typedef struct focal_tokenizer focal_tokenizer;

/* The model's tokenizer (target nonzero: a seq2seq model's output-side one), with
 * scratch to encode texts of up to max_text_bytes (at least 1). FOCAL_INVALID_ARGUMENT
 * when the model has none. */
focal_status focal_tokenizer_create(const focal_model* model, int target, size_t max_text_bytes,
                                    focal_tokenizer** tokenizer) FOCAL_C_NOEXCEPT;
void focal_tokenizer_free(focal_tokenizer* tokenizer) FOCAL_C_NOEXCEPT;
/* "byte-level-bpe", "wordpiece", "unigram", "characters"; "" for NULL. */
const char* focal_tokenizer_kind(const focal_tokenizer* tokenizer) FOCAL_C_NOEXCEPT;
size_t focal_tokenizer_vocab_size(const focal_tokenizer* tokenizer) FOCAL_C_NOEXCEPT;
/* Special ids, -1 when absent (or for NULL). */
int32_t focal_tokenizer_bos_id(const focal_tokenizer* tokenizer) FOCAL_C_NOEXCEPT;
int32_t focal_tokenizer_eos_id(const focal_tokenizer* tokenizer) FOCAL_C_NOEXCEPT;
/* Whether special tokens written in the text (<|endoftext|>, <s>, [CLS]) are recognized
 * (parse nonzero, the default) or read as plain text (0: llama.cpp's parse_special =
 * false). Added tokens that are not special are recognized either way. */
focal_status focal_tokenizer_set_parse_special(focal_tokenizer* tokenizer, int parse) FOCAL_C_NOEXCEPT;
/* UTF-8 text to ids (no bos/eos added); FOCAL_RESOURCE_EXHAUSTED when capacity ids are
 * too few or the text is longer than max_text_bytes. */
focal_status focal_tokenizer_encode(focal_tokenizer* tokenizer, const char* text, size_t text_bytes,
                                    int32_t* ids, size_t capacity, size_t* count) FOCAL_C_NOEXCEPT;
/* The bytes of ids[0..count) concatenated (not NUL-terminated; a BPE token may end
 * inside a UTF-8 character). FOCAL_OUT_OF_RANGE for a bad id. */
focal_status focal_tokenizer_decode(const focal_tokenizer* tokenizer, const int32_t* ids, size_t count,
                                    char* text, size_t capacity, size_t* text_bytes) FOCAL_C_NOEXCEPT;

/* ---------------------------------------------------------------- chat */

/* One message of a conversation: role "system" (first message only), "user" or
 * "assistant" (NUL-terminated); content UTF-8, content_bytes long. */
typedef struct focal_chat_message {
  const char* role;
  const char* content;
  size_t content_bytes;
} focal_chat_message;

/* The conversation as the prompt text of the model's chat format (tokenizer_config.json's
 * chat_template, recognized at conversion), then the assistant's opening when
 * add_generation_prompt is nonzero, as transformers' apply_chat_template(tokenize=False).
 * Writes *text_bytes bytes (not NUL-terminated); with text NULL and capacity 0 it only
 * sets *text_bytes to a size that always fits. Encode the text with
 * focal_tokenizer_encode (special tokens parsed). FOCAL_INVALID_ARGUMENT when the model
 * has no chat format or for a role the format cannot write; FOCAL_RESOURCE_EXHAUSTED when
 * capacity is too small. */
focal_status focal_chat_render(const focal_model* model, const focal_chat_message* messages, size_t count,
                               int add_generation_prompt, char* text, size_t capacity,
                               size_t* text_bytes) FOCAL_C_NOEXCEPT;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FOCAL_C_API_H */
