// llama.cpp's prompt processing and decoding through its C API, the peer of `focal bench
// --prompt N --gen G`.
//
//   llama_prefill MODEL.gguf BACKEND_DIR --tokens N --threads T [--gen G] [--repeat R]
//                 [--warmup W] [--ctx C] [--flash-attn auto|on|off] [--logits-out FILE]
//
// Loads the GGUF (every layer on the CPU), creates one context (n_ctx C, at least N + G;
// n_batch and n_ubatch N so the prompt is one physical batch, T threads for batch and
// single-token work), then W + R times: clears the KV cache, decodes the N-token prompt as
// one batch (logits of the last position only, as focal's decoders give) and waits for it,
// then G decode steps of one token each (positions N, N + 1, ...), each timed to its
// logits. Prints one JSON line: {"tokens", "threads", "median_ms", "mean_ms",
// "tokens_per_s" (of the median), "samples_ms": [...] (the prefills), "gen",
// "decode_ms_per_token" (the mean over all timed steps; 0 without --gen),
// "system_info": the instruction sets ggml's chosen CPU backend uses}.
// The prompt is id i = (i * 7919 + 13) mod vocab, as `focal bench` fills input_ids.
// --logits-out writes the last position's logits (vocab f32, little-endian).
// BACKEND_DIR holds the ggml CPU backends (libggml-cpu-*.so): ggml loads the best one
// for this CPU from there. Built at run time by bench/peers/run_llama against the
// headers of the llama.cpp release the npm package's binaries were built from.
#define _POSIX_C_SOURCE 199309L  // clock_gettime

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ggml-backend.h"
#include "llama.h"

struct options {
  const char* model;
  const char* backends;
  const char* logits_out;
  int tokens, threads, gen, repeat, warmup, ctx;
  enum llama_flash_attn_type flash_attn;
};

static int usage(void) {
  fprintf(stderr,
          "usage: llama_prefill MODEL.gguf BACKEND_DIR --tokens N --threads T [--gen G] [--repeat R]\n"
          "                     [--warmup W] [--ctx C] [--flash-attn auto|on|off] [--logits-out FILE]\n");
  return 2;
}

static int positive(const char* text, int* out) {
  char* end = NULL;
  const long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 1000000) return 0;
  *out = (int)v;
  return 1;
}

static int flash_attn_mode(const char* text, enum llama_flash_attn_type* out) {
  if (strcmp(text, "auto") == 0) *out = LLAMA_FLASH_ATTN_TYPE_AUTO;
  else if (strcmp(text, "on") == 0) *out = LLAMA_FLASH_ATTN_TYPE_ENABLED;
  else if (strcmp(text, "off") == 0) *out = LLAMA_FLASH_ATTN_TYPE_DISABLED;
  else return 0;
  return 1;
}

static int parse(int argc, char** argv, struct options* o) {
  if (argc < 3) return 0;
  o->model = argv[1];
  o->backends = argv[2];
  for (int i = 3; i < argc; i += 2) {
    if (i + 1 >= argc) return 0;
    const char* key = argv[i];
    const char* value = argv[i + 1];
    int ok = strcmp(key, "--tokens") == 0       ? positive(value, &o->tokens)
             : strcmp(key, "--threads") == 0    ? positive(value, &o->threads)
             : strcmp(key, "--gen") == 0        ? positive(value, &o->gen)
             : strcmp(key, "--repeat") == 0     ? positive(value, &o->repeat)
             : strcmp(key, "--warmup") == 0     ? (o->warmup = atoi(value), o->warmup >= 0)
             : strcmp(key, "--ctx") == 0        ? positive(value, &o->ctx)
             : strcmp(key, "--flash-attn") == 0 ? flash_attn_mode(value, &o->flash_attn)
             : strcmp(key, "--logits-out") == 0 ? (o->logits_out = value, 1)
                                                : 0;
    if (!ok) {
      fprintf(stderr, "llama_prefill: bad option %s %s\n", key, value);
      return 0;
    }
  }
  return o->tokens > 0 && o->threads > 0;
}

