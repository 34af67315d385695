// focal inspect MODEL [--json]: what a model file holds, for people or for scripts.
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/loaded_model.h"
#include "focal/session.h"

namespace focal {
namespace cli {
namespace {

const char* kUsage =
    "usage: focal inspect MODEL.focal [--json]\n"
    "Prints the model's ops, tensors (dtype, shape, bytes, arena offset), parameter count\n"
    "and bytes, the exact arena size and a classifier's label names. Exits 1 with the\n"
    "loader's message on a bad file.\n";

nlohmann::json tensor_json(const Model& model, int index) {
  const TensorInfo t = model.tensor(index);
  nlohmann::json shape = nlohmann::json::array(), symbols = nlohmann::json::array();
  for (int i = 0; i < t.shape.rank; ++i) {
    shape.push_back(t.shape.dims[i]);
    symbols.push_back(t.dim_symbols[i] >= 0 ? nlohmann::json(model.symbol(t.dim_symbols[i]).name)
                                            : nlohmann::json(nullptr));
  }
  nlohmann::json j = {{"index", index},
                      {"name", t.name},
                      {"role", tensor_role_name(t.role)},
                      {"dtype", dtype_name(t.dtype)},
                      {"shape", shape},
                      {"dim_symbols", symbols},
                      {"bytes", t.max_bytes}};
  if (t.role != TensorRole::kConstant) j["arena_offset"] = t.arena_offset;
  if (t.role == TensorRole::kInput && t.absent_fill >= 0) j["absent_fill"] = t.absent_fill;  // optional
  return j;
}

// A classifier's label names (hyperparameters label.0, label.1, ...), by id.
std::vector<std::string> label_names(const Model& m) {
  std::vector<std::string> names;
  while (const char* name = m.hyperparameter(("label." + std::to_string(names.size())).c_str())) names.push_back(name);
  return names;
}

nlohmann::json model_json(const LoadedModel& loaded) {
  const Model& m = loaded.model;
  nlohmann::json j;
  j["file"] = loaded.path;
  j["file_bytes"] = m.size();
  j["format_version"] = m.version();
  j["architecture"] = m.architecture();
  j["producer"] = m.producer();
  j["parameter_count"] = m.parameter_count();
  j["parameter_bytes"] = m.parameter_bytes();
  j["arena_bytes"] = m.arena_bytes();  // planned activations
  const auto session_bytes = Session::required_arena_bytes(m, SessionOptions());
  j["session_arena_bytes"] = session_bytes.ok() ? session_bytes.value() : 0;  // + kernel scratch, 1 thread
  j["self_tests"] = m.self_test_count();
  j["labels"] = label_names(m);
  j["symbols"] = nlohmann::json::array();
  for (int s = 0; s < m.symbol_count(); ++s) {
    j["symbols"].push_back({{"name", m.symbol(s).name}, {"max", m.symbol(s).max}});
  }
  j["inputs"] = nlohmann::json::array();
  for (int i = 0; i < m.input_count(); ++i)
    j["inputs"].push_back(tensor_json(m, m.input_tensor(i)));
  j["outputs"] = nlohmann::json::array();
  for (int i = 0; i < m.output_count(); ++i)
    j["outputs"].push_back(tensor_json(m, m.output_tensor(i)));
  j["stages"] = nlohmann::json::array();
  for (int s = 0; s < m.stage_count(); ++s) {
    j["stages"].push_back({{"name", m.stage(s).name}, {"first_op", m.stage(s).first_op},
                           {"op_count", m.stage(s).op_count}});
  }
  j["ops"] = nlohmann::json::array();
  for (int o = 0; o < m.op_count(); ++o) {
    const OpInfo op = m.op(o);
    nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array();
    for (int i = 0; i < op.input_count; ++i) {
      const int t = m.op_input(o, i);
      inputs.push_back(t >= 0 ? nlohmann::json(m.tensor(t).name) : nlohmann::json(nullptr));
    }
    for (int i = 0; i < op.output_count; ++i) outputs.push_back(m.tensor(m.op_output(o, i)).name);
    j["ops"].push_back({{"index", o},
                        {"kind", op.kind},
                        {"name", op.name},
                        {"inputs", inputs},
                        {"outputs", outputs}});
  }
  j["tensors"] = nlohmann::json::array();
  for (int t = 0; t < m.tensor_count(); ++t) j["tensors"].push_back(tensor_json(m, t));
  return j;
}

std::string join_names(const Model& m, int op, bool outputs) {
  const OpInfo info = m.op(op);
  std::string text;
  const int count = outputs ? info.output_count : info.input_count;
  for (int i = 0; i < count; ++i) {
    if (i > 0) text += ", ";
    const int t = outputs ? m.op_output(op, i) : m.op_input(op, i);
    text += t >= 0 ? printable(m.tensor(t).name) : "-";  // "-": an absent optional operand
  }
  return text;
}

void print_table(const LoadedModel& loaded) {
  const Model& m = loaded.model;
  // Names and metadata come from the file: printable() keeps their bytes from acting on
  // the terminal.
  std::printf("model        %s (%zu bytes, format v%u, checksum ok)\n", printable(loaded.path).c_str(),
              m.size(), m.version());
  std::printf("architecture %s\nproducer     %s\n", printable(m.architecture()).c_str(),
              printable(m.producer()).c_str());
  const auto session_bytes = Session::required_arena_bytes(m, SessionOptions());
  std::printf("parameters   %llu (%llu bytes)\n", static_cast<unsigned long long>(m.parameter_count()),
              static_cast<unsigned long long>(m.parameter_bytes()));
  std::printf("arena        %llu bytes of planned activations, %zu with kernel scratch (1 thread)\n",
              static_cast<unsigned long long>(m.arena_bytes()),
              session_bytes.ok() ? session_bytes.value() : size_t(0));
  for (int s = 0; s < m.symbol_count(); ++s) {
    std::printf("symbol       %s <= %lld\n", printable(m.symbol(s).name).c_str(),
                static_cast<long long>(m.symbol(s).max));
  }
  for (int i = 0; i < m.input_count(); ++i) {
    const TensorInfo t = m.tensor(m.input_tensor(i));
    std::printf("input        %s %s%s\n", printable(t.name).c_str(), describe_tensor(m, t).c_str(),
                t.absent_fill < 0 ? "" : t.absent_fill == 1 ? " (optional: unset, all 1s)" : " (optional: unset, all 0s)");
  }
  for (int i = 0; i < m.output_count(); ++i) {
    const TensorInfo t = m.tensor(m.output_tensor(i));
    std::printf("output       %s %s\n", printable(t.name).c_str(), describe_tensor(m, t).c_str());
  }
  const std::vector<std::string> labels = label_names(m);
  for (size_t i = 0; i < labels.size(); ++i) std::printf("label        %zu %s\n", i, printable(labels[i]).c_str());
  for (int s = 0; s < m.stage_count(); ++s) {
    const StageInfo stage = m.stage(s);
    std::printf("stage        %s: ops %d to %d\n", printable(stage.name).c_str(), stage.first_op,
                stage.first_op + stage.op_count - 1);
  }
  std::printf("\n%-4s %-10s %-16s %s\n", "op", "kind", "name", "inputs -> outputs");
  for (int o = 0; o < m.op_count(); ++o) {
    std::printf("%-4d %-10s %-16s %s -> %s\n", o, m.op(o).kind, printable(m.op(o).name).c_str(),
                join_names(m, o, false).c_str(), join_names(m, o, true).c_str());
  }
  std::printf("\n%-4s %-16s %-10s %-32s %10s %12s\n", "#", "tensor", "role", "dtype [shape]",
              "bytes", "arena offset");
  for (int t = 0; t < m.tensor_count(); ++t) {
    const TensorInfo info = m.tensor(t);
    const std::string offset =
        info.role == TensorRole::kConstant ? "-" : std::to_string(info.arena_offset);
    std::printf("%-4d %-16s %-10s %-32s %10zu %12s\n", t, printable(info.name).c_str(), tensor_role_name(info.role),
                describe_tensor(m, info).c_str(), info.max_bytes, offset.c_str());
  }
}

struct Options {
  const char* model = nullptr;
  bool json = false;
};

Status parse(int argc, char** argv, Options* o) {
  Arguments args(argc, argv);
  while (args.more()) {
    if (args.flag("--json")) {
      o->json = true;
    } else if (!args.positional(&o->model)) {
      args.refuse_current();
    }
  }
  if (!args.status().ok()) return args.status();
  return o->model != nullptr ? Status() : missing_argument("MODEL.focal");
}

}  // namespace

int inspect_command(int argc, char** argv) {
  Options o;
  if (const int exit_code = parse_command_line("inspect", argc, argv, kUsage, parse, &o); exit_code >= 0) {
    return exit_code;
  }
  const char* path = o.model;
  const bool json = o.json;
  const auto loaded = load_model_or_report("inspect", path);
  if (!loaded) return 1;
  if (json) {
    // Invalid UTF-8 in a name becomes U+FFFD instead of an exception; JSON escapes the
    // control characters itself.
    std::printf("%s\n", model_json(*loaded).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    print_table(*loaded);
  }
  return 0;
}

}  // namespace cli
}  // namespace focal
