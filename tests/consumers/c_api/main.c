/* A C99 program built outside the focal repository against an installed prefix through
 * `pkg-config focal` and focal/c_api.h alone: it maps the .focal file named on the command
 * line, runs the self-test stored in it in a session the C API sizes, prints the model's
 * first output's shape, and exits 0 only if every case passed. */
#include <stdio.h>

#include "focal/c_api.h"

static int fail(const char* step) {
  fprintf(stderr, "%s: %s: %s\n", step, focal_status_name(focal_last_error()), focal_last_error_message());
  return 1;
}

int main(int argc, char** argv) {
  focal_model* model = NULL;
  focal_session* session = NULL;
  focal_self_test_report report;
  focal_tensor output;
  int status = 1;
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL.focal\n", argv[0]);
    return 2;
  }
  if (focal_model_load_file(argv[1], FOCAL_LOAD_DEFAULT, &model) != FOCAL_OK) return fail("load");
  if (focal_session_create(model, NULL, &session) != FOCAL_OK) {
    status = fail("session");
  } else if (focal_session_self_test(session, &report) != FOCAL_OK) {
    status = fail("self-test");
  } else if (focal_session_output(session, 0, &output) != FOCAL_OK) {
    status = fail("output");
  } else {
    printf("%s: %s, %d of %d self-test cases passed (max abs error %g); output %s has rank %d\n", argv[1],
           focal_model_architecture(model), (int)(report.cases - report.failed_cases), (int)report.cases,
           (double)report.max_abs_error, output.name, (int)output.shape.rank);
    status = report.cases > 0 && report.failed_cases == 0 ? 0 : 1;
  }
  focal_session_free(session);
  focal_model_free(model);
  return status;
}
