#include "spec/spec_context.h"

namespace focal {
namespace convert {
namespace spec {
namespace {

// [out, in] from the stored layout `layout` of `m`, or an error naming the weight.
Result<Matrix> as_out_in(const Layer& l, Matrix m, const std::string& name, const std::string& layout) {
  const auto& s = m.shape;
  if (layout == "conv1x1") {  // PyTorch Conv1d/Conv2d [out, in, 1(, 1)]
    if (s.size() < 3 || s.size() > 4 || s[2] != 1 || (s.size() == 4 && s[3] != 1)) {
      return l.fail(name + " is not a 1x1 conv kernel [out, in, 1(, 1)]");
    }
    m.shape = {s[0], s[1]};
    return m;
  }
  if (layout == "conv1x1_in_out") {  // Keras Conv1D/Conv2D [1(, 1), in, out]
    if (s.size() < 3 || s.size() > 4 || s[0] != 1 || (s.size() == 4 && s[1] != 1)) {
      return l.fail(name + " is not a 1x1 conv kernel [1(, 1), in, out]");
    }
    m.shape = {s[s.size() - 2], s.back()};
    return transposed(m);
  }
  if (layout == "in_out" || layout == "out_in") {  // Keras Dense, GPT-2 Conv1D; PyTorch nn.Linear
    if (s.size() != 2) return l.fail(name + " must be 2-D");
    return layout == "in_out" ? transposed(m) : m;
  }
  return l.fail("unknown weight layout '" + layout + "' (out_in, in_out, conv1x1, conv1x1_in_out)");
}

}  // namespace

Status Layer::fail(const std::string& what) const {
  return Status::error(StatusCode::kInvalidArgument, "%s: %s", c.where.c_str(), what.c_str());
}

Result<int> Layer::tensor_named(const std::string& tensor_name) const {
  const auto it = c.tensors.find(tensor_name);
  if (it == c.tensors.end()) return fail("reads '" + tensor_name + "', which no input or earlier layer defines");
  return it->second;
}

Result<int> Layer::tensor(const char* key) const {
  if (!fields.contains(key)) return fail(std::string("needs \"") + key + "\"");
  return tensor_named(text(key));
}

Result<int> Layer::optional_tensor(const char* key) const { return has(key) ? tensor(key) : Result<int>(-1); }

Result<int64_t> Layer::width(int tensor) const {
  const std::vector<GraphBuilder::Dim> d = c.b.dims(tensor);
  if (d.empty()) return fail("reads a tensor without dims (an input needs a \"shape\")");
  return d.back().size;
}

Status Layer::define(const std::string& tensor_name, int tensor) const {
  if (c.tensors.count(tensor_name)) return fail("output '" + tensor_name + "' is already defined");
  c.tensors[tensor_name] = tensor;
  if (c.outputs.count(tensor_name)) c.b.writer().make_output(tensor);
  return Status();
}

std::string Layer::weight_layout() const {
  if (fields.contains("layout")) return text("layout");
  return spec.value("weight_layout", std::string("out_in"));
}

Result<Matrix> Layer::checkpoint(const std::string& weight) const {
  Result<Matrix> got = c.b.weights().get_any(weight);
  if (!got.ok()) return fail(got.status().message());
  return std::move(got.value());
}

Result<Matrix> Layer::dense_weight(const std::string& weight, int64_t in) const {
  FOCAL_SPEC_ASSIGN(Matrix stored, checkpoint(weight));
  FOCAL_SPEC_ASSIGN(Matrix m, as_out_in(*this, std::move(stored), weight, weight_layout()));
  if (m.shape[1] != in) {
    return fail(weight + " takes " + std::to_string(m.shape[1]) + " inputs, the layer's input has " +
                std::to_string(in));
  }
  return m;
}

int Layer::bias(const char* key, int64_t out) const {
  return has(key) ? c.b.param(text(key), {out}) : -1;
}

Result<fb::Activation> Layer::activation(const std::string& kind) const {
  static const std::map<std::string, fb::Activation> kinds = {
      {"none", fb::Activation_None},          {"relu", fb::Activation_Relu}, {"gelu", fb::Activation_GeluErf},
      {"gelu_tanh", fb::Activation_GeluTanh}, {"silu", fb::Activation_Silu}, {"tanh", fb::Activation_Tanh}};
  const auto it = kinds.find(kind);
  if (it == kinds.end()) return fail("unknown activation '" + kind + "' (none, relu, gelu, gelu_tanh, silu, tanh)");
  return it->second;
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
