#include "serve/served_model.h"

#include <algorithm>
#include <cstring>

#include "cli/chat_prompt.h"
#include "cli/command_line.h"
#include "cli/generation_defaults.h"
#include "focal/chat.h"
#include "focal/translate.h"
#include "mapped_file.h"

namespace focal {
namespace serve {
namespace {

ApiError internal_error(const Status& status) {
  return api_error(500, "server_error", "inference_failed", "", status.message());
}

// The planned size of input `name`'s dimension `dim` (0: absent).
size_t planned_dim(const Model& model, const char* name, int dim) {
  for (int i = 0; i < model.input_count(); ++i) {
    const TensorInfo t = model.tensor(model.input_tensor(i));
    if (std::strcmp(t.name, name) == 0 && t.shape.rank > dim) return static_cast<size_t>(t.shape.dims[dim]);
  }
  return 0;
}

bool has_stage(const Model& model, const char* name) {
  for (int s = 0; s < model.stage_count(); ++s) {
    if (std::strcmp(model.stage(s).name, name) == 0) return true;
  }
  return false;
}

int find_model_output(const Model& model, const char* name) {
  for (int i = 0; i < model.output_count(); ++i) {
    if (std::strcmp(model.tensor(model.output_tensor(i)).name, name) == 0) return i;
  }
  return -1;
}

// The ids of `text` (with the template's specials when `for_model`), or why not.
ApiError encode(const Model& model, const std::string& text, bool for_model, std::vector<int32_t>* ids) {
  auto tokenizer = Tokenizer::from_model(model);
  if (!tokenizer.ok()) return invalid_request("no_tokenizer", "", std::string("the model stores no tokenizer: ") + tokenizer.status().message());
  // As focal generate sizes it: at most 16 ids per byte under a SentencePiece character map, and the template's.
  ids->resize(16 * text.size() + 64);
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(text.size()) / 8 + 1);
  auto n = for_model ? tokenizer->encode_for_model(text.data(), text.size(), nullptr, 0, ids->data(), ids->size(),
                                                   scratch.data(), scratch.size() * 8)
                     : tokenizer->encode(text.data(), text.size(), ids->data(), ids->size(), scratch.data(),
                                         scratch.size() * 8);
  if (!n.ok()) return invalid_request("tokenizer_refused", "", n.status().message());
  ids->resize(n.value());
  if (ids->empty()) return invalid_request("no_tokens", "", "the text has no tokens");
  return ApiError();
}

// Length of the longest prefix of `text` that ends on a whole UTF-8 character (a
// multi-byte character split between tokens waits for its last byte).
size_t complete_utf8(std::string_view text) {
  size_t end = text.size();
  for (size_t back = 1; back <= 4 && back <= text.size(); ++back) {
    const unsigned char c = static_cast<unsigned char>(text[text.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    if (length > back) end = text.size() - back;  // the character is not complete yet
    break;
  }
  return end;
}

// The state of one generation, for generate()'s token callback.
struct Run {
  const ServedModel* served;
  const Tokenizer* tokenizer;
  const std::vector<int32_t>* end_tokens;
  const std::vector<std::string>* stop;
  size_t longest_stop;
  Slot* slot;
  TextSink sink;
  void* user;
  const std::atomic<bool>* cancel;
  Generated* out;
  size_t emitted = 0;
  bool client_left = false;

  bool emit(size_t upto) {
    if (sink == nullptr || upto <= emitted) return true;
    const bool more = sink(std::string_view(out->text).substr(emitted, upto - emitted), user);
    emitted = upto;
    client_left = !more;
    return more;
  }

  static bool on_token(int32_t token, void* user) {
    Run* r = static_cast<Run*>(user);
    Generated* out = r->out;
    for (int32_t end : *r->end_tokens) {
      if (token == end) {
        out->finish_reason = "stop";
        return false;
      }
    }
    ++out->completion_tokens;
    const size_t before = out->text.size();
    auto n = r->tokenizer->decode_token(token, r->slot->piece.data(), r->slot->piece.size());
    if (n.ok()) out->text.append(r->slot->piece.data(), n.value());
    // A stop string may end in this token's text: look where it could start.
    for (const std::string& s : *r->stop) {
      const size_t from = before >= s.size() ? before - s.size() + 1 : 0;
      const size_t at = out->text.find(s, from);
      if (at != std::string::npos) {
        out->text.resize(at);
        out->finish_reason = "stop";
        r->emit(out->text.size());
        return false;
      }
    }
    if (r->cancel != nullptr && r->cancel->load(std::memory_order_relaxed)) {
      out->finish_reason = "cancelled";
      return false;
    }
    // Final: whole characters that cannot begin a stop string still to come.
    size_t final_end = complete_utf8(out->text);
    if (r->longest_stop > 1) {
      const size_t hold = std::min(out->text.size(), r->longest_stop - 1);
      final_end = std::min(final_end, out->text.size() - hold);
      final_end = complete_utf8(std::string_view(out->text).substr(0, final_end));
    }
    return r->emit(final_end);
  }
};

// The tokenizer of the output side: a seq2seq model's target tokenizer, or its only one
// when source and target share a vocabulary (T5), as focal generate chooses it.
Result<Tokenizer> output_tokenizer(const Model& model, bool seq2seq) {
  auto target = Tokenizer::from_model(model, seq2seq);
  return target.ok() || !seq2seq ? target : Tokenizer::from_model(model);
}

}  // namespace

const char* kind_name(ModelKind kind) {
  switch (kind) {
    case ModelKind::kDecoder: return "decoder";
    case ModelKind::kEncoder: return "encoder";
    case ModelKind::kSeq2seq: return "seq2seq";
  }
  return "?";
}

Result<std::unique_ptr<ServedModel>> ServedModel::open(const std::string& name, const std::string& path,
                                                       int sessions, int threads) {
  auto file = MappedFile::open(path.c_str());
  if (!file.ok()) return file.status();
  auto model = Model::from_bytes(file->data(), file->size());
  if (!model.ok()) return Status::error(StatusCode::kInvalidArgument, "%s: %s", path.c_str(), model.status().message());
  std::unique_ptr<ServedModel> m(new ServedModel());
  m->name_ = name;
  m->loaded_.reset(new cli::LoadedModel{path, std::move(file.value()), model.value()});
  const Model& mod = m->loaded_->model;
  const bool logits = find_model_output(mod, "logits") >= 0;
  m->kind_ = has_stage(mod, "encode") ? ModelKind::kSeq2seq : logits ? ModelKind::kDecoder : ModelKind::kEncoder;
  m->chat_ = ChatFormat::from_model(mod).ok();
  auto tokenizer = output_tokenizer(mod, m->kind_ == ModelKind::kSeq2seq);
  if (tokenizer.ok()) {
    for (size_t id = 0; id < tokenizer->vocab_size(); ++id) {
      m->max_piece_ = std::max(m->max_piece_, tokenizer->decoded_bytes_bound(static_cast<int32_t>(id)));
    }
  }
  FOCAL_RETURN_IF_ERROR(m->create_slots(sessions, threads));
  return m;
}

Status ServedModel::create_slots(int sessions, int threads) {
  const Model& model = loaded_->model;
  if (kind_ == ModelKind::kSeq2seq) {
    for (int s = 0; s < model.symbol_count(); ++s) {
      if (std::strcmp(model.symbol(s).name, "batch") == 0) max_batch_ = static_cast<size_t>(model.symbol(s).max);
    }
    max_batch_ = std::max<size_t>(1, std::min(max_batch_, kMaxBeam));
  }
  for (int i = 0; i < sessions; ++i) {
    auto slot = std::make_unique<Slot>();
    SessionOptions options;
    options.max_batch = static_cast<int64_t>(kind_ == ModelKind::kSeq2seq ? max_batch_ : 1);
    FOCAL_RETURN_IF_ERROR(OwnedSession::open(model, options, threads, &slot->owned));
    Session& session = slot->owned.session();
    slot->piece.resize(max_piece_);
    if (kind_ == ModelKind::kDecoder) {
      const Shape shape = model.tensor(model.output_tensor(session.find_output("logits"))).shape;
      vocab_ = static_cast<size_t>(shape.dims[shape.rank - 1]);
      context_ = static_cast<size_t>(std::max<int64_t>(0, session.cache_capacity()));
      slot->sampler_scratch.resize(sampler_scratch_bytes(vocab_) / 4 + 1);
      if (context_ == 0) return Status::error(StatusCode::kInvalidArgument, "%s: a decoder without a KV cache", name_.c_str());
    } else if (kind_ == ModelKind::kEncoder) {
      context_ = planned_dim(model, "input_ids", 1);
      if (context_ == 0) return Status::error(StatusCode::kInvalidArgument, "%s: no input_ids [batch, seq]", name_.c_str());
      slot->row.resize(context_);
      slot->row_f32.resize(context_);
    } else {
      context_ = planned_dim(model, "input_ids", 1);
      if (context_ == 0) context_ = planned_dim(model, "source_ids", 1);
      max_steps_ = cli::decode_step_limit(session, static_cast<size_t>(cli::kMaxTokens), 0);
      TranslateOptions t;
      t.max_steps = max_steps_;
      t.beam_width = max_batch_;
      slot->translate_scratch.resize(translate_scratch_bytes(t, context_) / 8 + 1);
      slot->tokens.resize(max_steps_);
      slot->alignment.resize(max_steps_ * context_);
    }
    slots_.push_back(std::move(slot));
  }
  if (kind_ == ModelKind::kDecoder) {
    auto tokenizer = Tokenizer::from_model(model);
    end_tokens_ = cli::default_end_tokens(model, tokenizer.ok() ? tokenizer->eos_id() : -1);
  }
  return Status();
}

size_t ServedModel::arena_bytes() const {
  size_t total = 0;
  for (const auto& slot : slots_) total += slot->owned.arena_bytes();
  return total;
}

ApiError ServedModel::prompt_ids(const GenerationRequest& request, bool chat, std::vector<int32_t>* ids) const {
  const Model& model = loaded_->model;
  if (chat) {
    if (!chat_) {
      return invalid_request("no_chat_format", "model",
                             "model '" + name_ + "' stores no chat format (convert it from a folder whose "
                             "tokenizer_config.json has a chat_template); use /v1/completions");
    }
    auto result = cli::chat_prompt_ids(model, request.messages);
    if (!result.ok()) return invalid_request("chat_format_refused", "messages", result.status().message());
    *ids = std::move(result.value());
  } else if (!request.prompt_ids.empty()) {
    *ids = request.prompt_ids;
    for (int32_t id : *ids) {
      if (static_cast<size_t>(id) >= vocab_) {
        return invalid_request("token_out_of_range", "prompt",
                               "token id " + std::to_string(id) + " is beyond the vocabulary of " + std::to_string(vocab_));
      }
    }
  } else {
    ApiError error = encode(model, request.prompt, true, ids);
    if (!error.ok()) return error;
  }
  if (ids->empty()) return invalid_request("no_tokens", chat ? "messages" : "prompt", "the prompt has no tokens");
  if (ids->size() > context_) {
    return invalid_request("prompt_too_long", chat ? "messages" : "prompt",
                           "the prompt has " + std::to_string(ids->size()) + " tokens, more than the " +
                               std::to_string(context_) + " positions of model '" + name_ + "' (its planned context)");
  }
  // generate() feeds the prompt and every new token but the last: prompt + max_tokens - 1 positions.
  if (request.max_tokens - 1 > context_ - ids->size()) {
    return invalid_request("max_tokens_beyond_cache", "max_tokens",
                           "'max_tokens' " + std::to_string(request.max_tokens) + " after a prompt of " +
                               std::to_string(ids->size()) + " tokens goes beyond the KV cache of " +
                               std::to_string(context_) + " positions of model '" + name_ + "' (at most " +
                               std::to_string(context_ - ids->size() + 1) + " here)");
  }
  return ApiError();
}

ApiError ServedModel::generate(Slot& slot, const GenerationRequest& request, const std::vector<int32_t>& prompt,
                               TextSink sink, void* user, const std::atomic<bool>* cancel, Generated* out) const {
  Session& session = slot.owned.session();
  auto sampler = Sampler::create(request.sampling.options, vocab_, slot.sampler_scratch.data(),
                                 slot.sampler_scratch.size() * 4);
  if (!sampler.ok()) return internal_error(sampler.status());
  auto tokenizer = Tokenizer::from_model(session.model());
  if (!tokenizer.ok()) return internal_error(tokenizer.status());
  GenerateOptions options;
  options.max_new_tokens = request.max_tokens;
  size_t longest_stop = 0;
  for (const std::string& s : request.stop) longest_stop = std::max(longest_stop, s.size());
  out->prompt_tokens = prompt.size();
  Run run{this, &tokenizer.value(), &end_tokens_, &request.stop, longest_stop, &slot, sink, user, cancel, out};
  const Status status = focal::generate(session, prompt.data(), prompt.size(), sampler.value(), options, Run::on_token, &run);
  if (!status.ok()) return internal_error(status);
  if (!run.client_left) run.emit(out->text.size());  // what was held back for stop strings or a split character
  return ApiError();
}

ApiError ServedModel::embedding_ids(const std::string& text, std::vector<int32_t>* ids) const {
  ApiError error = encode(loaded_->model, text, true, ids);
  if (!error.ok()) return error;
  if (ids->size() > context_) {
    return invalid_request("input_too_long", "input",
                           "an input has " + std::to_string(ids->size()) + " tokens, more than the " +
                               std::to_string(context_) + " tokens model '" + name_ + "' is planned for");
  }
  return ApiError();
}

ApiError ServedModel::embed(Slot& slot, const std::vector<int32_t>& ids, std::vector<float>* embedding) const {
  Session& session = slot.owned.session();
  const int output = session.find_output("sentence_embedding");
  if (output < 0) {
    return invalid_request("no_sentence_embedding", "model",
                           "model '" + name_ + "' has no sentence_embedding output (convert a sentence-transformers "
                           "folder: its pooling and normalization become the model's)");
  }
  Shape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = static_cast<int64_t>(ids.size());
  // input_ids, then a mask of ones and token types of zeros where the model takes them
  // (one text: segment A), in each input's dtype.
  for (int i = 0; i < session.input_count(); ++i) {
    const TensorInfo info = session.model().tensor(session.model().input_tensor(i));
    Status status;
    if (std::strcmp(info.name, "input_ids") == 0) {
      status = session.set_input(i, shape, ids.data(), ids.size() * sizeof(int32_t));
    } else if (std::strcmp(info.name, "attention_mask") == 0 || std::strcmp(info.name, "token_type_ids") == 0) {
      const bool ones = std::strcmp(info.name, "attention_mask") == 0;
      if (info.dtype == DType::kF32) {
        std::fill_n(slot.row_f32.begin(), ids.size(), ones ? 1.0f : 0.0f);
        status = session.set_input(i, shape, slot.row_f32.data(), ids.size() * sizeof(float));
      } else {
        std::fill_n(slot.row.begin(), ids.size(), ones ? 1 : 0);
        status = session.set_input(i, shape, slot.row.data(), ids.size() * sizeof(int32_t));
      }
    }
    if (!status.ok()) return internal_error(status);
  }
  const Status status = session.run();
  if (!status.ok()) return internal_error(status);
  const TensorView view = session.output(output);
  size_t count = 1;
  for (int d = 0; d < view.shape.rank; ++d) count *= static_cast<size_t>(view.shape.dims[d]);
  embedding->assign(view.as<float>(), view.as<float>() + count);
  return ApiError();
}

ApiError ServedModel::source_ids(const TranslationRequest& request, std::vector<int32_t>* ids) const {
  const Model& model = loaded_->model;
  ApiError error = encode(model, request.input, false, ids);
  if (!error.ok()) return error;
  // A model whose tokenizer ends every source with eos (Marian's, T5's) says so in its hyperparameters.
  const char* source_eos = model.hyperparameter("source_eos");
  if (source_eos != nullptr && std::strcmp(source_eos, "append") == 0) {
    auto tokenizer = Tokenizer::from_model(model);
    const int32_t eos = cli::model_id(model, "eos_id", tokenizer.ok() ? tokenizer->eos_id() : -1);
    if (eos >= 0) ids->push_back(eos);
  }
  if (context_ > 0 && ids->size() > context_) {
    return invalid_request("input_too_long", "input",
                           "the input has " + std::to_string(ids->size()) + " tokens, more than the " +
                               std::to_string(context_) + " tokens model '" + name_ + "' is planned for");
  }
  if (request.beam_width > max_batch_) {
    return invalid_request("beam_beyond_plan", "beam_width",
                           "'beam_width' " + std::to_string(request.beam_width) + " is more than the planned batch of " +
                               std::to_string(max_batch_) + " of model '" + name_ + "' (beams are rows of a batch)");
  }
  return ApiError();
}

ApiError ServedModel::translate(Slot& slot, const TranslationRequest& request, const std::vector<int32_t>& source,
                                Translated* out) const {
  Session& session = slot.owned.session();
  const Model& model = session.model();
  TranslateOptions options;
  options.max_steps = std::min(request.max_tokens, max_steps_);
  options.beam_width = request.beam_width;
  auto target = output_tokenizer(model, true);
  if (target.ok()) {
    options.bos_id = target->bos_id() >= 0 ? target->bos_id() : options.bos_id;
    options.eos_id = target->eos_id();
  }
  // As focal generate chooses them (cli/generate.cpp): the preset's ids, then generation_config.json's.
  options.bos_id = cli::model_id(model, "decoder_start_id", options.bos_id);
  options.eos_id = cli::model_id(model, "eos_id", options.eos_id);
  options.bos_id = cli::generation_id_or(model, "decoder_start_token_id", options.bos_id);
  options.eos_id = cli::generation_id_or(model, "eos_token_id", options.eos_id);
  auto result = focal::translate(session, source.data(), source.size(), options, slot.translate_scratch.data(),
                                 slot.translate_scratch.size() * 8, slot.tokens.data(), slot.alignment.data());
  if (!result.ok()) return internal_error(result.status());
  out->source_tokens = source.size();
  size_t kept = 0;
  bool first = true;
  for (; kept < result->length; ++kept) {
    const int32_t token = slot.tokens[kept];
    if (token == options.eos_id) break;
    if (!target.ok()) continue;
    auto n = target->decode_token(token, slot.piece.data(), slot.piece.size());
    if (!n.ok()) continue;
    std::string_view piece(slot.piece.data(), n.value());
    // SentencePiece's decoder drops the word boundary its encoder put before the text.
    if (first && !piece.empty() && piece[0] == ' ' && std::strcmp(target->kind(), "unigram") == 0) piece.remove_prefix(1);
    first = false;
    out->text.append(piece);
  }
  out->target_tokens = kept;
  if (request.attention) {
    out->attention.assign(slot.alignment.begin(), slot.alignment.begin() + static_cast<long>(kept * source.size()));
  }
  return ApiError();
}

}  // namespace serve
}  // namespace focal
