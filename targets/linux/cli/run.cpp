// focal run MODEL --input NAME=FILE.npy [...] --output-dir DIR [--threads N]: runs a
// model on .npy inputs (or on text, --text, with the model's tokenizer) and writes
// DIR/<output name>.npy for every output, or prints the outputs without --output-dir; a
// classifier with label names also prints each row's most probable label.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/loaded_model.h"
#include "cli/npy_inputs.h"
#include "cli/npy_outputs.h"
#include "cli/printable.h"
#include "cli/text_inputs.h"
#include "cpu_cores.h"
#include "focal/session.h"
#include "owned_session.h"

namespace focal {
namespace cli {
namespace {

const char* kUsage =
    "usage: focal run MODEL.focal --input NAME=FILE.npy [--input ...] --output-dir DIR\n"
    "                 [--threads N]\n"
    "       focal run MODEL.focal --text TEXT [--text-pair TEXT] [--output-dir DIR]\n"
    "                 [--threads N]\n"
    "Runs the model once on the given inputs (every model input is needed but an optional\n"
    "mask, which left out counts every position valid, as inspect shows; symbolic dims\n"
    "such as batch and seq take the arrays' sizes) and writes DIR/<output>.npy for each\n"
    "output. Float arrays feed f32 inputs; integer arrays feed i32 inputs (token ids),\n"
    "exactly: a value outside int32 is refused. An output whose name is not a safe file\n"
    "name (letters, digits, '_', '-', '.', not starting with '.') is refused, and then\n"
    "nothing is written. Each file is written whole or not at all. A classifier converted\n"
    "with label names (config.json's id2label) also prints, for each row of 'logits', the\n"
    "most probable label and its softmax probability.\n"
    "  --text TEXT        encode TEXT with the model's tokenizer as transformers'\n"
    "                     tokenizer(TEXT) does for an encoder: input_ids [1, n] with the\n"
    "                     special tokens ([CLS] TEXT [SEP]), attention_mask of ones and\n"
    "                     token_type_ids of zeros, each when the model has that input\n"
    "  --text-pair TEXT   a second text ([CLS] TEXT [SEP] PAIR [SEP]); its tokens and the\n"
    "                     specials after the first text's get token_type_ids 1\n"
    "  --output-dir DIR   write DIR/<output>.npy; with --text it may be left out, and then\n"
    "                     each output prints as its shape, and its values one row of the\n"
    "                     last dim a line, when it has at most 2 dims (pooler_output,\n"
    "                     sentence_embedding, logits)\n";

struct Options {
  const char* model = nullptr;
  NpyInputs inputs;  // name, file
  std::string text, pair;
  bool has_text = false, has_pair = false;
  std::string output_dir;
  int threads = physical_core_count();
};

Status parse(int argc, char** argv, Options* o) {
  Arguments args(argc, argv);
  while (args.more()) {
    const char* spec = nullptr;
    if (args.text("--input", &spec)) {
      if (spec != nullptr && !add_input_spec(spec, &o->inputs)) args.fail(bad_input_spec(spec));
    } else if (args.text("--text", &spec)) {
      o->has_text = spec != nullptr;
      if (spec != nullptr) o->text = spec;
    } else if (args.text("--text-pair", &spec)) {
      o->has_pair = spec != nullptr;
      if (spec != nullptr) o->pair = spec;
    } else if (args.text("--output-dir", &o->output_dir)) {
    } else if (args.integer("--threads", 1, kMaxThreads, &o->threads)) {
    } else if (!args.positional(&o->model)) {
      args.refuse_current();
    }
  }
  if (!args.status().ok()) return args.status();
  if (o->model == nullptr) return missing_argument("MODEL.focal");
  if (o->has_pair && !o->has_text) return Status::error(StatusCode::kInvalidArgument, "--text-pair needs --text");
  if (o->output_dir.empty() && !o->has_text) return missing_argument("--output-dir");
  for (const auto& input : o->inputs) {
    const std::string& name = input.first;
    if (o->has_text && (name == "input_ids" || name == "attention_mask" || name == "token_type_ids")) {
      return Status::error(StatusCode::kInvalidArgument, "--text gives %s: drop --input %s", name.c_str(),
                           name.c_str());
    }
  }
  return Status();
}

// Every output name is checked before the first file is written: a model naming an
// output "../x" writes nothing at all.
Status write_outputs(const Session& session, const std::string& dir) {
  for (int i = 0; i < session.output_count(); ++i) {
    FOCAL_RETURN_IF_ERROR(check_output_file_name(session.output(i).name));
  }
  for (int i = 0; i < session.output_count(); ++i) {
    const TensorView out = session.output(i);
    std::vector<int64_t> shape(out.shape.dims, out.shape.dims + out.shape.rank);
    const convert::ElementType type = out.dtype == DType::kI32 ? convert::ElementType::kI32 : convert::ElementType::kF32;
    const size_t bytes = static_cast<size_t>(out.shape.element_count()) * dtype_size(out.dtype);
    FOCAL_RETURN_IF_ERROR(write_npy_file(dir + "/" + out.name + ".npy", type, shape, out.data, bytes));
    std::printf("%s: %s -> %s/%s.npy\n", out.name, dtype_name(out.dtype), dir.c_str(), out.name);
  }
  return Status();
}

// Without --output-dir (with --text): each output's name, dtype and shape, and the values
// of outputs of at most 2 dims, one row of the last dim a line (a [1, hidden] embedding is
// one line); larger ones say how to write them.
void print_outputs(const Session& session) {
  for (int i = 0; i < session.output_count(); ++i) {
    const TensorView out = session.output(i);
    std::string dims;
    for (int d = 0; d < out.shape.rank; ++d) dims += (d ? ", " : "") + std::to_string(out.shape.dims[d]);
    std::printf("%s: %s [%s]%s\n", printable(out.name).c_str(), dtype_name(out.dtype), dims.c_str(),
                out.shape.rank > 2 ? " (--output-dir DIR writes it)" : "");
    if (out.shape.rank > 2 || out.shape.rank == 0) continue;
    const int64_t width = out.shape.dims[out.shape.rank - 1], rows = out.shape.element_count() / (width ? width : 1);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < width; ++c) {
        const int64_t at = r * width + c;
        if (out.dtype == DType::kI32) std::printf("%s%d", c ? " " : "  ", static_cast<int>(out.as<int32_t>()[at]));
        if (out.dtype == DType::kF32) std::printf("%s%.7g", c ? " " : "  ", static_cast<double>(out.as<float>()[at]));
      }
      std::printf("\n");
    }
  }
}

// A classifier converted with label names (Hugging Face's id2label, stored as
// hyperparameters label.0, label.1, ...): each row of `logits` [batch, labels] as its most
// probable label and that label's softmax probability. Nothing for other models.
void print_labels(const Session& session) {
  const Model& model = session.model();
  const int index = session.find_output("logits");
  if (index < 0 || model.hyperparameter("label.0") == nullptr) return;
  const TensorView logits = session.output(index);
  if (logits.dtype != DType::kF32 || logits.shape.rank != 2) return;
  const int64_t rows = logits.shape.dims[0], labels = logits.shape.dims[1];
  const float* data = static_cast<const float*>(logits.data);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = data + r * labels;
    const int64_t best = std::max_element(row, row + labels) - row;
    double sum = 0.0;
    for (int64_t i = 0; i < labels; ++i) sum += std::exp(static_cast<double>(row[i]) - row[best]);
    const char* name = model.hyperparameter(("label." + std::to_string(best)).c_str());
    std::printf("logits[%lld]: %s (p=%.4f)\n", static_cast<long long>(r),
                printable(name != nullptr ? name : ("label " + std::to_string(best)).c_str()).c_str(), 1.0 / sum);
  }
}

}  // namespace

int run_command(int argc, char** argv) {
  Options o;
  const auto loaded = start_command("run", argc, argv, kUsage, parse, &o);
  if (!loaded) return loaded.exit_code();
  SessionOptions options;
  OwnedSession owned;
  Status status = OwnedSession::open(loaded->model, options, o.threads, &owned);
  if (status.ok()) status = set_npy_inputs(owned.session(), o.inputs);
  if (status.ok() && o.has_text) status = set_text_inputs(owned.session(), o.text, o.has_pair ? &o.pair : nullptr);
  if (status.ok()) status = owned.session().run();
  if (status.ok() && !o.output_dir.empty()) {
    ::mkdir(o.output_dir.c_str(), 0755);  // may exist already; the writes report failures
    status = write_outputs(owned.session(), o.output_dir);
  } else if (status.ok()) {
    print_outputs(owned.session());
  }
  if (status.ok()) print_labels(owned.session());
  if (!status.ok()) return report_failure("run", status);
  return 0;
}

}  // namespace cli
}  // namespace focal