// llama.cpp's log is quiet but for errors, which go to stderr.
static void log_errors(enum ggml_log_level level, const char* text, void* user) {
  (void)user;
  if (level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static struct llama_context* open_context(struct llama_model* model, const struct options* o) {
  struct llama_context_params p = llama_context_default_params();
  const int needed = o->tokens + o->gen;
  p.n_ctx = (uint32_t)(o->ctx > needed ? o->ctx : needed);
  p.n_batch = (uint32_t)o->tokens;
  p.n_ubatch = (uint32_t)o->tokens;
  p.n_seq_max = 1;
  p.n_threads = o->threads;
  p.n_threads_batch = o->threads;
  p.flash_attn_type = o->flash_attn;
  p.no_perf = true;
  return llama_init_from_model(model, p);
}

static void fill_prompt(struct llama_batch* batch, int tokens, int vocab) {
  for (int i = 0; i < tokens; ++i) {
    batch->token[i] = (llama_token)(((long long)i * 7919 + 13) % vocab);
    batch->pos[i] = i;
    batch->n_seq_id[i] = 1;
    batch->seq_id[i][0] = 0;
    batch->logits[i] = i == tokens - 1;
  }
  batch->n_tokens = tokens;
}

static int write_logits(struct llama_context* ctx, const char* path, int vocab) {
  FILE* f = fopen(path, "wb");
  if (f == NULL) return 0;
  const size_t written = fwrite(llama_get_logits_ith(ctx, -1), sizeof(float), (size_t)vocab, f);
  return fclose(f) == 0 && written == (size_t)vocab;
}

// G single-token steps after the prompt, each waited for; adds their time (ms) to *total.
static int time_decode(struct llama_context* ctx, struct llama_batch step, const struct options* o, int vocab,
                       double* total) {
  for (int g = 0; g < o->gen; ++g) {
    const int position = o->tokens + g;
    step.token[0] = (llama_token)(((long long)position * 7919 + 13) % vocab);
    step.pos[0] = position;
    const double start = now_ms();
    if (llama_decode(ctx, step) != 0) return 0;
    llama_synchronize(ctx);
    *total += now_ms() - start;
  }
  return 1;
}

// W + R timed decodes of the prompt, each followed by G decode steps; the R prefill
// samples (ms) go to samples, the mean step time of the R repeats to *decode_ms.
static int time_prefill(struct llama_context* ctx, struct llama_batch batch, struct llama_batch step,
                        const struct options* o, int vocab, double* samples, double* decode_ms) {
  double decode_total = 0;
  for (int r = -o->warmup; r < o->repeat; ++r) {
    llama_memory_clear(llama_get_memory(ctx), true);
    const double start = now_ms();
    if (llama_decode(ctx, batch) != 0) return 0;
    llama_synchronize(ctx);
    if (r >= 0) samples[r] = now_ms() - start;
    double steps_ms = 0;
    if (!time_decode(ctx, step, o, vocab, &steps_ms)) return 0;
    if (r >= 0) decode_total += steps_ms;
  }
  *decode_ms = o->gen > 0 ? decode_total / ((double)o->repeat * o->gen) : 0.0;
  return 1;
}

static void print_result(const struct options* o, double* samples, double decode_ms) {
  double sorted[1024];
  const int n = o->repeat < 1024 ? o->repeat : 1024;
  memcpy(sorted, samples, sizeof(double) * (size_t)n);
  qsort(sorted, (size_t)n, sizeof(double), by_value);
  const double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  double mean = 0;
  for (int i = 0; i < n; ++i) mean += samples[i] / n;
  printf("{\"tokens\": %d, \"threads\": %d, \"median_ms\": %.4f, \"mean_ms\": %.4f, \"tokens_per_s\": %.2f, "
         "\"samples_ms\": [",
         o->tokens, o->threads, median, mean, o->tokens / (median / 1e3));
  for (int i = 0; i < n; ++i) printf("%s%.4f", i ? ", " : "", samples[i]);
  printf("], \"gen\": %d, \"decode_ms_per_token\": %.4f, \"system_info\": \"%s\"}\n", o->gen, decode_ms,
         llama_print_system_info());
}

static int run(struct llama_model* model, const struct options* o) {
  struct llama_context* ctx = open_context(model, o);
  if (ctx == NULL) {
    fprintf(stderr, "llama_prefill: cannot create a context of %d tokens\n", o->tokens);
    return 1;
  }
  const int vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
  struct llama_batch batch = llama_batch_init(o->tokens, 0, 1);
  fill_prompt(&batch, o->tokens, vocab);
  struct llama_batch step = llama_batch_init(1, 0, 1);
  fill_prompt(&step, 1, vocab);  // one token with its logits; id and position set per step
  double samples[1024];
  double decode_ms = 0;
  int status = 0;
  if (!time_prefill(ctx, batch, step, o, vocab, samples, &decode_ms)) {
    fprintf(stderr, "llama_prefill: llama_decode failed\n");
    status = 1;
  } else if (o->logits_out != NULL && !write_logits(ctx, o->logits_out, vocab)) {
    fprintf(stderr, "llama_prefill: cannot write %s\n", o->logits_out);
    status = 1;
  } else {
    print_result(o, samples, decode_ms);
  }
  llama_batch_free(step);
  llama_batch_free(batch);
  llama_free(ctx);
  return status;
}

int main(int argc, char** argv) {
  struct options o = {NULL, NULL, NULL, 0, 0, 0, 5, 2, 0, LLAMA_FLASH_ATTN_TYPE_AUTO};
  if (!parse(argc, argv, &o) || o.repeat > 1024) return usage();
  llama_log_set(log_errors, NULL);
  ggml_backend_load_all_from_path(o.backends);
  llama_backend_init();
  struct llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  struct llama_model* model = llama_model_load_from_file(o.model, mp);
  if (model == NULL) {
    fprintf(stderr, "llama_prefill: cannot load %s\n", o.model);
    return 1;
  }
  const int status = run(model, &o);
  llama_model_free(model);
  llama_backend_free();
  return status;
}
