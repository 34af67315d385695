/* The C API's errors, loading, model queries, sessions, runs and stages. */
#include <stdint.h>
#include <stdlib.h>

#include "c_api/c_test.h"

static const char* const kGoldens[] = {
    "bert_l2_d32_h4",
    "gpt2_l2_d32_h4",
    "llama_mqa_hd16_l3_d32_h4_kv1",
    "rnn_bahdanau_lstm_bi_l1_e16_h16_hd24",
    "rnn_classifier_sigmoid_e16_h16_a12",
    "torch_encoder_postln_relu_mean_l2_d32_h4",
    "torch_transformer_postln_relu_e2_d1_d32_h4",
};

void test_errors_and_names(void) {
  CHECK(strcmp(focal_status_name(FOCAL_OK), "ok") == 0);
  CHECK(strcmp(focal_status_name(FOCAL_RESOURCE_EXHAUSTED), "resource exhausted") == 0);
  CHECK(strcmp(focal_status_name(FOCAL_NOT_FOUND), "not found") == 0);
  CHECK(strcmp(focal_status_name(FOCAL_INTERNAL), "internal error") == 0);
  CHECK(strcmp(focal_status_name((focal_status)99), "unknown") == 0);
  CHECK(focal_last_error() == FOCAL_OK && strcmp(focal_last_error_message(), "ok") == 0);
  CHECK(focal_dtype_size(FOCAL_F32) == 4 && focal_dtype_size(FOCAL_F16) == 2 && focal_dtype_size(FOCAL_I8) == 1);
  CHECK(focal_dtype_size((focal_dtype)42) == 0 && strcmp(focal_dtype_name(FOCAL_BF16), "bf16") == 0);
  CHECK(strcmp(focal_dtype_name((focal_dtype)-1), "unknown") == 0);
  CHECK(focal_format_version() == 1);
}

