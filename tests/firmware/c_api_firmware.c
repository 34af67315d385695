/* The C API in firmware, from C: the tiny model loaded in place from flash, a session in
 * a static arena, its self-test; and the calls bare metal cannot serve (files, threads)
 * refused with FOCAL_UNSUPPORTED. Links focal_c_api with no file system or threads. */
#include <stdio.h>

#include "focal/c_api.h"

/* The embedded model (FocalEmbedModel's definitions are extern "C"). */
extern const unsigned char focal_tiny_model[];
extern const unsigned long focal_tiny_model_size;

static unsigned char g_arena[65536] __attribute__((aligned(64)));

static int fail(const char* what, focal_status status) {
  printf("%s: %s: %s\n", what, focal_status_name(status), focal_last_error_message());
  return 1;
}

int main(void) {
  focal_model* model = NULL;
  focal_model* from_file = NULL;
  focal_session_options* options = NULL;
  focal_session* session = NULL;
  focal_self_test_report report;
  size_t needed = 0;
  focal_status status = focal_model_load_file("tiny.focal", FOCAL_LOAD_DEFAULT, &from_file);
  if (status != FOCAL_UNSUPPORTED || from_file != NULL) return fail("load_file", status);
  printf("load_file: %s\n", focal_last_error_message());
  status = focal_model_load_bytes(focal_tiny_model, focal_tiny_model_size, FOCAL_LOAD_DEFAULT, &model);
  if (status == FOCAL_OK) status = focal_session_options_create(&options);
  if (status == FOCAL_OK) status = focal_session_required_arena_bytes(model, options, &needed);
  if (status != FOCAL_OK) return fail("options", status);
  if (needed > sizeof(g_arena)) {
    printf("the model needs an arena of %lu bytes\n", (unsigned long)needed);
    return 1;
  }
  if (focal_session_options_set_threads(options, 2) != FOCAL_OK ||
      focal_session_create(model, options, &session) != FOCAL_UNSUPPORTED) {
    return fail("threads", FOCAL_INTERNAL);
  }
  printf("threads: %s\n", focal_last_error_message());
  status = focal_session_options_set_threads(options, 1);
  if (status == FOCAL_OK) status = focal_session_options_set_arena(options, g_arena, sizeof(g_arena));
  if (status == FOCAL_OK) status = focal_session_create(model, options, &session);
  if (status == FOCAL_OK) status = focal_session_self_test(session, &report);
  if (status != FOCAL_OK) return fail("session", status);
  printf("arena %lu bytes, self-test %d of %d cases passed\n", (unsigned long)needed,
         (int)(report.cases - report.failed_cases), (int)report.cases);
  focal_session_free(session);
  focal_session_options_free(options);
  focal_model_free(model);
  if (report.cases < 1 || report.failed_cases != 0) return 1;
  printf("c api: PASS\n");
  return 0;
}
