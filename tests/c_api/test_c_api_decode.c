/* The C API's generation, translation and tokenizers against the C++ API, the
 * exception boundary, threads, and per-thread errors. */
#include <stdint.h>
#include <stdlib.h>

#include "c_api/c_test.h"

#if !defined(FOCAL_TESTS_UNDER_EMULATION)
#include <pthread.h>
#endif

#define MAX_TOKENS 64

typedef struct token_sink {
  int32_t tokens[MAX_TOKENS];
  size_t count;
  size_t stop_after; /* 0: never stop */
} token_sink;

static int collect(int32_t token, void* user) {
  token_sink* sink = (token_sink*)user;
  if (sink->count < MAX_TOKENS) sink->tokens[sink->count] = token;
  ++sink->count;
  return sink->stop_after == 0 || sink->count < sink->stop_after;
}

static void generate_against_reference(const test_bytes* bytes, focal_generator* generator,
                                       const focal_sampling* sampling, size_t max_new) {
  static const int32_t prompt[] = {5, 17, 3, 9, 42};
  int32_t expected[MAX_TOKENS];
  size_t count = 0;
  token_sink sink;
  memset(&sink, 0, sizeof(sink));
  CHECK_OK(focal_generate(generator, prompt, 5, max_new, -1, collect, &sink));
  CHECK(cref_generate(bytes->data, bytes->size, prompt, 5, max_new, -1, sampling, expected, MAX_TOKENS, &count) == 0);
  CHECK(sink.count == max_new && count == max_new);
  CHECK(memcmp(sink.tokens, expected, max_new * sizeof(int32_t)) == 0);
}

