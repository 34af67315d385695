/* The C API (focal/c_api.h) from C99: every entry point, its outputs against the C++
 * API's bit for bit (cpp_reference.h), and its error paths with their codes.
 * usage: focal_c_api_test GOLDEN_DIR [DATES_MODEL] (the bundled dates model with its
 * tokenizers, converted by the host build: translation from text). */
#include <stdint.h>
#include <stdlib.h>

#include "c_api/c_test.h"

int g_checks = 0;
int g_failures = 0;
static const char* g_golden_dir = "";

test_bytes test_read_file(const char* path) {
  test_bytes bytes = {NULL, NULL, 0};
  FILE* file = fopen(path, "rb");
  long size;
  if (file == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  fseek(file, 0, SEEK_END);
  size = ftell(file);
  fseek(file, 0, SEEK_SET);
  bytes.raw = (unsigned char*)malloc((size_t)size + 64);
  bytes.data = bytes.raw + (64 - (uintptr_t)bytes.raw % 64) % 64;
  bytes.size = (size_t)size;
  if (fread(bytes.data, 1, bytes.size, file) != bytes.size) exit(2);
  fclose(file);
  return bytes;
}

test_bytes test_copy_bytes(const void* data, size_t size, size_t misalign) {
  test_bytes bytes;
  bytes.raw = (unsigned char*)malloc(size + 128);
  bytes.data = bytes.raw + (64 - (uintptr_t)bytes.raw % 64) % 64 + misalign;
  bytes.size = size;
  memcpy(bytes.data, data, size);
  return bytes;
}

void test_free_bytes(test_bytes* bytes) {
  free(bytes->raw);
  bytes->raw = bytes->data = NULL;
}

const char* test_golden_path(const char* name) {
  static char path[1024];
  snprintf(path, sizeof(path), "%s/%s/model.focal", g_golden_dir, name);
  return path;
}

static int64_t chosen_dim(const focal_tensor_info* info, int d) {
  const int64_t planned = info->shape.dims[d];
  const int64_t wanted = info->dim_names[d] == NULL ? planned : strcmp(info->dim_names[d], "batch") == 0 ? 2 : 5;
  return wanted < planned ? wanted : planned;
}

/* Row r of a [batch, seq] mask keeps seq - r positions (at least 1). */
static int mask_value(const focal_shape* shape, size_t i) {
  const int64_t seq = shape->rank >= 2 ? shape->dims[1] : 1;
  const int64_t row = (int64_t)i / seq, column = (int64_t)i % seq;
  const int64_t valid = seq - row > 1 ? seq - row : 1;
  return column < valid;
}

void test_make_inputs(const focal_model* model, unsigned seed, test_inputs* inputs) {
  int i, d;
  size_t e, count;
  uint32_t state = 2463534242u + seed;
  inputs->count = focal_model_input_count(model);
  for (i = 0; i < inputs->count; ++i) {
    focal_tensor_info* info = &inputs->info[i];
    focal_shape* shape = &inputs->shape[i];
    int is_mask, is_type;
    CHECK_OK(focal_model_input_info(model, i, info));
    *shape = info->shape;
    count = 1;
    for (d = 0; d < shape->rank; ++d) {
      shape->dims[d] = chosen_dim(info, d);
      count *= (size_t)shape->dims[d];
    }
    inputs->bytes[i] = count * focal_dtype_size(info->dtype);
    inputs->data[i] = malloc(inputs->bytes[i]);
    is_mask = strstr(info->name, "mask") != NULL;
    is_type = strstr(info->name, "type") != NULL;
    for (e = 0; e < count; ++e) {
      state ^= state << 13, state ^= state >> 17, state ^= state << 5; /* xorshift32 */
      if (info->dtype == FOCAL_I32) {
        int32_t v = is_mask ? mask_value(shape, e) : is_type ? (int32_t)(e % 2) : (int32_t)(3 + state % 6);
        ((int32_t*)inputs->data[i])[e] = v;
      } else {
        float v = is_mask ? (float)mask_value(shape, e) : (float)(state % 2000) / 1000.0f - 1.0f;
        ((float*)inputs->data[i])[e] = v;
      }
    }
  }
}

void test_free_inputs(test_inputs* inputs) {
  int i;
  for (i = 0; i < inputs->count; ++i) free(inputs->data[i]);
  inputs->count = 0;
}

void test_set_inputs(focal_session* session, cref_session* reference, const test_inputs* in) {
  int i;
  for (i = 0; i < in->count; ++i) {
    if (i % 2 == 0) {
      CHECK_OK(focal_session_set_input(session, i, &in->shape[i], in->data[i], in->bytes[i]));
    } else {
      CHECK_OK(focal_session_set_input_by_name(session, in->info[i].name, &in->shape[i], in->data[i], in->bytes[i]));
    }
    CHECK(cref_set_input(reference, in->info[i].name, &in->shape[i], in->data[i], in->bytes[i]) == 0);
  }
}

void test_compare_outputs(const focal_model* model, const focal_session* session, const cref_session* reference) {
  int i, d;
  for (i = 0; i < focal_model_output_count(model); ++i) {
    focal_tensor tensor, by_name;
    focal_shape shape;
    size_t bytes = 0;
    void* expected;
    CHECK_OK(focal_session_output(session, i, &tensor));
    CHECK_OK(focal_session_output_by_name(session, tensor.name, &by_name));
    CHECK(by_name.data == tensor.data && by_name.bytes == tensor.bytes);
    expected = malloc(tensor.bytes + 1);
    CHECK(cref_output(reference, tensor.name, expected, tensor.bytes + 1, &shape, &bytes) == 0);
    CHECK(bytes == tensor.bytes && shape.rank == tensor.shape.rank);
    for (d = 0; d < shape.rank && d < tensor.shape.rank; ++d) CHECK(shape.dims[d] == tensor.shape.dims[d]);
    CHECK(bytes == tensor.bytes && memcmp(expected, tensor.data, bytes) == 0);
    free(expected);
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s GOLDEN_DIR [DATES_MODEL]\n", argv[0]);
    return 2;
  }
  g_golden_dir = argv[1];
  test_errors_and_names();
  test_loading();
  test_model_queries();
  test_sessions();
  test_goldens_run();
  test_stages();
  test_generation();
  test_translation(argc > 2 ? argv[2] : NULL);
  test_tokenizers();
  test_threads();
  test_misuse();
  printf("%d checks, %d failed\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
