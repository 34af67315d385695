// What every spec layer builds with: the graph builder, the spec's named tensors and
// symbols, and checked readers of a layer's fields. Errors are Status values naming the
// layer ("layer 3 'attn': ..."); nlohmann's exceptions from reading the JSON are caught
// once, where build_from_spec reads the spec (spec/spec_builder.cpp).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "presets/graph_builder.h"
#include "presets/preset.h"

namespace focal {
namespace convert {
namespace spec {

using nlohmann::json;

// `lhs = value of expr`, or return its Status from the enclosing function. `lhs` may be
// a declaration (`const int x`), which parentheses would break.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define FOCAL_SPEC_JOIN(a, b) a##b
#define FOCAL_SPEC_RESULT(line) FOCAL_SPEC_JOIN(spec_result_, line)
#define FOCAL_SPEC_ASSIGN(lhs, expr) FOCAL_SPEC_ASSIGN_AT(FOCAL_SPEC_RESULT(__LINE__), lhs, expr)
#define FOCAL_SPEC_ASSIGN_AT(result, lhs, expr) \
  auto result = (expr);                         \
  if (!result.ok()) return result.status();     \
  lhs = std::move(result.value())
// NOLINTEND(bugprone-macro-parentheses)

struct Context {
  GraphBuilder& b;
  const PresetOptions& options;
  std::map<std::string, int> tensors;  // spec name -> tensor index
  std::set<int> int_tensors;           // i32 tensors (ids, masks), for ops that keep the dtype
  std::map<std::string, GraphBuilder::Dim> symbols;
  std::map<std::string, std::string> outputs;  // model output -> the stage that must make it ("": any)
  std::string where;   // "layer 3 'attn'" for messages
  std::string output;  // the "output" of the layer being built
  // Declared "state" tensors: kept in the arena across runs, written by any layer whose
  // output names them.
  std::set<int> states;
  // Stages: their names, the one being built (-1 in a flat spec) and the stage each
  // activation was made in (a stage runs alone: only inputs and states cross stages).
  std::vector<std::string> stages;
  int stage = -1;
  std::map<int, int> made_in_stage;

  // The declared state named `name`; -1 when it is not one.
  int state_named(const std::string& name) const;
  // "[batch, seq, 32]": dims with their symbols' names, for messages.
  std::string describe(const std::vector<GraphBuilder::Dim>& dims) const;
};

// One layer being built: its JSON, the whole spec (for defaults such as
// "weight_layout") and the name its output tensor and op take.
struct Layer {
  Context& c;
  const json& spec;
  const json& fields;
  const std::string& name;  // its op's name: the output's, or the layer's own when the output is a state

  // An InvalidArgument status prefixed with the layer.
  Status fail(const std::string& what) const;
  bool has(const char* key) const { return fields.contains(key) && !fields.at(key).is_null(); }
  std::string text(const char* key) const { return fields.at(key).get<std::string>(); }
  std::string text_or(const char* key, const std::string& fallback) const {
    return fields.value(key, fallback);
  }

  // The tensor a field names (an input or an earlier layer's output); -1 when an
  // optional field is absent.
  Result<int> tensor(const char* key) const;
  Result<int> optional_tensor(const char* key) const;
  Result<int> tensor_named(const std::string& tensor_name) const;
  // The tensor's last dim (a feature width).
  Result<int64_t> width(int tensor) const;
  // A new tensor named `name` defined by this layer besides its output (a final state).
  Status define(const std::string& tensor_name, int tensor) const;
  // The tensor the layer writes its output to: the declared state its "output" names,
  // checked to have `dims` and `dtype`, or else a new activation.
  Result<int> output_tensor(const std::vector<GraphBuilder::Dim>& dims, DType dtype = DType::kF32) const;
  // The same for a further output that field `key` names (a final state, attention
  // weights): a declared state, or an activation of the field's name (model outputs are
  // found by it). -1 when the field is absent.
  Result<int> extra_output(const char* key, const std::vector<GraphBuilder::Dim>& dims) const;

  // A dense weight as [out, in] (from the layer's or the spec's "layout"), checked to
  // take `in` inputs: a checkpoint tensor reference or a fill (spec/spec_tensor_refs.h).
  Result<Matrix> dense_weight(const json& weight, int64_t in) const;
  std::string weight_layout() const;
  // A checkpoint tensor of any shape, by name or a block of one ("name[:, 20:60]").
  Result<Matrix> checkpoint(const std::string& weight) const;
  // What a weight field holds: a checkpoint reference or {"fill": v, "shape": [...]}.
  Result<Matrix> stored(const json& weight) const;
  // The bias a field names (as `stored`), [out], as a constant; -1 when absent.
  int bias(const char* key, int64_t out) const;
  // A vector of `n` from the checkpoint, stored [n], [1, n] (PyTorch nn.Linear(n, 1)'s
  // weight) or [n, 1] (a Keras Dense(1) kernel), as a constant [n].
  Result<int> vector_param(const std::string& weight, int64_t n) const;
  Result<fb::Activation> activation(const std::string& kind) const;
};

}  // namespace spec
}  // namespace convert
}  // namespace focal