static void test_decoder(const char* name) {
  test_bytes bytes = test_read_file(test_golden_path(name));
  focal_model* model = NULL;
  focal_session* session = NULL;
  focal_generator* generator = NULL;
  focal_sampling greedy = focal_sampling_default(), sampled = greedy;
  token_sink sink;
  static const int32_t prompt[] = {5, 17, 3};
  sampled.temperature = 0.8f;
  sampled.top_k = 20;
  sampled.top_p = 0.9f;
  sampled.seed = 1234;
  CHECK(greedy.temperature == 0.0f && greedy.top_p == 1.0f && greedy.top_k == 0);
  CHECK_OK(focal_model_load_bytes(bytes.data, bytes.size, 0, &model));
  CHECK_OK(focal_session_create(model, NULL, &session));
  CHECK_OK(focal_generator_create(session, NULL, &generator));
  generate_against_reference(&bytes, generator, &greedy, 24);
  CHECK_OK(focal_generator_set_sampling(generator, &sampled));
  generate_against_reference(&bytes, generator, &sampled, 24);

  /* The callback stops generation; an end token too (the same seed gives the same
   * tokens, so the second token of the first run ends the second); a NULL callback is
   * allowed. */
  memset(&sink, 0, sizeof(sink));
  sink.stop_after = 3;
  CHECK_OK(focal_generator_set_sampling(generator, &sampled));
  CHECK_OK(focal_generate(generator, prompt, 3, 20, -1, collect, &sink));
  CHECK(sink.count == 3);
  {
    const int32_t end = sink.tokens[1];
    const size_t first_end = sink.tokens[0] == end ? 0 : 1;
    memset(&sink, 0, sizeof(sink));
    CHECK_OK(focal_generator_set_sampling(generator, &sampled));
    CHECK_OK(focal_generate(generator, prompt, 3, 20, end, collect, &sink));
    CHECK(sink.count == first_end + 1 && sink.tokens[first_end] == end);
  }
  CHECK_OK(focal_generate(generator, prompt, 3, 4, -1, NULL, NULL));
  CHECK(focal_session_cached_length(session) == 3 + 4 - 1);

  /* Errors: a prompt beyond the KV cache, an empty one, NULLs, a throwing callback. */
  CHECK_STATUS(focal_generate(generator, prompt, 3, 100000, -1, NULL, NULL), FOCAL_OUT_OF_RANGE);
  CHECK_STATUS(focal_generate(generator, prompt, 0, 4, -1, NULL, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_generate(generator, NULL, 3, 4, -1, NULL, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_generate(NULL, prompt, 3, 4, -1, NULL, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_generate(generator, prompt, 3, 4, -1, cref_throwing_callback, NULL), FOCAL_INTERNAL);
  CHECK_MESSAGE("exception");
  sampled.top_p = 0.0f;
  CHECK_STATUS(focal_generator_set_sampling(generator, &sampled), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_generator_set_sampling(generator, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_generator_set_sampling(NULL, &greedy), FOCAL_INVALID_ARGUMENT);
  focal_generator_free(generator);
  CHECK_STATUS(focal_generator_create(NULL, NULL, &generator), FOCAL_INVALID_ARGUMENT);
  CHECK(generator == NULL); /* a failed create leaves NULL */
  CHECK_STATUS(focal_generator_create(session, NULL, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_generator_create(session, &sampled, &generator), FOCAL_INVALID_ARGUMENT);
  CHECK(generator == NULL);
  focal_generator_free(NULL);
  focal_session_free(session);
  focal_model_free(model);
  test_free_bytes(&bytes);
}

void test_generation(void) {
  focal_model* model = NULL;
  focal_session* session = NULL;
  focal_generator* generator = NULL;
  test_decoder("gpt2_l2_d32_h4");
  test_decoder("llama_mqa_hd16_l3_d32_h4_kv1");
  /* An encoder has no logits to sample from. */
  CHECK_OK(focal_model_load_file(test_golden_path("bert_l2_d32_h4"), 0, &model));
  CHECK_OK(focal_session_create(model, NULL, &session));
  CHECK_STATUS(focal_generator_create(session, NULL, &generator), FOCAL_INVALID_ARGUMENT);
  CHECK_MESSAGE("logits");
  focal_session_free(session);
  focal_model_free(model);
}

/* Greedy and beam search on source ids, tokens, score and alignment as the C++ API's. */
static void translate_against_reference(const test_bytes* bytes, focal_translator* translator,
                                        const focal_translate_options* options, const int32_t* source,
                                        size_t source_length) {
  int32_t tokens[MAX_TOKENS], expected[MAX_TOKENS];
  float alignment[MAX_TOKENS * 16], expected_alignment[MAX_TOKENS * 16];
  focal_translation result;
  size_t length = 0;
  double score = 0;
  memset(alignment, 0, sizeof(alignment));
  memset(expected_alignment, 0, sizeof(expected_alignment));
  CHECK_OK(focal_translate(translator, source, source_length, tokens, MAX_TOKENS, alignment, MAX_TOKENS * 16, &result));
  CHECK(cref_translate(bytes->data, bytes->size, source, source_length, options, expected, expected_alignment, &length,
                       &score) == 0);
  CHECK(result.length == length && result.length > 0 && result.score == score);
  CHECK(result.source_length == source_length);
  CHECK(memcmp(tokens, expected, length * sizeof(int32_t)) == 0);
  CHECK(memcmp(alignment, expected_alignment, length * source_length * sizeof(float)) == 0);
}

static void test_translation_ids(void) {
  test_bytes bytes = test_read_file(test_golden_path("rnn_bahdanau_lstm_bi_l1_e16_h16_hd24"));
  focal_model* model = NULL;
  focal_session* session = NULL;
  focal_translator* greedy = NULL;
  focal_translator* beam = NULL;
  focal_translate_options options;
  static const int32_t source[] = {4, 9, 5, 7, 6, 8, 4};
  int32_t tokens[MAX_TOKENS];
  float alignment[4];
  focal_translation result;
  CHECK_OK(focal_model_load_bytes(bytes.data, bytes.size, 0, &model));
  CHECK_OK(focal_session_create(model, NULL, &session));
  options = focal_translate_options_default(model); /* no tokenizer: the C++ defaults */
  CHECK(options.max_steps == 64 && options.bos_id == 1 && options.eos_id == 2 && options.beam_width == 1);
  options.max_steps = 20;
  CHECK_OK(focal_translator_create(session, &options, 0, &greedy));
  translate_against_reference(&bytes, greedy, &options, source, 7);
  translate_against_reference(&bytes, greedy, &options, source + 2, 3);
  options.beam_width = 3;
  options.length_penalty = 0.6f;
  CHECK_OK(focal_translator_create(session, &options, 7, &beam));
  translate_against_reference(&bytes, beam, &options, source, 7);

  CHECK_STATUS(focal_translate(greedy, source, 7, tokens, 19, NULL, 0, &result), FOCAL_RESOURCE_EXHAUSTED);
  CHECK_STATUS(focal_translate(greedy, source, 7, tokens, MAX_TOKENS, alignment, 4, &result), FOCAL_RESOURCE_EXHAUSTED);
  CHECK_STATUS(focal_translate(beam, source, 8, tokens, MAX_TOKENS, NULL, 0, &result), FOCAL_RESOURCE_EXHAUSTED);
  CHECK_STATUS(focal_translate(greedy, source, 0, tokens, MAX_TOKENS, NULL, 0, &result), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_translate_text(greedy, "abc", 3, tokens, MAX_TOKENS, NULL, 0, &result), FOCAL_INVALID_ARGUMENT);
  CHECK_MESSAGE("tokenizer");
  CHECK_STATUS(focal_translate(NULL, source, 7, tokens, MAX_TOKENS, NULL, 0, &result), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_translate(greedy, NULL, 7, tokens, MAX_TOKENS, NULL, 0, &result), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_translate(greedy, source, 7, NULL, MAX_TOKENS, NULL, 0, &result), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_translate(greedy, source, 7, tokens, MAX_TOKENS, NULL, 0, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_translate_text(greedy, NULL, 3, tokens, MAX_TOKENS, NULL, 0, &result), FOCAL_INVALID_ARGUMENT);
  focal_translator_free(beam);
  options.beam_width = 0;
  CHECK_STATUS(focal_translator_create(session, &options, 0, &beam), FOCAL_INVALID_ARGUMENT);
  CHECK(beam == NULL);
  CHECK_STATUS(focal_translator_create(NULL, NULL, 0, &beam), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_translator_create(session, NULL, 0, NULL), FOCAL_INVALID_ARGUMENT);
  focal_translator_free(greedy);
  focal_translator_free(NULL);
  focal_session_free(session);
  focal_model_free(model);
  test_free_bytes(&bytes);

  /* A decoder-only model has no source to translate. */
  CHECK_OK(focal_model_load_file(test_golden_path("gpt2_l2_d32_h4"), 0, &model));
  CHECK_OK(focal_session_create(model, NULL, &session));
  CHECK_STATUS(focal_translator_create(session, NULL, 0, &greedy), FOCAL_INVALID_ARGUMENT);
  focal_session_free(session);
  focal_model_free(model);
}

/* The bundled dates model: text in through its stored tokenizer, ids as the C++ API's,
 * text out through the target tokenizer. */
static void test_translation_text(const char* path) {
  static const char* const kSources[] = {"3 March 1987", "Sat, 25 Dec 2021", "the 1st of january, 2000"};
  static const char* const kTargets[] = {"1987-03-03", "2021-12-25", "2000-01-01"};
  test_bytes bytes = test_read_file(path);
  focal_model* model = NULL;
  focal_session* session = NULL;
  focal_translator* translator = NULL;
  focal_tokenizer* target = NULL;
  focal_translate_options options;
  size_t i;
  CHECK_OK(focal_model_load_bytes(bytes.data, bytes.size, 0, &model));
  CHECK_OK(focal_session_create(model, NULL, &session));
  options = focal_translate_options_default(model);
  CHECK(options.bos_id == 1 && options.eos_id == 2); /* from the target tokenizer */
  options.max_steps = 12;
  CHECK_OK(focal_translator_create(session, &options, 0, &translator));
  CHECK_OK(focal_tokenizer_create(model, 1, 64, &target));
  for (i = 0; i < 3; ++i) {
    int32_t tokens[MAX_TOKENS], expected[MAX_TOKENS], source[64];
    float alignment[12 * 40], expected_alignment[12 * 40];
    focal_translation result;
    size_t source_length = 0, length = 0, text_bytes = 0;
    double score = 0;
    char text[64];
    CHECK_OK(focal_translate_text(translator, kSources[i], strlen(kSources[i]), tokens, MAX_TOKENS, alignment,
                                  12 * 40, &result));
    CHECK(cref_encode(bytes.data, bytes.size, kSources[i], source, 64, &source_length) == 0);
    CHECK(cref_translate(bytes.data, bytes.size, source, source_length, &options, expected, expected_alignment, &length,
                         &score) == 0);
    CHECK(result.length == length && result.score == score && result.source_length == source_length);
    CHECK(memcmp(tokens, expected, length * sizeof(int32_t)) == 0);
    CHECK(memcmp(alignment, expected_alignment, length * source_length * sizeof(float)) == 0);
    /* Without the eos, the decoded text is the ISO date. */
    CHECK(length >= 1 && tokens[length - 1] == options.eos_id);
    CHECK_OK(focal_tokenizer_decode(target, tokens, length - 1, text, sizeof(text) - 1, &text_bytes));
    text[text_bytes] = '\0';
    CHECK(strcmp(text, kTargets[i]) == 0);
  }
  {
    char longer[400];
    int32_t tokens[MAX_TOKENS];
    focal_translation result;
    memset(longer, 'a', sizeof(longer));
    CHECK_STATUS(focal_translate_text(translator, longer, sizeof(longer), tokens, MAX_TOKENS, NULL, 0, &result),
                 FOCAL_RESOURCE_EXHAUSTED);
  }
  focal_tokenizer_free(target);
  focal_translator_free(translator);
  focal_session_free(session);
  focal_model_free(model);
  test_free_bytes(&bytes);
}

void test_translation(const char* dates_model) {
  test_translation_ids();
  if (dates_model != NULL) {
    test_translation_text(dates_model);
  } else {
    printf("no dates model given: translation from text not checked\n");
  }
}

void test_tokenizers(void) {
  size_t size = 0, count = 0, text_bytes = 0;
  unsigned char* file = cref_tokenizer_model(&size);
  test_bytes bytes = test_copy_bytes(file, size, 0);
  focal_model* model = NULL;
  focal_model* golden = NULL;
  focal_tokenizer* tokenizer = NULL;
  int32_t ids[32], expected[32];
  char text[32];
  static const int32_t bad_id[] = {5, 99};
  CHECK_OK(focal_model_load_bytes(bytes.data, bytes.size, 0, &model));
  CHECK_OK(focal_tokenizer_create(model, 0, 16, &tokenizer));
  CHECK(strcmp(focal_tokenizer_kind(tokenizer), "characters") == 0 && focal_tokenizer_vocab_size(tokenizer) == 31);
  CHECK(focal_tokenizer_bos_id(tokenizer) == 1 && focal_tokenizer_eos_id(tokenizer) == 2);
  CHECK_OK(focal_tokenizer_encode(tokenizer, "hello world", 11, ids, 32, &count));
  CHECK(count == 11 && ids[0] == 4 + ('h' - 'a' + 1) && ids[5] == 4);
  CHECK(cref_encode(bytes.data, bytes.size, "hello world", expected, 32, &size) == 0);
  CHECK(size == count && memcmp(ids, expected, count * sizeof(int32_t)) == 0);
  CHECK_OK(focal_tokenizer_decode(tokenizer, ids, count, text, sizeof(text), &text_bytes));
  CHECK(text_bytes == 11 && memcmp(text, "hello world", 11) == 0);

  /* No added tokens here: reading special tokens as text changes nothing (test_real_tokenizers.cpp
   * checks the switch on real files). */
  CHECK_OK(focal_tokenizer_set_parse_special(tokenizer, 0));
  CHECK_OK(focal_tokenizer_encode(tokenizer, "hello world", 11, ids, 32, &count));
  CHECK(count == 11 && memcmp(ids, expected, count * sizeof(int32_t)) == 0);
  CHECK_OK(focal_tokenizer_set_parse_special(tokenizer, 1));
  CHECK_STATUS(focal_tokenizer_set_parse_special(NULL, 0), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_tokenizer_encode(tokenizer, "hello world", 11, ids, 4, &count), FOCAL_RESOURCE_EXHAUSTED);
  CHECK_STATUS(focal_tokenizer_encode(tokenizer, "a long text beyond sixteen", 26, ids, 32, &count),
               FOCAL_RESOURCE_EXHAUSTED);
  CHECK_STATUS(focal_tokenizer_decode(tokenizer, bad_id, 2, text, sizeof(text), &text_bytes), FOCAL_OUT_OF_RANGE);
  CHECK_STATUS(focal_tokenizer_decode(tokenizer, ids, count, text, 5, &text_bytes), FOCAL_RESOURCE_EXHAUSTED);
  CHECK_STATUS(focal_tokenizer_encode(NULL, "a", 1, ids, 32, &count), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_tokenizer_encode(tokenizer, NULL, 1, ids, 32, &count), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_tokenizer_encode(tokenizer, "a", 1, NULL, 32, &count), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_tokenizer_encode(tokenizer, "a", 1, ids, 32, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_tokenizer_decode(tokenizer, NULL, 1, text, 32, &text_bytes), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_tokenizer_decode(tokenizer, ids, 1, NULL, 32, &text_bytes), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_tokenizer_decode(NULL, ids, 1, text, 32, &text_bytes), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_tokenizer_decode(tokenizer, ids, 1, text, 32, NULL), FOCAL_INVALID_ARGUMENT);
  focal_tokenizer_free(tokenizer);
  CHECK(strcmp(focal_tokenizer_kind(NULL), "") == 0 && focal_tokenizer_vocab_size(NULL) == 0);
  CHECK(focal_tokenizer_bos_id(NULL) == -1 && focal_tokenizer_eos_id(NULL) == -1);
  CHECK_STATUS(focal_tokenizer_create(model, 1, 16, &tokenizer), FOCAL_INVALID_ARGUMENT); /* no target side */
  CHECK_STATUS(focal_tokenizer_create(model, 0, 0, &tokenizer), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_tokenizer_create(NULL, 0, 16, &tokenizer), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_tokenizer_create(model, 0, 16, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_OK(focal_model_load_file(test_golden_path("gpt2_l2_d32_h4"), 0, &golden));
  CHECK_STATUS(focal_tokenizer_create(golden, 0, 16, &tokenizer), FOCAL_INVALID_ARGUMENT);
  CHECK(tokenizer == NULL);
  focal_tokenizer_free(NULL);
  focal_model_free(golden);
  focal_model_free(model);
  test_free_bytes(&bytes);
  free(file);
}

#if !defined(FOCAL_TESTS_UNDER_EMULATION)
/* Each thread fails on a name of its own and must read back its own message. */
static void* fail_on_own_name(void* name) {
  focal_model* model = NULL;
  int32_t index;
  int i, own = 1;
  if (focal_model_load_file(test_golden_path("bert_l2_d32_h4"), 0, &model) != FOCAL_OK) return NULL;
  for (i = 0; i < 2000 && own; ++i) {
    own = focal_model_find_input(model, (const char*)name, &index) == FOCAL_NOT_FOUND &&
          focal_last_error() == FOCAL_NOT_FOUND && strstr(focal_last_error_message(), (const char*)name) != NULL;
  }
  focal_model_free(model);
  return own ? name : NULL;
}
#endif

/* Two workers give the one-thread outputs bit for bit; errors stay per thread. Native
 * only: qemu-user cannot start threads. */
void test_threads(void) {
#if defined(FOCAL_TESTS_UNDER_EMULATION)
  printf("under emulation: threads not checked\n");
#else
  test_bytes bytes = test_read_file(test_golden_path("torch_encoder_postln_relu_mean_l2_d32_h4"));
  focal_model* model = NULL;
  focal_session_options* options = NULL;
  focal_session* threaded = NULL;
  cref_session* reference = cref_open(bytes.data, bytes.size);
  test_inputs inputs;
  pthread_t first, second;
  void* first_result = NULL;
  void* second_result = NULL;
  char name_a[] = "first thread's input", name_b[] = "second thread's input";
  size_t one_worker = 0, two_workers = 0;
  test_bytes arena;
  CHECK_OK(focal_model_load_bytes(bytes.data, bytes.size, 0, &model));
  CHECK_OK(focal_session_options_create(&options));
  CHECK_OK(focal_session_options_set_threads(options, 2));
  CHECK_OK(focal_session_required_arena_bytes(model, NULL, &one_worker));
  CHECK_OK(focal_session_required_arena_bytes(model, options, &two_workers));
  CHECK(two_workers > one_worker); /* a scratch slice per worker */
  arena.raw = (unsigned char*)malloc(two_workers + 64);
  arena.data = arena.raw + (64 - (uintptr_t)arena.raw % 64) % 64;
  CHECK_OK(focal_session_options_set_arena(options, arena.data, two_workers));
  CHECK_OK(focal_session_create(model, options, &threaded));
  test_make_inputs(model, 11, &inputs);
  test_set_inputs(threaded, reference, &inputs);
  CHECK_OK(focal_session_run(threaded));
  CHECK(cref_run(reference, NULL) == 0);
  test_compare_outputs(model, threaded, reference);
  test_free_inputs(&inputs);
  focal_session_free(threaded);
  free(arena.raw);
  focal_session_options_free(options);
  focal_model_free(model);
  cref_close(reference);
  test_free_bytes(&bytes);

  CHECK(pthread_create(&first, NULL, fail_on_own_name, name_a) == 0);
  CHECK(pthread_create(&second, NULL, fail_on_own_name, name_b) == 0);
  CHECK(pthread_join(first, &first_result) == 0 && pthread_join(second, &second_result) == 0);
  CHECK(first_result == name_a && second_result == name_b);
#endif
}
