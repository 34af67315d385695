// focal attention MODEL --input NAME=FILE.npy [...] --layer L --head H (--svg OUT | --png OUT)
// focal attention --matrix FILE.npy [--row-labels a,b,..] [--col-labels ...] (--svg | --png)
// Runs the model once and draws the softmax weights of attention layer L (the L-th
// MultiHeadAttention op), head H, batch row 0, with the input tokens on both axes when the
// model has a tokenizer; or draws a saved [rows, cols] matrix (an alignment from `focal
// generate --attention-out`). A terminal preview is printed either way.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/loaded_model.h"
#include "cli/npy_inputs.h"
#include "focal/session.h"
#include "focal/tokenizer.h"
#include "heatmap.h"
#include "owned_session.h"
#include "readers/npy.h"

namespace focal {
namespace cli {
namespace {

const char* kUsage =
    "usage: focal attention MODEL.focal --input NAME=FILE.npy [...] [--layer L] [--head H]\n"
    "                       (--svg OUT.svg | --png OUT.png)\n"
    "       focal attention --matrix FILE.npy [--row-labels a,b,...] [--col-labels x,y,...]\n"
    "                       [--title TEXT] (--svg OUT.svg | --png OUT.png)\n"
    "Draws attention weights as a heatmap with a colour scale: layer L's head H (defaults 0)\n"
    "for batch row 0 of a model run (tokens on both axes when the model has a tokenizer),\n"
    "or a saved [rows, cols] matrix such as `focal generate --attention-out`. Also prints a\n"
    "preview in the terminal.\n";

struct Options {
  const char* model = nullptr;
  NpyInputs inputs;
  std::string matrix, svg, png, title;
  std::vector<std::string> row_labels, col_labels;
  int layer = 0, head = 0;
};

std::vector<std::string> split_labels(const std::string& text) {
  std::vector<std::string> labels;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) labels.push_back(item);
  return labels;
}

constexpr int64_t kMaxIndex = 1 << 20;  // --layer, --head: far above any model's count

Status parse(int argc, char** argv, Options* o) {
  Arguments args(argc, argv);
  while (args.more()) {
    const char* value = nullptr;
    if (args.text("--input", &value)) {
      if (value != nullptr && !add_input_spec(value, &o->inputs)) args.fail(bad_input_spec(value));
    } else if (args.integer("--layer", 0, kMaxIndex, &o->layer)) {
    } else if (args.integer("--head", 0, kMaxIndex, &o->head)) {
    } else if (args.text("--svg", &o->svg) || args.text("--png", &o->png) || args.text("--matrix", &o->matrix) ||
               args.text("--title", &o->title)) {
    } else if (args.text("--row-labels", &value)) {
      if (value != nullptr) o->row_labels = split_labels(value);
    } else if (args.text("--col-labels", &value)) {
      if (value != nullptr) o->col_labels = split_labels(value);
    } else if (!args.positional(&o->model)) {
      args.refuse_current();
    }
  }
  if (!args.status().ok()) return args.status();
  if ((o->model != nullptr) == !o->matrix.empty()) {
    return Status::error(StatusCode::kInvalidArgument, "give either MODEL.focal or --matrix FILE.npy");
  }
  if (o->svg.empty() && o->png.empty()) return missing_argument("--svg or --png");
  return Status();
}

Result<Heatmap> from_matrix(const Options& o) {
  auto file = convert::read_npy(o.matrix);
  if (!file.ok()) return file.status();
  const convert::CheckpointTensor& t = file->tensors[0];
  if (t.shape.size() != 2) return Status::error(StatusCode::kInvalidArgument, "%s is not a 2-D matrix", o.matrix.c_str());
  Heatmap map;
  map.rows = size_t(t.shape[0]);
  map.cols = size_t(t.shape[1]);
  map.values = t.to_f32();
  map.row_labels = o.row_labels;
  map.col_labels = o.col_labels;
  map.title = o.title.empty() ? o.matrix : o.title;
  return map;
}

// The tokens of input_ids (row 0) as text, when the model has a tokenizer.
std::vector<std::string> token_labels(const Session& s) {
  std::vector<std::string> labels;
  const int ids_input = s.find_input("input_ids");
  auto tokenizer = Tokenizer::from_model(s.model());
  if (ids_input < 0 || !tokenizer.ok()) return labels;
  const TensorView ids = s.tensor_view(s.model().input_tensor(ids_input));
  const int64_t count = ids.shape.rank == 2 ? ids.shape.dims[1] : 0;
  for (int64_t i = 0; i < count; ++i) {
    char text[128];
    auto n = tokenizer->decode_token(static_cast<const int32_t*>(ids.data)[i], text, sizeof(text));
    labels.push_back(n.ok() ? terminal_text(std::string_view(text, n.value())) : "?");  // text from the file
  }
  return labels;
}

Result<Heatmap> from_model(const Options& o) {
  const auto loaded = load_model_or_report("attention", o.model);
  if (!loaded) return Status::error(StatusCode::kInvalidArgument, "cannot load the model");
  const Model& m = loaded->model;
  int op = -1, seen = 0;
  for (int i = 0; i < m.op_count() && op < 0; ++i) {
    if (m.op(i).attention_heads > 0 && seen++ == o.layer) op = i;
  }
  if (op < 0) return Status::error(StatusCode::kInvalidArgument, "the model has no attention layer %d", o.layer);
  const int heads = m.op(op).attention_heads;
  if (o.head >= heads) return Status::error(StatusCode::kInvalidArgument, "layer %d has %d heads", o.layer, heads);
  OwnedSession owned;
  FOCAL_RETURN_IF_ERROR(OwnedSession::open(m, SessionOptions(), &owned));
  Session* session = &owned.session();
  FOCAL_RETURN_IF_ERROR(set_npy_inputs(*session, o.inputs));
  // Room for this run: [batch, heads, q, kv], with batch, q and kv at most the planned
  // batch and the longest planned sequence (a KV cache's length included).
  int64_t batch = 1, longest = std::max<int64_t>(1, session->cache_capacity());
  for (int s = 0; s < m.symbol_count(); ++s) {
    if (std::strcmp(m.symbol(s).name, "batch") == 0) batch = m.symbol(s).max;
    else longest = std::max(longest, m.symbol(s).max);
  }
  std::vector<float> weights(size_t(batch) * size_t(heads) * size_t(longest) * size_t(longest));
  FOCAL_RETURN_IF_ERROR(session->capture_attention(op, weights.data(), weights.size()));
  // Labels before the run: the planner may reuse an input's bytes once it has been read.
  const std::vector<std::string> labels = token_labels(*session);
  FOCAL_RETURN_IF_ERROR(session->run());
  const int64_t queries = session->tensor_view(m.op_input(op, 0)).shape.dims[1];
  const int64_t keys = session->cached_length() > 0 ? session->cached_length() : queries;
  Heatmap map;
  map.rows = size_t(queries);
  map.cols = size_t(keys);
  map.values.assign(weights.begin() + long(size_t(o.head) * map.rows * map.cols),
                    weights.begin() + long(size_t(o.head + 1) * map.rows * map.cols));
  map.row_labels = labels;
  map.col_labels = labels;
  map.title = printable(m.op(op).name) + ", head " + std::to_string(o.head);
  return map;
}

}  // namespace

int attention_command(int argc, char** argv) {
  Options o;
  if (const int exit_code = parse_command_line("attention", argc, argv, kUsage, parse, &o); exit_code >= 0) return exit_code;
  Result<Heatmap> map = o.model != nullptr ? from_model(o) : from_matrix(o);
  Status status = map.status();
  std::vector<std::string> inputs = {o.model != nullptr ? o.model : o.matrix};
  for (const auto& input : o.inputs) inputs.push_back(input.second);
  for (const std::string* image : {&o.svg, &o.png}) {
    if (status.ok() && !image->empty()) status = check_output_is_not_an_input(*image, inputs);
  }
  if (status.ok() && !o.svg.empty()) {
    const std::string svg = heatmap_svg(map.value());
    status = write_file_atomically(o.svg, svg.data(), svg.size());
  }
  if (status.ok() && !o.png.empty()) {
    auto png = heatmap_png(map.value());
    status = png.ok() ? write_file_atomically(o.png, png->data(), png->size()) : png.status();
  }
  if (!status.ok()) return report_failure("attention", status);
  std::printf("%s\n%s", terminal_text(map->title).c_str(), heatmap_terminal(map.value()).c_str());
  return 0;
}

}  // namespace cli
}  // namespace focal
