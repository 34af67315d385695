/* The C API test's oracle: the same work done through the C++ API (focal/model.h,
 * session.h, generate.h, translate.h, tokenizer.h, self_test.h) directly, so the C test
 * can compare the C API's outputs with the C++ API's bit for bit. Implemented in
 * cpp_reference.cpp; every function returns 0 on success and prints why otherwise. */
#ifndef FOCAL_TESTS_CPP_REFERENCE_H
#define FOCAL_TESTS_CPP_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "focal/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tiny test model (tests/support/tiny_model.h) and a model holding only a character
 * tokenizer (vocabulary "<pad>" "<bos>" "<eos>" "<unk>" " " "a" .. "z"), serialized into
 * malloc'd memory the caller frees. */
unsigned char* cref_tiny_model(size_t* size);
unsigned char* cref_tokenizer_model(size_t* size);

/* A C++ session on `bytes` (which must outlive it). */
typedef struct cref_session cref_session;
cref_session* cref_open(const void* bytes, size_t size);
void cref_close(cref_session* session);
int cref_set_input(cref_session* session, const char* name, const focal_shape* shape, const void* data, size_t bytes);
/* stage NULL: Session::run; else Session::run_stage of the named stage. */
int cref_run(cref_session* session, const char* stage);
/* Copies output `name` (at most capacity bytes) and its shape. */
int cref_output(const cref_session* session, const char* name, void* out, size_t capacity, focal_shape* shape,
                size_t* bytes);

/* focal::generate on a fresh session: the tokens produced (at most capacity). */
int cref_generate(const void* bytes, size_t size, const int32_t* prompt, size_t prompt_length, size_t max_new,
                  int32_t end_token, const focal_sampling* sampling, int32_t* tokens, size_t capacity, size_t* count);
/* focal::translate on a fresh session with scratch for this source. */
int cref_translate(const void* bytes, size_t size, const int32_t* source, size_t source_length,
                   const focal_translate_options* options, int32_t* tokens, float* alignment, size_t* length,
                   double* score);
/* Tokenizer::encode with the model's (source-side) tokenizer. */
int cref_encode(const void* bytes, size_t size, const char* text, int32_t* ids, size_t capacity, size_t* count);
/* run_self_tests on a fresh session. */
int cref_self_test(const void* bytes, size_t size, focal_self_test_report* report);

/* A token callback that throws a C++ exception (for the C API's exception boundary). */
int cref_throwing_callback(int32_t token, void* user);

#ifdef __cplusplus
}
#endif

#endif