void test_loading(void) {
  focal_model* model = NULL;
  size_t size = 0;
  unsigned char* tiny = cref_tiny_model(&size);
  test_bytes aligned = test_copy_bytes(tiny, size, 0), misaligned = test_copy_bytes(tiny, size, 8);
  unsigned char garbage[256];
  focal_model* sentinel = (focal_model*)garbage;

  CHECK_OK(focal_model_load_bytes(aligned.data, size, FOCAL_LOAD_DEFAULT, &model));
  CHECK(model != NULL && focal_model_input_count(model) == 1);
  focal_model_free(model);
  CHECK_OK(focal_model_load_bytes(aligned.data, size, FOCAL_LOAD_SKIP_CHECKSUM, &model));
  focal_model_free(model);
  /* Zero copy needs the model's alignment; a copy does not, and the bytes may go at once. */
  model = sentinel;
  CHECK_STATUS(focal_model_load_bytes(misaligned.data, size, FOCAL_LOAD_DEFAULT, &model), FOCAL_INVALID_ARGUMENT);
  CHECK_MESSAGE("aligned");
  CHECK(model == NULL && focal_last_error() == FOCAL_INVALID_ARGUMENT);
  CHECK_OK(focal_model_load_bytes(misaligned.data, size, FOCAL_LOAD_COPY, &model));
  test_free_bytes(&misaligned);
  CHECK(focal_model_output_count(model) == 2);
  focal_model_free(model);

  memset(garbage, 0x5a, sizeof(garbage));
  CHECK_STATUS(focal_model_load_bytes(garbage, sizeof(garbage), FOCAL_LOAD_COPY, &model), FOCAL_INVALID_MODEL);
  CHECK_MESSAGE("not a focal model");
  CHECK_STATUS(focal_model_load_bytes(aligned.data, size / 2, FOCAL_LOAD_DEFAULT, &model), FOCAL_INVALID_MODEL);
  aligned.data[size - 100] ^= 0x40; /* a flipped bit: the checksum catches it */
  CHECK_STATUS(focal_model_load_bytes(aligned.data, size, FOCAL_LOAD_DEFAULT, &model), FOCAL_INVALID_MODEL);
  CHECK_MESSAGE("checksum");
  aligned.data[size - 100] ^= 0x40;
  CHECK_STATUS(focal_model_load_bytes(NULL, size, FOCAL_LOAD_DEFAULT, &model), FOCAL_INVALID_ARGUMENT);
  CHECK_MESSAGE("bytes is NULL");
  CHECK_STATUS(focal_model_load_bytes(aligned.data, size, FOCAL_LOAD_DEFAULT, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_MESSAGE("model is NULL");

  CHECK_OK(focal_model_load_file(test_golden_path("bert_l2_d32_h4"), FOCAL_LOAD_DEFAULT, &model));
  CHECK(focal_model_input_count(model) == 3);
  focal_model_free(model);
  CHECK_STATUS(focal_model_load_file(test_golden_path("no_such_model"), FOCAL_LOAD_DEFAULT, &model), FOCAL_IO_ERROR);
  CHECK(model == NULL);
  CHECK_STATUS(focal_model_load_file(NULL, FOCAL_LOAD_DEFAULT, &model), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_model_load_file(test_golden_path("bert_l2_d32_h4"), 0, NULL), FOCAL_INVALID_ARGUMENT);
  focal_model_free(NULL);
  test_free_bytes(&aligned);
  free(tiny);
}

void test_model_queries(void) {
  focal_model* model = NULL;
  focal_tensor_info info;
  int32_t index = -1;
  CHECK_OK(focal_model_load_file(test_golden_path("bert_l2_d32_h4"), FOCAL_LOAD_DEFAULT, &model));
  CHECK_OK(focal_model_find_input(model, "attention_mask", &index));
  CHECK(index >= 0 && index < 3);
  CHECK_OK(focal_model_input_info(model, index, &info));
  CHECK(strcmp(info.name, "attention_mask") == 0 && info.dtype == FOCAL_I32 && info.shape.rank == 2);
  CHECK(info.dim_names[0] != NULL && strcmp(info.dim_names[0], "batch") == 0);
  CHECK(info.dim_names[1] != NULL && strcmp(info.dim_names[1], "seq") == 0);
  CHECK(info.max_bytes == (size_t)(info.shape.dims[0] * info.shape.dims[1]) * 4);
  CHECK_OK(focal_model_find_output(model, "pooler_output", &index));
  CHECK_OK(focal_model_output_info(model, index, &info));
  CHECK(info.dtype == FOCAL_F32 && info.dim_names[1] == NULL); /* [batch, hidden] */
  CHECK_STATUS(focal_model_find_input(model, "input_idz", &index), FOCAL_NOT_FOUND);
  CHECK_MESSAGE("input_idz");
  CHECK_STATUS(focal_model_find_output(model, "logitz", &index), FOCAL_NOT_FOUND);
  CHECK_STATUS(focal_model_input_info(model, 3, &info), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_model_output_info(model, -1, &info), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_model_input_info(model, 0, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_model_input_info(NULL, 0, &info), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_model_output_info(NULL, 0, &info), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_model_find_input(model, NULL, &index), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_model_find_output(model, "logits", NULL), FOCAL_INVALID_ARGUMENT);
  CHECK(focal_model_stage_count(model) == 0 && strcmp(focal_model_stage_name(model, 0), "") == 0);
  CHECK(focal_model_self_test_count(model) >= 1 && focal_model_parameter_count(model) > 1000);
  CHECK(strcmp(focal_model_architecture(model), "") != 0);
  CHECK(focal_model_hyperparameter(model, "no such key") == NULL);
  CHECK(focal_model_input_count(NULL) == -1 && focal_model_output_count(NULL) == -1);
  CHECK(focal_model_stage_count(NULL) == -1 && focal_model_self_test_count(NULL) == -1);
  CHECK(focal_model_parameter_count(NULL) == 0 && strcmp(focal_model_architecture(NULL), "") == 0);
  CHECK(focal_model_hyperparameter(NULL, "x") == NULL);
  focal_model_free(model);

  CHECK_OK(focal_model_load_file(test_golden_path("torch_transformer_postln_relu_e2_d1_d32_h4"), 0, &model));
  CHECK(focal_model_stage_count(model) == 2);
  CHECK(strcmp(focal_model_stage_name(model, 0), "encode") == 0 && strcmp(focal_model_stage_name(model, 1), "decode") == 0);
  focal_model_free(model);
}

/* Arena size first, then a session in the caller's arena; the options' and arena's
 * error paths. */
void test_sessions(void) {
  focal_model* model = NULL;
  focal_session_options* options = NULL;
  focal_session* session = NULL;
  size_t needed = 0, planned = 0;
  test_bytes arena;
  CHECK_OK(focal_model_load_file(test_golden_path("bert_l2_d32_h4"), 0, &model));
  CHECK_OK(focal_session_options_create(&options));
  CHECK_OK(focal_session_required_arena_bytes(model, NULL, &planned));
  CHECK_OK(focal_session_options_set_max_seq(options, 4));
  CHECK_OK(focal_session_required_arena_bytes(model, options, &needed));
  CHECK(needed > 0 && needed <= planned);
  arena.raw = (unsigned char*)malloc(needed + 128);
  arena.data = arena.raw + (64 - (uintptr_t)arena.raw % 64) % 64;

  CHECK_OK(focal_session_options_set_arena(options, arena.data, needed - 64));
  CHECK_STATUS(focal_session_create(model, options, &session), FOCAL_RESOURCE_EXHAUSTED);
  CHECK(session == NULL);
  CHECK_OK(focal_session_options_set_arena(options, arena.data + 8, needed));
  CHECK_STATUS(focal_session_create(model, options, &session), FOCAL_INVALID_ARGUMENT);
  CHECK_MESSAGE("aligned");
  CHECK_OK(focal_session_options_set_arena(options, arena.data, needed));
  CHECK_OK(focal_session_create(model, options, &session));
  {
    /* The limit holds: 5 tokens are refused, 4 run. */
    int32_t ids[2 * 5] = {3, 4, 5, 6, 7, 3, 4, 5, 6, 7};
    focal_shape shape = {2, {2, 5, 0, 0, 0, 0}};
    CHECK_STATUS(focal_session_set_input_by_name(session, "input_ids", &shape, ids, sizeof(ids)), FOCAL_OUT_OF_RANGE);
    shape.dims[1] = 4;
    CHECK_STATUS(focal_session_set_input_by_name(session, "input_ids", &shape, ids, sizeof(ids)), FOCAL_INVALID_ARGUMENT);
    CHECK_MESSAGE("bytes");
    CHECK_OK(focal_session_set_input_by_name(session, "input_ids", &shape, ids, 8 * 4));
    CHECK_STATUS(focal_session_run(session), FOCAL_INVALID_ARGUMENT); /* the masks are not set */
    CHECK_MESSAGE("not set");
    shape.rank = 3;
    CHECK_STATUS(focal_session_set_input(session, 0, &shape, ids, 8 * 4), FOCAL_INVALID_ARGUMENT);
    shape.rank = 7;
    CHECK_STATUS(focal_session_set_input(session, 0, &shape, ids, 8 * 4), FOCAL_INVALID_ARGUMENT);
    shape.rank = 2;
    CHECK_STATUS(focal_session_set_input(session, 9, &shape, ids, 8 * 4), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_set_input_by_name(session, "ids", &shape, ids, 8 * 4), FOCAL_NOT_FOUND);
    CHECK_STATUS(focal_session_set_input(session, 0, NULL, ids, 8 * 4), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_set_input(session, 0, &shape, NULL, 8 * 4), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_set_input(NULL, 0, &shape, ids, 8 * 4), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_set_input_by_name(session, NULL, &shape, ids, 8 * 4), FOCAL_INVALID_ARGUMENT);
  }
  {
    focal_tensor tensor;
    int32_t stage = 0;
    CHECK_STATUS(focal_session_output(session, 7, &tensor), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_output(session, 0, NULL), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_output_by_name(session, "nope", &tensor), FOCAL_NOT_FOUND);
    CHECK_STATUS(focal_session_output_by_name(NULL, "nope", &tensor), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_find_stage(session, "encode", &stage), FOCAL_NOT_FOUND);
    CHECK_STATUS(focal_session_find_stage(session, NULL, &stage), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_run_stage(session, 3), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_run(NULL), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_run_stage(NULL, 0), FOCAL_INVALID_ARGUMENT);
    CHECK(focal_session_cached_length(session) == 0 && focal_session_cached_length(NULL) == -1);
    CHECK_OK(focal_session_reset_state(session));
    CHECK_STATUS(focal_session_reset_state(NULL), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_self_test(session, NULL), FOCAL_INVALID_ARGUMENT);
    CHECK_STATUS(focal_session_self_test(NULL, NULL), FOCAL_INVALID_ARGUMENT);
  }
  focal_session_free(session);

  CHECK_OK(focal_session_options_set_max_batch(options, 1000));
  CHECK_OK(focal_session_options_set_arena(options, NULL, 0));
  CHECK_STATUS(focal_session_create(model, options, &session), FOCAL_OUT_OF_RANGE); /* beyond the plan */
  CHECK_STATUS(focal_session_required_arena_bytes(model, options, &needed), FOCAL_OUT_OF_RANGE);
  CHECK_STATUS(focal_session_options_set_max_batch(options, -1), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_options_set_max_seq(options, -1), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_options_set_threads(options, 0), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_options_set_threads(options, 1025), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_options_set_threads(NULL, 1), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_options_set_max_batch(NULL, 1), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_options_set_max_seq(NULL, 1), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_options_set_arena(NULL, NULL, 0), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_options_create(NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_required_arena_bytes(NULL, NULL, &needed), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_required_arena_bytes(model, NULL, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_create(NULL, NULL, &session), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_create(model, NULL, NULL), FOCAL_INVALID_ARGUMENT);
  focal_session_options_free(options);
  focal_session_options_free(NULL);
  focal_session_free(NULL);
  free(arena.raw);
  focal_model_free(model);
}

/* One model: a run on generated inputs against the C++ API, twice (the second with new
 * values in the same session), then the stored self-test against the C++ API's. */
static void run_against_reference(const char* name, const test_bytes* bytes) {
  focal_model* model = NULL;
  focal_session* session = NULL;
  cref_session* reference = cref_open(bytes->data, bytes->size);
  focal_self_test_report report, expected;
  unsigned round;
  CHECK(reference != NULL);
  CHECK_OK(focal_model_load_bytes(bytes->data, bytes->size, FOCAL_LOAD_DEFAULT, &model));
  CHECK_OK(focal_session_create(model, NULL, &session));
  if (reference == NULL || session == NULL) return;
  for (round = 0; round < 2; ++round) {
    test_inputs inputs;
    test_make_inputs(model, round + 1, &inputs);
    test_set_inputs(session, reference, &inputs);
    CHECK_OK(focal_session_run(session));
    CHECK(cref_run(reference, NULL) == 0);
    test_compare_outputs(model, session, reference);
    test_free_inputs(&inputs);
  }
  CHECK_OK(focal_session_self_test(session, &report));
  CHECK(cref_self_test(bytes->data, bytes->size, &expected) == 0);
  CHECK(report.cases >= 1 && report.failed_cases == 0 && report.cases == expected.cases);
  CHECK(report.max_abs_error == expected.max_abs_error);
  CHECK(report.worst_tolerance_ratio == expected.worst_tolerance_ratio && report.worst_tolerance_ratio <= 1.0f);
  if (report.failed_cases != 0) fprintf(stderr, "%s: self-test failed\n", name);
  focal_session_free(session);
  focal_model_free(model);
  cref_close(reference);
}

void test_goldens_run(void) {
  size_t i, size = 0;
  unsigned char* tiny = cref_tiny_model(&size);
  test_bytes bytes = test_copy_bytes(tiny, size, 0);
  run_against_reference("tiny", &bytes);
  test_free_bytes(&bytes);
  free(tiny);
  for (i = 0; i < sizeof(kGoldens) / sizeof(kGoldens[0]); ++i) {
    bytes = test_read_file(test_golden_path(kGoldens[i]));
    run_against_reference(kGoldens[i], &bytes);
    test_free_bytes(&bytes);
  }
}

/* nn.Transformer's stages: encode once, then decode step by step (the KV cache grows). */
void test_stages(void) {
  test_bytes bytes = test_read_file(test_golden_path("torch_transformer_postln_relu_e2_d1_d32_h4"));
  focal_model* model = NULL;
  focal_session* session = NULL;
  cref_session* reference = cref_open(bytes.data, bytes.size);
  int32_t encode = -1, decode = -1, step;
  test_inputs inputs;
  CHECK_OK(focal_model_load_bytes(bytes.data, bytes.size, 0, &model));
  CHECK_OK(focal_session_create(model, NULL, &session));
  CHECK_OK(focal_session_find_stage(session, "encode", &encode));
  CHECK_OK(focal_session_find_stage(session, "decode", &decode));
  CHECK(encode == 0 && decode == 1);
  test_make_inputs(model, 7, &inputs);
  test_set_inputs(session, reference, &inputs);
  CHECK_OK(focal_session_run_stage(session, encode));
  CHECK(cref_run(reference, "encode") == 0);
  for (step = 0; step < 3; ++step) {
    int i;
    for (i = 0; i < inputs.count; ++i) {
      if (strcmp(inputs.info[i].name, "tgt") != 0) continue;
      inputs.shape[i].dims[1] = 1; /* one new position [batch, 1, d] */
      inputs.bytes[i] = (size_t)(inputs.shape[i].dims[0] * inputs.shape[i].dims[2]) * 4;
      ((float*)inputs.data[i])[0] = 0.25f * (float)step;
      CHECK_OK(focal_session_set_input_by_name(session, "tgt", &inputs.shape[i], inputs.data[i], inputs.bytes[i]));
      CHECK(cref_set_input(reference, "tgt", &inputs.shape[i], inputs.data[i], inputs.bytes[i]) == 0);
    }
    CHECK_OK(focal_session_run_stage(session, decode));
    CHECK(cref_run(reference, "decode") == 0);
    CHECK(focal_session_cached_length(session) == step + 1);
    test_compare_outputs(model, session, reference);
  }
  test_free_inputs(&inputs);
  focal_session_free(session);
  focal_model_free(model);
  cref_close(reference);
  test_free_bytes(&bytes);
}
