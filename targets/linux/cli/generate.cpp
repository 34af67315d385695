// focal generate MODEL (--prompt TEXT | --prompt-ids 1,2,3 | --chat MESSAGE | --source TEXT | --source-ids 1,2,3)
//                --max-new N [--temperature T --top-k K --top-p P --seed S] [--beam K]
//                [--end-id ID] [--ids] [--attention-out FILE.npy] [--threads N]
// Decoder-only models continue a prompt (tokens stream as they are produced);
// sequence-to-sequence models (stages encode/decode) translate a source.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "cli/chat_prompt.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/generation_defaults.h"
#include "cli/loaded_model.h"
#include "cli/npy_outputs.h"
#include "cli/run_habits.h"
#include "cli/text_file.h"
#include "cpu_cores.h"
#include "focal/generate.h"
#include "focal/tokenizer.h"
#include "focal/translate.h"
#include "owned_session.h"
#include "readers/npy.h"

namespace focal {
namespace cli {
namespace {

constexpr int64_t kMaxBeam = 1024;  // --beam: rows of one batch, bounded again by the model's plan

const char* kUsage =
    "usage: focal generate MODEL.focal (--prompt TEXT | --prompt-file FILE | --prompt-ids 1,2,3 |\n"
    "                      --chat MESSAGE [--system TEXT] | --source TEXT | --source-ids 1,2,3)\n"
    "                      --max-new N [--temperature T]\n"
    "                      [--top-k K] [--top-p P] [--seed S] [--beam K] [--end-id ID] [--ids]\n"
    "                      [--attention-out FILE.npy] [--threads N]\n"
    "As llama.cpp spells them: -m MODEL.focal, -p TEXT, -f FILE (- reads standard input; one\n"
    "trailing newline is dropped), -n N (--max-new), -t N (--threads; default: the physical cores),\n"
    "-s S (--seed; default: a random seed, printed to stderr when sampling). Timings go to stderr\n"
    "after generation.\n"
    "       --chat MESSAGE [--system TEXT]: the message as a user turn in the model's chat format\n"
    "(tokenizer_config.json's chat_template, stored at conversion), with the assistant's opening.\n"
    "A model converted from a Hugging Face folder starts (seq2seq: decoder_start_token_id) and\n"
    "stops (at any of eos_token_id's ids) at its generation_config.json's ids, else at the\n"
    "tokenizer's.\n"
    "A decoder-only model prefills the prompt, then generates up to N tokens (greedy unless\n"
    "--temperature > 0), printing them as they come. A sequence-to-sequence model encodes the\n"
    "source and decodes up to N tokens greedily or with a beam of K (the beams are rows of one\n"
    "batch: the model must be converted with a maximum batch of K or more). Text goes through\n"
    "the tokenizer stored in the model. --ids prints only the generated ids, on one line.\n"
    "--attention-out saves the alignment [target, source] (seq2seq) or the last layer's\n"
    "attention averaged over heads for the generated tokens [target, positions] (decoders).\n";

struct Options {
  const char* model = nullptr;
  std::string text;
  bool chat = false;   // --chat: `text` is a user message, rendered in the model's chat format
  std::string system;  // --system: the chat's system message
  std::vector<int32_t> ids;
  bool seq2seq_input = false;  // --source / --source-ids
  SamplingOptions sampling;
  bool seed_given = false;  // else a random seed (run_habits.h)
  size_t max_new = 16;
  int32_t end_id = -2;  // -2: the stored generation eos, else the tokenizer's (or none); -1: none
  size_t beam = 1;
  bool ids_only = false;
  std::string attention_out;
  int threads = physical_core_count();
};

// "1,2,3": token ids, each a strictly parsed integer in [0, INT32_MAX].
Status parse_ids(const char* option, const char* text, std::vector<int32_t>* ids) {
  std::string list = text;
  size_t begin = 0;
  while (true) {
    const size_t comma = list.find(',', begin);
    const std::string item = list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    const Result<int64_t> id = parse_integer(option, item.c_str(), 0, INT32_MAX);
    if (!id.ok()) return id.status();
    ids->push_back(static_cast<int32_t>(id.value()));
    if (comma == std::string::npos) return Status();
    begin = comma + 1;
  }
}

// --prompt TEXT or --source TEXT (null: the value is missing, already recorded).
void set_text_input(const char* text, bool seq2seq, Options* o, int* inputs) {
  if (text == nullptr) return;
  o->text = text;
  o->seq2seq_input = seq2seq;
  ++*inputs;
}

// --prompt-file FILE (-f): the prompt is the file's text (text_file.h).
Status read_prompt_file(const char* path, Options* o, int* inputs) {
  std::string text;
  FOCAL_RETURN_IF_ERROR(read_text_file("--prompt-file", path, &text));
  set_text_input(text.c_str(), false, o, inputs);  // copied into o->text
  return Status();
}

Status set_ids_input(const char* option, const char* list, bool seq2seq, Options* o, int* inputs) {
  o->seq2seq_input = seq2seq;
  ++*inputs;
  return parse_ids(option, list, &o->ids);
}

Status parse(int argc, char** argv, Options* o) {
  int inputs = 0;
  Arguments args(argc, argv);
  while (args.more()) {
    const char* value = nullptr;
    if (args.text("--prompt", &value) || args.text("-p", &value)) {
      set_text_input(value, false, o, &inputs);
    } else if (args.text("--prompt-file", &value) || args.text("-f", &value)) {
      if (value != nullptr) args.fail(read_prompt_file(value, o, &inputs));
    } else if (args.text("-m", &value)) {
      if (value != nullptr && o->model != nullptr) args.fail(Status::error(StatusCode::kInvalidArgument, "two models given"));
      if (value != nullptr) o->model = value;
    } else if (args.text("--chat", &value)) {
      set_text_input(value, false, o, &inputs);
      o->chat = value != nullptr;
    } else if (args.text("--system", &o->system)) {
    } else if (args.text("--source", &value)) {
      set_text_input(value, true, o, &inputs);
    } else if (args.text("--prompt-ids", &value)) {
      if (value != nullptr) args.fail(set_ids_input("--prompt-ids", value, false, o, &inputs));
    } else if (args.text("--source-ids", &value)) {
      if (value != nullptr) args.fail(set_ids_input("--source-ids", value, true, o, &inputs));
    } else if (args.integer("--max-new", 1, kMaxTokens, &o->max_new) || args.integer("-n", 1, kMaxTokens, &o->max_new)) {
    } else if (args.real("--temperature", 0.0, 100.0, &o->sampling.temperature)) {
    } else if (args.integer("--top-k", 0, INT32_MAX, &o->sampling.top_k)) {
    } else if (args.real("--top-p", 0.0, 1.0, &o->sampling.top_p, LowerBound::kExclusive)) {
    } else if (args.integer("--seed", 0, INT64_MAX, &o->sampling.seed) || args.integer("-s", 0, INT64_MAX, &o->sampling.seed)) {
      o->seed_given = true;
    } else if (args.integer("--beam", 1, kMaxBeam, &o->beam)) {
    } else if (args.integer("--end-id", -1, INT32_MAX, &o->end_id)) {
    } else if (args.text("--attention-out", &o->attention_out)) {
    } else if (args.flag("--ids")) {
      o->ids_only = true;
    } else if (args.integer("--threads", 1, kMaxThreads, &o->threads) || args.integer("-t", 1, kMaxThreads, &o->threads)) {
    } else if (!args.positional(&o->model)) {
      args.refuse_current();
    }
  }
  if (!args.status().ok()) return args.status();
  if (o->model == nullptr) return missing_argument("MODEL.focal");
  if (inputs != 1) {
    return Status::error(StatusCode::kInvalidArgument,
                         "give exactly one of --prompt (-p), --prompt-file (-f), --prompt-ids, --chat, --source "
                         "and --source-ids");
  }
  if (!o->system.empty() && !o->chat) return Status::error(StatusCode::kInvalidArgument, "--system goes with --chat");
  return Status();
}

// Text through the model's tokenizer (or the given ids; --chat: the chat prompt's). A
// decoder's prompt gets the special tokens the tokenizer's template adds (Llama's and
// Gemma's bos), as transformers' generate gets them from its tokenizer and llama.cpp adds
// bos; a source is encoded alone (source_eos below).
Result<std::vector<int32_t>> input_ids(const Model& model, const Options& o) {
  if (o.chat) {
    std::vector<ChatTurn> turns;
    if (!o.system.empty()) turns.push_back({"system", o.system});
    turns.push_back({"user", o.text});
    return chat_prompt_ids(model, turns);
  }
  if (o.text.empty()) return o.ids;
  auto tokenizer = Tokenizer::from_model(model);
  if (!tokenizer.ok()) return tokenizer.status();
  // At most one id per normalized byte: 16 per text byte under a SentencePiece character map
  // (U+FDFA's 3 bytes are 18 characters), 3 after NFC; and the template's.
  std::vector<int32_t> ids(16 * o.text.size() + 64);
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(o.text.size()) / 8 + 1);
  auto count = o.seq2seq_input
                   ? tokenizer->encode(o.text.data(), o.text.size(), ids.data(), ids.size(), scratch.data(),
                                       scratch.size() * 8)
                   : tokenizer->encode_for_model(o.text.data(), o.text.size(), nullptr, 0, ids.data(), ids.size(),
                                                 scratch.data(), scratch.size() * 8);
  if (!count.ok()) return count.status();
  ids.resize(count.value());
  if (ids.empty()) return Status::error(StatusCode::kInvalidArgument, "the text has no tokens");
  // A model whose tokenizer ends every source with eos (Marian's, T5's) says so in its hyperparameters.
  const char* source_eos = model.hyperparameter("source_eos");
  if (o.seq2seq_input && source_eos != nullptr && std::strcmp(source_eos, "append") == 0) {
    const int32_t eos = model_id(model, "eos_id", tokenizer->eos_id());
    if (eos >= 0) ids.push_back(eos);
  }
  return ids;
}

// The tokenizer of the output side: a seq2seq model's target tokenizer, or its only one
// when source and target share a vocabulary (T5).
Result<Tokenizer> output_tokenizer(const Model& model, bool seq2seq) {
  auto target = Tokenizer::from_model(model, seq2seq);
  return target.ok() || !seq2seq ? target : Tokenizer::from_model(model);
}

// Prints a token as text (through the output-side tokenizer) or as an id.
struct Printer {
  const Tokenizer* tokenizer = nullptr;
  bool ids_only = false;
  bool first = true;
  std::vector<char> text;  // one token's bytes, grown to the longest piece printed
  void print(int32_t token) {
    if (!ids_only && tokenizer != nullptr) {
      text.resize(std::max(text.size(), tokenizer->decoded_bytes_bound(token)));
      auto n = tokenizer->decode_token(token, text.data(), text.size());
      std::string_view piece(text.data(), n.ok() ? n.value() : 0);
      // SentencePiece's decoder drops the word boundary its encoder put before the text.
      if (first && !piece.empty() && piece[0] == ' ' && std::strcmp(tokenizer->kind(), "unigram") == 0) {
        piece.remove_prefix(1);
      }
      if (n.ok()) std::fputs(terminal_text(piece).c_str(), stdout);  // bytes from the file
    } else {
      std::printf(first ? "%d" : " %d", static_cast<int>(token));
    }
    first = false;
    std::fflush(stdout);
  }
};

// Decoder-only: the attention of the last MultiHeadAttention op, averaged over heads, for
// the query that produced each token ([1, heads, q, kv] captured per run: q is the
// prompt's length for the first token, then 1).
struct DecoderRun {
  Printer* printer;
  GenerationTimer* timer;
  size_t generated;
  Session* session;
  std::vector<float>* capture;
  std::vector<float>* rows;  // [target, context]
  size_t heads, context, queries;
  static bool on_token(int32_t token, void* user) {
    auto* run = static_cast<DecoderRun*>(user);
    run->timer->first_token();
    ++run->generated;
    run->printer->print(token);
    if (run->rows != nullptr) {
      const size_t kv = static_cast<size_t>(run->session->cached_length());
      std::vector<float> row(run->context, 0.0f);
      for (size_t h = 0; h < run->heads; ++h) {
        const float* w = run->capture->data() + (h * run->queries + run->queries - 1) * kv;
        for (size_t j = 0; j < kv && j < run->context; ++j) row[j] += w[j] / float(run->heads);
      }
      run->rows->insert(run->rows->end(), row.begin(), row.end());
      run->queries = 1;
    }
    return true;
  }
};

int last_attention_op(const Model& m) {
  int last = -1;
  for (int o = 0; o < m.op_count(); ++o) {
    if (m.op(o).attention_heads > 0) last = o;
  }
  return last;
}

Status run_decoder(Session& session, const Options& o, const std::vector<int32_t>& prompt, Printer& printer,
                   std::vector<float>* alignment, size_t* alignment_cols) {
  const int logits = session.find_output("logits");
  if (logits < 0) return Status::error(StatusCode::kInvalidArgument, "the model has no 'logits' output");
  const Shape logits_shape = session.model().tensor(session.model().output_tensor(logits)).shape;
  const size_t vocab = static_cast<size_t>(logits_shape.dims[logits_shape.rank - 1]);  // [1, V] or [1, S, V]
  std::vector<uint32_t> scratch(sampler_scratch_bytes(vocab) / 4 + 1);
  auto sampler = Sampler::create(o.sampling, vocab, scratch.data(), scratch.size() * 4);
  if (!sampler.ok()) return sampler.status();
  GenerateOptions options;
  options.max_new_tokens = o.max_new;
  auto tokenizer = Tokenizer::from_model(session.model());
  const std::vector<int32_t> end_tokens = default_end_tokens(session.model(), tokenizer.ok() ? tokenizer->eos_id() : -1);
  if (o.end_id != -2) {
    options.end_token = o.end_id;
  } else {
    options.end_tokens = end_tokens.data();  // any of generation_config.json's eos ids
    options.end_token_count = end_tokens.size();
  }
  std::vector<float> capture;
  GenerationTimer timer;
  DecoderRun run{&printer, &timer, 0, &session, &capture, nullptr, 0, 0, prompt.size()};
  if (alignment != nullptr) {
    const int op = last_attention_op(session.model());
    if (op < 0) return Status::error(StatusCode::kInvalidArgument, "the model has no attention op to capture");
    run.heads = static_cast<size_t>(session.model().op(op).attention_heads);
    run.context = static_cast<size_t>(session.cache_capacity());
    capture.assign(run.heads * prompt.size() * run.context, 0.0f);
    FOCAL_RETURN_IF_ERROR(session.capture_attention(op, capture.data(), capture.size()));
    run.rows = alignment;
    *alignment_cols = run.context;
  }
  timer.start();
  FOCAL_RETURN_IF_ERROR(
      generate(session, prompt.data(), prompt.size(), sampler.value(), options, DecoderRun::on_token, &run));
  std::printf("\n");
  std::fflush(stdout);  // the text before the timings, also when both go to one pipe
  timer.report("focal generate", prompt.size(), run.generated);
  if (alignment != nullptr && run.context > 0) {
    // Keep the positions that existed: the prompt and the tokens fed back (the last
    // token produced was never fed, so no row attends to it).
    const size_t used = std::min(run.context, static_cast<size_t>(session.cached_length()));
    const size_t rows = alignment->size() / run.context;
    for (size_t r = 0; r < rows; ++r) {
      std::copy_n(alignment->begin() + long(r * run.context), used, alignment->begin() + long(r * used));
    }
    alignment->resize(rows * used);
    *alignment_cols = used;
  }
  return Status();
}

Status run_seq2seq(Session& session, const Options& o, const std::vector<int32_t>& source, Printer& printer,
                   std::vector<float>* alignment, size_t* alignment_cols) {
  TranslateOptions options;
  options.max_steps = decode_step_limit(session, o.max_new, 0);
  options.beam_width = o.beam;
  auto target = output_tokenizer(session.model(), true);
  if (target.ok()) {
    options.bos_id = target->bos_id() >= 0 ? target->bos_id() : options.bos_id;
    options.eos_id = target->eos_id();
  }
  // The decoder's first input: decoder_start_token_id where the model states it (Marian's and T5's
  // is pad, which no tokenizer calls bos).
  options.bos_id = model_id(session.model(), "decoder_start_id", options.bos_id);
  options.eos_id = model_id(session.model(), "eos_id", options.eos_id);
  // A Hugging Face folder's generation_config.json, where stored, wins over the preset's.
  options.bos_id = generation_id_or(session.model(), "decoder_start_token_id", options.bos_id);
  options.eos_id = generation_id_or(session.model(), "eos_token_id", options.eos_id);
  if (o.end_id != -2) options.eos_id = o.end_id;
  std::vector<uint64_t> scratch(translate_scratch_bytes(options, source.size()) / 8 + 1);
  std::vector<int32_t> tokens(options.max_steps);
  std::vector<float> align(options.max_steps * source.size());
  GenerationTimer timer;
  timer.start();
  auto result = translate(session, source.data(), source.size(), options, scratch.data(), scratch.size() * 8,
                          tokens.data(), align.data());
  if (!result.ok()) return result.status();
  for (size_t t = 0; t < result->length; ++t) {
    if (tokens[t] == options.eos_id && !o.ids_only) break;  // the text ends before eos
    printer.print(tokens[t]);
  }
  std::printf("\n");
  std::fflush(stdout);  // the text before the timings, also when both go to one pipe
  timer.report_translation("focal generate", source.size(), result->length);
  if (alignment != nullptr) {
    alignment->assign(align.begin(), align.begin() + static_cast<long>(result->length * source.size()));
    *alignment_cols = source.size();
  }
  return Status();
}

}  // namespace

int generate_command(int argc, char** argv) {
  Options o;
  const auto loaded = start_command("generate", argc, argv, kUsage, parse, &o);
  if (!loaded) return loaded.exit_code();
  choose_seed("focal generate", o.seed_given, &o.sampling);
  SessionOptions options;
  if (o.beam > 1) options.max_batch = static_cast<int64_t>(o.beam);
  OwnedSession owned;
  Status status = OwnedSession::open(loaded->model, options, o.threads, &owned);
  std::vector<float> alignment;
  size_t columns = 0;
  if (status.ok()) {
    Session& session = owned.session();
    const bool seq2seq = session.find_stage("encode") >= 0;
    auto ids = input_ids(loaded->model, o);
    status = ids.status();
    if (status.ok() && seq2seq != o.seq2seq_input) {
      status = Status::error(StatusCode::kInvalidArgument, seq2seq ? "a sequence-to-sequence model takes --source"
                                                                   : "a decoder-only model takes --prompt");
    }
    if (status.ok()) {
      auto target = output_tokenizer(loaded->model, seq2seq);
      Printer printer{target.ok() ? &target.value() : nullptr, o.ids_only, true, {}};
      std::vector<float>* align = o.attention_out.empty() ? nullptr : &alignment;
      status = seq2seq ? run_seq2seq(session, o, ids.value(), printer, align, &columns)
                       : run_decoder(session, o, ids.value(), printer, align, &columns);
      if (!status.ok()) std::printf("\n");
    }
  }
  if (status.ok() && !o.attention_out.empty()) status = check_output_is_not_an_input(o.attention_out, {o.model});
  if (status.ok() && !o.attention_out.empty()) {
    const std::vector<int64_t> shape = {static_cast<int64_t>(columns ? alignment.size() / columns : 0),
                                        static_cast<int64_t>(columns)};
    status = write_npy_file(o.attention_out, convert::ElementType::kF32, shape, alignment.data(),
                                alignment.size() * sizeof(float));
  }
  if (!status.ok()) return report_failure("generate", status);
  return 0;
}

}  // namespace cli
}  // namespace focal
