// focal chat MODEL [--system TEXT]: a conversation with a chat model, as llama.cpp's
// llama-cli -cnv holds one. Each line of standard input is a user message; the whole
// conversation is rendered in the model's chat format (chat_prompt.h), and the reply
// streams to standard output as it is generated, ending at any of generation_config.json's
// eos ids (or the tokenizer's eos), then a newline. The reply joins the conversation as
// the assistant's message. "> " goes to standard error before each message when standard
// input is a terminal. Each turn prefills the whole conversation again (the KV cache is not
// kept between turns); a conversation longer than the model's context ends with an error.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/chat_prompt.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/generation_defaults.h"
#include "cli/loaded_model.h"
#include "cli/printable.h"
#include "cli/run_habits.h"
#include "cli/text_file.h"
#include "cpu_cores.h"
#include "focal/generate.h"
#include "focal/tokenizer.h"
#include "owned_session.h"

namespace focal {
namespace cli {
namespace {

const char* kUsage =
    "usage: focal chat MODEL.focal [--system TEXT] [-n N] [--temperature T] [--top-k K] [--top-p P]\n"
    "                  [-s SEED] [-t N]\n"
    "A conversation: each line of standard input is a user message, answered in the model's chat\n"
    "format (tokenizer_config.json's chat_template, stored at conversion), the reply streaming\n"
    "as it is generated and ending at generation_config.json's eos ids. Greedy unless\n"
    "--temperature > 0. -n N (--max-new): tokens per reply at most (default 256). -t N (--threads):\n"
    "default the physical cores. -s S (--seed): default a random seed, printed to stderr when sampling.\n"
    "  --system TEXT   the system message (--system-file FILE: from a file)\n";

struct Options {
  const char* model = nullptr;
  std::string system;
  SamplingOptions sampling;
  bool seed_given = false;  // else a random seed (run_habits.h)
  size_t max_new = 256;
  int threads = physical_core_count();
};

Status parse(int argc, char** argv, Options* o) {
  Arguments args(argc, argv);
  while (args.more()) {
    const char* value = nullptr;
    if (args.text("--system", &o->system)) {
    } else if (args.text("--system-file", &value)) {
      if (value != nullptr) args.fail(read_text_file("--system-file", value, &o->system));
    } else if (args.text("-m", &value)) {
      if (value != nullptr) o->model = value;
    } else if (args.integer("--max-new", 1, kMaxTokens, &o->max_new) || args.integer("-n", 1, kMaxTokens, &o->max_new)) {
    } else if (args.real("--temperature", 0.0, 100.0, &o->sampling.temperature)) {
    } else if (args.integer("--top-k", 0, INT32_MAX, &o->sampling.top_k)) {
    } else if (args.real("--top-p", 0.0, 1.0, &o->sampling.top_p, LowerBound::kExclusive)) {
    } else if (args.integer("--seed", 0, INT64_MAX, &o->sampling.seed) || args.integer("-s", 0, INT64_MAX, &o->sampling.seed)) {
      o->seed_given = true;
    } else if (args.integer("--threads", 1, kMaxThreads, &o->threads) || args.integer("-t", 1, kMaxThreads, &o->threads)) {
    } else if (!args.positional(&o->model)) {
      args.refuse_current();
    }
  }
  if (!args.status().ok()) return args.status();
  return o->model != nullptr ? Status() : missing_argument("MODEL.focal");
}

// Streams each token's text and keeps the reply's bytes (end tokens are neither shown nor kept).
struct Reply {
  const Tokenizer* tokenizer;
  const std::vector<int32_t>* end_tokens;
  std::string text;
  std::vector<char> piece;
  static bool on_token(int32_t token, void* user) {
    auto* r = static_cast<Reply*>(user);
    for (int32_t end : *r->end_tokens) {
      if (token == end) return true;  // generate stops after it
    }
    r->piece.resize(std::max(r->piece.size(), r->tokenizer->decoded_bytes_bound(token)));
    auto n = r->tokenizer->decode_token(token, r->piece.data(), r->piece.size());
    if (!n.ok()) return true;
    r->text.append(r->piece.data(), n.value());
    std::fputs(terminal_text(std::string_view(r->piece.data(), n.value())).c_str(), stdout);
    std::fflush(stdout);
    return true;
  }
};

// One line of standard input without its newline; false at the end.
bool read_line(std::string* line) {
  line->clear();
  int c = 0;
  while ((c = std::fgetc(stdin)) != EOF && c != '\n') line->push_back(static_cast<char>(c));
  return c != EOF || !line->empty();
}

Status converse(Session& session, const Tokenizer& tokenizer, const Options& o) {
  const Model& model = session.model();
  const int logits = session.find_output("logits");
  if (logits < 0) return Status::error(StatusCode::kInvalidArgument, "the model has no 'logits' output");
  const Shape logits_shape = model.tensor(model.output_tensor(logits)).shape;
  const size_t vocab = static_cast<size_t>(logits_shape.dims[logits_shape.rank - 1]);
  std::vector<uint32_t> scratch(sampler_scratch_bytes(vocab) / 4 + 1);
  auto sampler = Sampler::create(o.sampling, vocab, scratch.data(), scratch.size() * 4);
  if (!sampler.ok()) return sampler.status();
  const std::vector<int32_t> end_tokens = default_end_tokens(model, tokenizer.eos_id());
  GenerateOptions options;
  options.end_tokens = end_tokens.data();
  options.end_token_count = end_tokens.size();
  std::vector<ChatTurn> turns;
  if (!o.system.empty()) turns.push_back({"system", o.system});
  const bool terminal = isatty(STDIN_FILENO) != 0;
  std::string line;
  while ((terminal ? std::fputs("> ", stderr) : 0) >= 0 && read_line(&line)) {
    if (line.empty()) continue;
    turns.push_back({"user", line});
    auto prompt = chat_prompt_ids(model, turns);
    if (!prompt.ok()) return prompt.status();
    options.max_new_tokens = decode_step_limit(session, o.max_new, prompt->size());
    Reply reply{&tokenizer, &end_tokens, {}, {}};
    FOCAL_RETURN_IF_ERROR(generate(session, prompt->data(), prompt->size(), sampler.value(), options, Reply::on_token,
                                   &reply));
    std::printf("\n");
    std::fflush(stdout);
    turns.push_back({"assistant", reply.text});
  }
  return Status();
}

}  // namespace

int chat_command(int argc, char** argv) {
  Options o;
  const auto loaded = start_command("chat", argc, argv, kUsage, parse, &o);
  if (!loaded) return loaded.exit_code();
  choose_seed("focal chat", o.seed_given, &o.sampling);
  auto tokenizer = Tokenizer::from_model(loaded->model);
  if (!tokenizer.ok()) return report_failure("chat", tokenizer.status());
  OwnedSession owned;
  Status status = OwnedSession::open(loaded->model, SessionOptions(), o.threads, &owned);
  if (status.ok()) status = converse(owned.session(), tokenizer.value(), o);
  if (!status.ok()) return report_failure("chat", status);
  return 0;
}

}  // namespace cli
}  // namespace focal
