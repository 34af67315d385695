// focal run --text: input_ids, attention_mask and token_type_ids from text, with the
// tokenizer the model file stores.
#include "cli/text_inputs.h"

#include <cstdint>
#include <string>
#include <vector>

#include "focal/tokenizer.h"

namespace focal {
namespace cli {
namespace {

// The ids the model takes for `text` (and `pair`): encode_for_model's template applied.
Result<std::vector<int32_t>> encode(const Tokenizer& tokenizer, const std::string& text, const std::string* pair) {
  const size_t pair_bytes = pair != nullptr ? pair->size() : 0;
  const size_t longest = pair_bytes > text.size() ? pair_bytes : text.size();
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(longest) / 8 + 1);
  // At most one id per byte of the normalized text (NFC: up to three bytes per byte), and
  // the template's few (as focal tokenize sizes it).
  std::vector<int32_t> ids(4 * (text.size() + pair_bytes) + 64);
  const Result<size_t> n =
      tokenizer.encode_for_model(text.data(), text.size(), pair != nullptr ? pair->data() : nullptr, pair_bytes,
                                 ids.data(), ids.size(), scratch.data(), scratch.size() * 8);
  if (!n.ok()) return n.status();
  ids.resize(n.value());
  return ids;
}

// `values` as input `name` [1, n] in the input's dtype (i32 ids; f32 or i32 masks).
Status set_row(Session& session, int index, const char* name, const std::vector<int32_t>& values) {
  const TensorInfo info = session.model().tensor(session.model().input_tensor(index));
  Shape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = static_cast<int64_t>(values.size());
  if (info.dtype == DType::kI32) {
    return session.set_input(index, shape, values.data(), values.size() * sizeof(int32_t));
  }
  if (info.dtype == DType::kF32 && std::string(name) != "input_ids") {
    const std::vector<float> as_float(values.begin(), values.end());
    return session.set_input(index, shape, as_float.data(), as_float.size() * sizeof(float));
  }
  return Status::error(StatusCode::kInvalidArgument, "--text: the model's input '%s' is %s, not token ids", name,
                       dtype_name(info.dtype));
}

}  // namespace

Status set_text_inputs(Session& session, const std::string& text, const std::string* pair) {
  const Result<Tokenizer> tokenizer = Tokenizer::from_model(session.model());
  if (!tokenizer.ok()) return tokenizer.status();
  const int ids_index = session.find_input("input_ids");
  if (ids_index < 0) {
    return Status::error(StatusCode::kInvalidArgument, "--text feeds input_ids, and the model has no input of that name");
  }
  Result<std::vector<int32_t>> ids = encode(tokenizer.value(), text, pair);
  if (!ids.ok()) return ids.status();
  FOCAL_RETURN_IF_ERROR(set_row(session, ids_index, "input_ids", ids.value()));
  if (const int mask = session.find_input("attention_mask"); mask >= 0) {
    FOCAL_RETURN_IF_ERROR(set_row(session, mask, "attention_mask", std::vector<int32_t>(ids->size(), 1)));
  }
  if (const int types = session.find_input("token_type_ids"); types >= 0) {
    // Segment A is what the template gives the first text alone ([CLS] A [SEP]).
    size_t first = ids->size();
    if (pair != nullptr) {
      Result<std::vector<int32_t>> alone = encode(tokenizer.value(), text, nullptr);
      if (!alone.ok()) return alone.status();
      first = alone->size() < first ? alone->size() : first;
    }
    std::vector<int32_t> type_ids(ids->size(), 0);
    for (size_t i = first; i < type_ids.size(); ++i) type_ids[i] = 1;
    FOCAL_RETURN_IF_ERROR(set_row(session, types, "token_type_ids", type_ids));
  }
  return Status();
}

}  // namespace cli
}  // namespace focal
