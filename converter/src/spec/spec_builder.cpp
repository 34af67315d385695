// The spec's one boundary with nlohmann's exceptions: everything below reads the JSON
// through calls that may throw (a field of the wrong type, a missing key, an integer out
// of range), and build_from_spec turns what they throw into a Status naming the layer.
#include "spec/spec_builder.h"

#include <string>
#include <vector>

#include "json/json_integer.h"
#include "spec/spec_expand.h"
#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace {

using nlohmann::json;
using spec::Context;

Status spec_error(const std::string& what) { return Status::error(StatusCode::kInvalidArgument, "%s", what.c_str()); }

Result<GraphBuilder::Dim> input_dim(Context& c, const std::string& name, const json& d) {
  if (!d.is_string()) return GraphBuilder::Dim{json_integer(d, "input '" + name + "' shape", 1), -1};
  const auto it = c.symbols.find(d.get<std::string>());
  if (it == c.symbols.end()) return spec_error("input '" + name + "': unknown symbol '" + d.get<std::string>() + "'");
  return it->second;
}

Status declare_inputs(Context& c, const json& spec) {
  for (const json& input : spec.at("inputs")) {
    const std::string name = input.at("name").get<std::string>();
    const std::string dtype = input.value("dtype", std::string("f32"));
    if (dtype != "f32" && dtype != "i32") return spec_error("input '" + name + "': dtype must be f32 or i32");
    std::vector<GraphBuilder::Dim> dims;
    for (const json& d : input.at("shape")) {
      FOCAL_SPEC_ASSIGN(const GraphBuilder::Dim dim, input_dim(c, name, d));
      dims.push_back(dim);
    }
    const int t = c.b.input(name, dtype == "f32" ? DType::kF32 : DType::kI32, dims);
    c.tensors[name] = t;
    if (dtype == "i32") c.int_tensors.insert(t);
  }
  return Status();
}

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

// Layer `index`: its op builds the tensor named by its "output" (default: its name).
Status build_layer(Context& c, const json& spec, const json& fields, size_t index) {
  const std::string name = fields.value("name", "layer" + std::to_string(index));
  const std::string output = fields.value("output", name);
  c.where = "layer " + std::to_string(index) + " '" + name + "'";
  // The tensor (and its op) take the output's name: model outputs are found by it.
  const spec::Layer layer{c, spec, fields, output};
  if (c.tensors.count(output)) return layer.fail("output '" + output + "' is already defined");
  const std::string kind = fields.at("op").get<std::string>();
  const spec::LayerFn build = spec::find_layer(kind);
  if (build == nullptr) return layer.fail("unknown op '" + kind + "' (" + spec::layer_kinds() + ")");
  FOCAL_SPEC_ASSIGN(const int t, build(layer));
  FOCAL_RETURN_IF_ERROR(c.b.status());
  return layer.define(output, t);
}

Status build(Context& c, const json& spec) {
  declare_symbols(c, spec);
  FOCAL_RETURN_IF_ERROR(declare_inputs(c, spec));
  for (const json& o : spec.at("outputs")) c.outputs.insert(o.get<std::string>());
  std::vector<json> layers;
  FOCAL_RETURN_IF_ERROR(spec::expand_layers(spec.at("layers"), &layers));
  for (size_t i = 0; i < layers.size(); ++i) FOCAL_RETURN_IF_ERROR(build_layer(c, spec, layers[i], i));
  for (const std::string& o : c.outputs) {
    if (!c.tensors.count(o)) return spec_error("output '" + o + "' is not produced by any layer");
  }
  return c.b.status();
}

}  // namespace

Status build_from_spec(const json& spec, const PresetOptions& options, GraphBuilder& b) {
  Context c{b, options, {}, {}, {}, {}, "spec"};
  try {
    return build(c, spec);
  } catch (const nlohmann::json::exception& e) {
    return Status::error(StatusCode::kInvalidArgument, "%s: %s", c.where.c_str(), e.what());
  } catch (const JsonFieldError& e) {
    return Status::error(StatusCode::kInvalidArgument, "%s: %s", c.where.c_str(), e.what());
  }
}

}  // namespace convert
}  // namespace focal
