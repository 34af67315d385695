#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthread_cond_timedwait in strict C99 */
/* Misuse the C API's documentation warns against, refused with a status instead of a
 * crash: a model freed before its sessions (a use-after-free before: now the model is
 * marked and freed with its last session), and a second thread entering a session that
 * another thread is running (two focal_generate calls on one session crashed). */
#include <stdint.h>
#include <stdlib.h>
#if !defined(FOCAL_TESTS_UNDER_EMULATION)
#include <pthread.h>
#include <time.h>
#endif

#include "c_api/c_test.h"

static const int32_t kPrompt[3] = {5, 9, 2};

static void test_model_freed_first(void) {
  focal_model* model = NULL;
  focal_session* session = NULL;
  focal_generator* generator = NULL;
  int32_t id = 0;
  CHECK_OK(focal_model_load_file(test_golden_path("gpt2_l2_d32_h4"), 0, &model));
  CHECK_OK(focal_session_create(model, NULL, &session));
  CHECK_STATUS(focal_model_free(model), FOCAL_INVALID_ARGUMENT);
  CHECK_MESSAGE("1 session(s) or tokenizer(s) still use the model");
  /* The model is still there for its session: it generates, queries and runs. */
  CHECK_OK(focal_generator_create(session, NULL, &generator));
  CHECK_OK(focal_generate(generator, kPrompt, 3, 4, -1, NULL, NULL));
  CHECK_OK(focal_model_find_input(model, "input_ids", &id));
  focal_generator_free(generator);
  focal_session_free(session); /* frees the model too (the sanitizers see any leak or reuse) */
}

#if !defined(FOCAL_TESTS_UNDER_EMULATION)
/* A generation that holds its session until the main thread has tried to enter it. */
typedef struct held_run {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int inside, tried;
  focal_generator* generator;
  focal_status status;
} held_run;

static int wait_for_try(int32_t token, void* user) {
  held_run* run = (held_run*)user;
  struct timespec deadline;
  (void)token;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 30; /* bounded: a broken test fails instead of hanging */
  pthread_mutex_lock(&run->lock);
  run->inside = 1;
  pthread_cond_broadcast(&run->changed);
  while (!run->tried && pthread_cond_timedwait(&run->changed, &run->lock, &deadline) == 0) {
  }
  pthread_mutex_unlock(&run->lock);
  return 0; /* stop after the first token */
}

static void* generate_holding(void* user) {
  held_run* run = (held_run*)user;
  run->status = focal_generate(run->generator, kPrompt, 3, 8, -1, wait_for_try, run);
  return NULL;
}
#endif

static void test_two_threads_on_one_session(void) {
#if defined(FOCAL_TESTS_UNDER_EMULATION)
  printf("under emulation: a second thread in a session not checked\n");
#else
  focal_model* model = NULL;
  focal_session* session = NULL;
  held_run run;
  pthread_t thread;
  struct timespec deadline;
  memset(&run, 0, sizeof(run));
  pthread_mutex_init(&run.lock, NULL);
  pthread_cond_init(&run.changed, NULL);
  CHECK_OK(focal_model_load_file(test_golden_path("gpt2_l2_d32_h4"), 0, &model));
  CHECK_OK(focal_session_create(model, NULL, &session));
  CHECK_OK(focal_generator_create(session, NULL, &run.generator));
  CHECK(pthread_create(&thread, NULL, generate_holding, &run) == 0);
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 30;
  pthread_mutex_lock(&run.lock);
  while (!run.inside && pthread_cond_timedwait(&run.changed, &run.lock, &deadline) == 0) {
  }
  pthread_mutex_unlock(&run.lock);
  CHECK(run.inside);
  /* The other thread is inside focal_generate: every way into the session is refused. */
  CHECK_STATUS(focal_generate(run.generator, kPrompt, 3, 8, -1, NULL, NULL), FOCAL_INVALID_ARGUMENT);
  CHECK_MESSAGE("the session is in use by another thread");
  CHECK_STATUS(focal_session_run(session), FOCAL_INVALID_ARGUMENT);
  CHECK_STATUS(focal_session_reset_state(session), FOCAL_INVALID_ARGUMENT);
  pthread_mutex_lock(&run.lock);
  run.tried = 1;
  pthread_cond_broadcast(&run.changed);
  pthread_mutex_unlock(&run.lock);
  CHECK(pthread_join(thread, NULL) == 0);
  CHECK_OK(run.status);
  /* Free again once the first call has returned. */
  CHECK_OK(focal_generate(run.generator, kPrompt, 3, 8, -1, NULL, NULL));
  focal_generator_free(run.generator);
  focal_session_free(session);
  CHECK_OK(focal_model_free(model));
  pthread_cond_destroy(&run.changed);
  pthread_mutex_destroy(&run.lock);
#endif
}

void test_misuse(void) {
  test_model_freed_first();
  test_two_threads_on_one_session();
}
