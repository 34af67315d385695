// focal generate MODEL --prompt-ids 1,2,3 --max-new N [--temperature T --top-k K
//                --top-p P --seed S] [--end-id ID] [--ids] [--threads N]
// Continues a prompt with a decoder-only model, printing each token id as it comes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/loaded_model.h"
#include "focal/generate.h"
#include "thread_pool.h"

namespace focal {
namespace cli {
namespace {

const char* kUsage =
    "usage: focal generate MODEL.focal --prompt-ids 1,2,3 --max-new N\n"
    "                      [--temperature T] [--top-k K] [--top-p P] [--seed S]\n"
    "                      [--end-id ID] [--ids] [--threads N]\n"
    "Prefills the prompt, then generates up to N tokens (greedy unless --temperature > 0),\n"
    "printing them as they are produced. --ids prints only the generated ids, on one line.\n";

struct Options {
  const char* model = nullptr;
  std::vector<int32_t> prompt;
  SamplingOptions sampling;
  GenerateOptions generate;
  bool ids_only = false;
  int threads = 1;
};

bool parse_ids(const char* text, std::vector<int32_t>* ids) {
  const char* p = text;
  while (*p != '\0') {
    char* end = nullptr;
    const long value = std::strtol(p, &end, 10);
    if (end == p || value < INT32_MIN || value > INT32_MAX) return false;
    ids->push_back(static_cast<int32_t>(value));
    p = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end != '\0') return false;
  }
  return !ids->empty();
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--prompt-ids" && has_value) {
      if (!parse_ids(argv[++i], &o->prompt)) return false;
    } else if (arg == "--max-new" && has_value) {
      o->generate.max_new_tokens = static_cast<size_t>(std::atoll(argv[++i]));
    } else if (arg == "--temperature" && has_value) {
      o->sampling.temperature = static_cast<float>(std::atof(argv[++i]));
    } else if (arg == "--top-k" && has_value) {
      o->sampling.top_k = std::atoi(argv[++i]);
    } else if (arg == "--top-p" && has_value) {
      o->sampling.top_p = static_cast<float>(std::atof(argv[++i]));
    } else if (arg == "--seed" && has_value) {
      o->sampling.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--end-id" && has_value) {
      o->generate.end_token = std::atoi(argv[++i]);
    } else if (arg == "--ids") {
      o->ids_only = true;
    } else if (arg == "--threads" && has_value) {
      o->threads = std::atoi(argv[++i]);
      if (o->threads < 1) return false;
    } else if (arg[0] != '-' && o->model == nullptr) {
      o->model = argv[i];
    } else {
      return false;
    }
  }
  return o->model != nullptr && !o->prompt.empty();
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

bool print_token(int32_t token, void* user) {
  bool* first = static_cast<bool*>(user);
  std::printf(*first ? "%d" : " %d", static_cast<int>(token));
  std::fflush(stdout);
  *first = false;
  return true;
}

}  // namespace

int generate_command(int argc, char** argv) {
  if (argc == 1 && std::strcmp(argv[0], "--help") == 0) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  Options o;
  if (!parse(argc, argv, &o)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const auto loaded = load_model_or_report("generate", o.model);
  if (!loaded) return 1;
  ThreadPool pool(o.threads);
  SessionOptions options;
  options.parallel = &pool;
  const auto needed = Session::required_arena_bytes(loaded->model, options);
  if (!needed.ok()) {
    std::fprintf(stderr, "focal generate: %s\n", needed.status().message());
    return 1;
  }
  std::unique_ptr<void, FreeDeleter> arena(std::aligned_alloc(kBufferAlignment, (needed.value() + 63) / 64 * 64 + 64));
  auto session = Session::create(loaded->model, options, arena.get(), needed.value());
  if (!session.ok()) {
    std::fprintf(stderr, "focal generate: %s\n", session.status().message());
    return 1;
  }
  const int logits = session->find_output("logits");
  const size_t vocab = logits < 0 ? 0 : static_cast<size_t>(session->model().tensor(session->model().output_tensor(logits)).shape.dims[1]);
  std::vector<uint32_t> scratch((sampler_scratch_bytes(vocab) + 3) / 4 + 1);
  auto sampler = Sampler::create(o.sampling, vocab, scratch.data(), scratch.size() * 4);
  if (!sampler.ok()) {
    std::fprintf(stderr, "focal generate: %s\n", sampler.status().message());
    return 1;
  }
  if (!o.ids_only) {
    std::printf("prompt:");
    for (int32_t id : o.prompt) std::printf(" %d", static_cast<int>(id));
    std::printf("\ngenerated: ");
  }
  bool first = true;
  const Status status = generate(session.value(), o.prompt.data(), o.prompt.size(), sampler.value(),
                                 o.generate, print_token, &first);
  std::printf("\n");
  if (!status.ok()) {
    std::fprintf(stderr, "focal generate: %s\n", status.message());
    return 1;
  }
  return 0;
}

}  // namespace cli
}  // namespace focal
