/* Checks and helpers shared by the C API test's files (plain C99). */
#ifndef FOCAL_TESTS_C_TEST_H
#define FOCAL_TESTS_C_TEST_H

#include <stdio.h>
#include <string.h>

#include "c_api/cpp_reference.h"
#include "focal/c_api.h"

extern int g_checks;
extern int g_failures;

#define CHECK(condition)                                                               \
  do {                                                                                 \
    ++g_checks;                                                                        \
    if (!(condition)) {                                                                \
      ++g_failures;                                                                    \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #condition);    \
    }                                                                                  \
  } while (0)

/* The call must give `expected`; on a mismatch prints the message of the last error. */
#define CHECK_STATUS(call, expected)                                                          \
  do {                                                                                        \
    focal_status got_ = (call);                                                               \
    ++g_checks;                                                                               \
    if (got_ != (expected)) {                                                                 \
      ++g_failures;                                                                           \
      fprintf(stderr, "%s:%d: %s gave %s (%s), expected %s\n", __FILE__, __LINE__, #call,     \
              focal_status_name(got_), got_ != FOCAL_OK ? focal_last_error_message() : "",    \
              focal_status_name(expected));                                                   \
    }                                                                                         \
  } while (0)
#define CHECK_OK(call) CHECK_STATUS(call, FOCAL_OK)
/* The last error's message contains `text`. */
#define CHECK_MESSAGE(text) CHECK(strstr(focal_last_error_message(), (text)) != NULL)

/* Bytes at a 64-byte aligned address (data), as a model loaded in place needs. */
typedef struct test_bytes {
  unsigned char* raw;
  unsigned char* data;
  size_t size;
} test_bytes;

test_bytes test_read_file(const char* path);
test_bytes test_copy_bytes(const void* bytes, size_t size, size_t misalign);
void test_free_bytes(test_bytes* bytes);
/* <golden dir>/<name>/model.focal */
const char* test_golden_path(const char* name);

/* Deterministic values for every input of a model, at chosen actual shapes: symbolic
 * "batch" 2 (or its limit), other symbolic dims 5 (or theirs); ids small, masks 1s
 * then 0s (ragged rows), other floats in [-1, 1). */
#define TEST_MAX_INPUTS 16
typedef struct test_inputs {
  int count;
  focal_tensor_info info[TEST_MAX_INPUTS];
  focal_shape shape[TEST_MAX_INPUTS];
  void* data[TEST_MAX_INPUTS];
  size_t bytes[TEST_MAX_INPUTS];
} test_inputs;
void test_make_inputs(const focal_model* model, unsigned seed, test_inputs* inputs);
void test_free_inputs(test_inputs* inputs);
/* Sets them in both sessions (the C one by index and by name, alternately). */
void test_set_inputs(focal_session* session, cref_session* reference, const test_inputs* inputs);
/* Every output of the C session equals the reference's, bit for bit (shape too). */
void test_compare_outputs(const focal_model* model, const focal_session* session, const cref_session* reference);

/* The test groups (test_c_api_*.c). */
void test_errors_and_names(void);
void test_loading(void);
void test_model_queries(void);
void test_sessions(void);
void test_goldens_run(void);
void test_stages(void);
void test_generation(void);
void test_translation(const char* dates_model);
void test_tokenizers(void);
void test_threads(void);
void test_misuse(void);

#endif
