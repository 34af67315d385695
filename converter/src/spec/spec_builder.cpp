// The spec's one boundary with nlohmann's exceptions: everything below reads the JSON
// through calls that may throw (a field of the wrong type, a missing key, an integer out
// of range), and build_from_spec turns what they throw into a Status naming the layer.
#include "spec/spec_builder.h"

#include <string>
#include <vector>

#include "json/json_integer.h"
#include "spec/spec_declare.h"
#include "spec/spec_expand.h"
#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace {

using nlohmann::json;
using spec::Context;

Status spec_error(const std::string& what) { return Status::error(StatusCode::kInvalidArgument, "%s", what.c_str()); }

// Layer `index`: its op builds the tensor named by its "output" (default: its name), or
// writes the declared state of that name.
Status build_layer(Context& c, const json& spec, const json& fields, size_t index) {
  const std::string name = fields.value("name", "layer" + std::to_string(index));
  c.output = fields.value("output", name);
  c.where = (c.stage >= 0 ? "stage '" + c.stages[size_t(c.stage)] + "' " : std::string()) + "layer " +
            std::to_string(index) + " '" + name + "'";
  const int state = c.state_named(c.output);
  // The op and its tensor take the output's name (model outputs are found by it); a
  // layer writing a state keeps its own name, the state's being taken.
  const std::string& op_name = state >= 0 ? name : c.output;
  const spec::Layer layer{c, spec, fields, op_name};
  if (state < 0 && c.tensors.count(c.output)) return layer.fail("output '" + c.output + "' is already defined");
  const std::string kind = fields.at("op").get<std::string>();
  const spec::LayerFn build = spec::find_layer(kind);
  if (build == nullptr) return layer.fail("unknown op '" + kind + "' (" + spec::layer_kinds() + ")");
  FOCAL_SPEC_ASSIGN(const int t, build(layer));
  FOCAL_RETURN_IF_ERROR(c.b.status());
  if (state < 0) return layer.define(c.output, t);
  // Every kind writes its output through Layer::output_tensor, so a state named as the
  // output is the tensor it wrote.
  if (t != state) return layer.fail("op '" + kind + "' cannot write state '" + c.output + "': \"copy\" its output into it");
  return Status();
}

Status build_layers(Context& c, const json& spec, const json& layers, spec::Expander& expander, size_t* index) {
  std::vector<json> flat;
  FOCAL_RETURN_IF_ERROR(expander.expand(layers, "layers", &flat));
  if (flat.empty() && c.stage >= 0) return spec_error("stage '" + c.stages[size_t(c.stage)] + "' has no layers");
  for (const json& layer : flat) FOCAL_RETURN_IF_ERROR(build_layer(c, spec, layer, (*index)++));
  return Status();
}

// Model outputs: the spec's "outputs" (made by any layer) and each stage's (made there).
void collect_outputs(Context& c, const json& spec) {
  for (const json& o : spec.value("outputs", json::array())) c.outputs[o.get<std::string>()] = "";
  for (const json& stage : spec.value("stages", json::array())) {
    const std::string name = stage.at("name").get<std::string>();
    for (const json& o : stage.value("outputs", json::array())) c.outputs[o.get<std::string>()] = name;
  }
}

// Each stage: its name, its own inputs (read by it or later stages), its layers; the
// ops of one stage run on their own (Session::run_stage).
Status build_stages(Context& c, const json& spec, spec::Expander& expander) {
  size_t index = 0;
  for (const json& stage : spec.at("stages")) {
    const std::string name = stage.at("name").get<std::string>();
    for (const std::string& earlier : c.stages) {
      if (earlier == name) return spec_error("stage '" + name + "' is defined twice");
    }
    c.stage = static_cast<int>(c.stages.size());
    c.stages.push_back(name);
    c.where = "stage '" + name + "'";
    c.b.writer().begin_stage(name);
    FOCAL_RETURN_IF_ERROR(spec::declare_inputs(c, stage.value("inputs", json::array())));
    FOCAL_RETURN_IF_ERROR(build_layers(c, spec, stage.at("layers"), expander, &index));
  }
  return Status();
}

Status check_outputs(const Context& c) {
  for (const auto& [name, stage] : c.outputs) {
    const auto it = c.tensors.find(name);
    const std::string where = stage.empty() ? "" : " of stage '" + stage + "'";
    if (it == c.tensors.end()) return spec_error("output '" + name + "'" + where + " is not produced by any layer");
    if (!c.made_in_stage.count(it->second)) {
      return spec_error("output '" + name + "' is an input or a state: a \"copy\" layer can make it an output");
    }
  }
  return Status();
}

Status build(Context& c, const json& spec) {
  spec::declare_symbols(c, spec);
  FOCAL_RETURN_IF_ERROR(spec::declare_inputs(c, spec.value("inputs", json::array())));
  FOCAL_RETURN_IF_ERROR(spec::declare_states(c, spec));
  FOCAL_RETURN_IF_ERROR(spec::declare_hyperparameters(c, spec));
  collect_outputs(c, spec);
  spec::Expander expander;
  if (spec.contains("stages") == spec.contains("layers")) {
    return spec_error("spec: give \"layers\" (one graph) or \"stages\" (each with its own \"layers\"), not both");
  }
  if (spec.contains("stages")) {
    FOCAL_RETURN_IF_ERROR(build_stages(c, spec, expander));
  } else {
    size_t index = 0;
    FOCAL_RETURN_IF_ERROR(build_layers(c, spec, spec.at("layers"), expander, &index));
  }
  FOCAL_RETURN_IF_ERROR(check_outputs(c));
  return c.b.status();
}

}  // namespace

Status build_from_spec(const json& spec, const PresetOptions& options, GraphBuilder& b) {
  Context c{b, options, {}, {}, {}, {}, "spec", "", {}, {}, -1, {}};
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
