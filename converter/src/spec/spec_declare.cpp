#include "spec/spec_declare.h"

#include <string>
#include <vector>

#include "json/json_integer.h"
#include "spec/spec_expand.h"

namespace focal {
namespace convert {
namespace spec {
namespace {

Status spec_error(const std::string& what) { return Status::error(StatusCode::kInvalidArgument, "%s", what.c_str()); }

Result<GraphBuilder::Dim> dim_of(Context& c, const std::string& what, const json& d) {
  if (!d.is_string()) return GraphBuilder::Dim{json_integer(d, what + " shape", 1), -1};
  const auto it = c.symbols.find(d.get<std::string>());
  if (it == c.symbols.end()) return spec_error(what + ": unknown symbol '" + d.get<std::string>() + "'");
  return it->second;
}

// A declared tensor's name, dtype and dims ("what" is "input" or "state", for messages).
struct Declared {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<GraphBuilder::Dim> dims;
};

Result<Declared> declared(Context& c, const char* what, const json& entry) {
  Declared d;
  d.name = entry.at("name").get<std::string>();
  const std::string label = std::string(what) + " '" + d.name + "'";
  if (c.tensors.count(d.name)) return spec_error(label + " is already defined");
  const std::string dtype = entry.value("dtype", std::string("f32"));
  if (dtype != "f32" && dtype != "i32") return spec_error(label + ": dtype must be f32 or i32");
  d.dtype = dtype == "f32" ? DType::kF32 : DType::kI32;
  for (const json& size : entry.at("shape")) {
    FOCAL_SPEC_ASSIGN(const GraphBuilder::Dim dim, dim_of(c, label, size));
    d.dims.push_back(dim);
  }
  if (d.dims.empty()) return spec_error(label + " needs a \"shape\" of at least one dim");
  return d;
}

void record(Context& c, const Declared& d, int tensor) {
  c.tensors[d.name] = tensor;
  if (d.dtype == DType::kI32) c.int_tensors.insert(tensor);
}

}  // namespace

void declare_symbols(Context& c, const json& spec) {
  int64_t batch = c.options.max_batch, seq = c.options.max_seq;
  const json symbols = spec.value("symbols", json::object());
  if (seq == 0) seq = json_integer_or(symbols, "seq", 128, 1);
  if (symbols.contains("batch") && c.options.max_batch <= 1) batch = json_integer(symbols.at("batch"), "batch", 1);
  c.symbols["batch"] = {batch, c.b.symbol("batch", batch)};
  c.symbols["seq"] = {seq, c.b.symbol("seq", seq)};
  for (auto it = symbols.begin(); it != symbols.end(); ++it) {
    if (it.key() == "batch" || it.key() == "seq") continue;
    const int64_t max = json_integer(it.value(), it.key(), 1);
    c.symbols[it.key()] = {max, c.b.symbol(it.key(), max)};
  }
}

Status declare_inputs(Context& c, const json& inputs) {
  for (const json& input : inputs) {
    FOCAL_SPEC_ASSIGN(const Declared d, declared(c, "input", input));
    record(c, d, c.b.input(d.name, d.dtype, d.dims));
  }
  return Status();
}

Status declare_states(Context& c, const json& spec) {
  std::vector<json> states;
  FOCAL_RETURN_IF_ERROR(Expander().expand(spec.value("state", json::array()), "state", &states));
  for (const json& state : states) {
    FOCAL_SPEC_ASSIGN(const Declared d, declared(c, "state", state));
    const int t = c.b.state(d.name, d.dtype, d.dims);
    record(c, d, t);
    c.states.insert(t);
  }
  return Status();
}

Status declare_hyperparameters(Context& c, const json& spec) {
  const json values = spec.value("hyperparameters", json::object());
  if (!values.is_object()) return spec_error("\"hyperparameters\" must be an object of numbers or strings");
  for (auto it = values.begin(); it != values.end(); ++it) {
    if (!it->is_string() && !it->is_number()) {
      return spec_error("hyperparameter '" + it.key() + "' must be a number or a string");
    }
    c.b.writer().add_hyperparameter(it.key(), it->is_string() ? it->get<std::string>() : it->dump());
  }
  return Status();
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
