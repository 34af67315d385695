#include "spec/spec_context.h"

#include "spec/spec_tensor_refs.h"

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

bool same_dims(const std::vector<GraphBuilder::Dim>& a, const std::vector<GraphBuilder::Dim>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].size != b[i].size || a[i].symbol != b[i].symbol) return false;
  }
  return true;
}

}  // namespace

int Context::state_named(const std::string& name) const {
  const auto it = tensors.find(name);
  return it != tensors.end() && states.count(it->second) ? it->second : -1;
}

std::string Context::describe(const std::vector<GraphBuilder::Dim>& dims) const {
  std::string text = "[";
  for (const GraphBuilder::Dim& d : dims) {
    std::string dim = std::to_string(d.size);
    for (const auto& [symbol, value] : symbols) {
      if (d.symbol >= 0 && value.symbol == d.symbol) dim = symbol;
    }
    text += (text.size() > 1 ? ", " : "") + dim;
  }
  return text + "]";
}

Status Layer::fail(const std::string& what) const {
  return Status::error(StatusCode::kInvalidArgument, "%s: %s", c.where.c_str(), what.c_str());
}

Result<int> Layer::tensor_named(const std::string& tensor_name) const {
  const auto it = c.tensors.find(tensor_name);
  if (it == c.tensors.end()) return fail("reads '" + tensor_name + "', which no input or earlier layer defines");
  const auto made = c.made_in_stage.find(it->second);
  if (made != c.made_in_stage.end() && made->second != c.stage) {
    return fail("reads '" + tensor_name + "', made in stage '" + c.stages[size_t(made->second)] +
                "': a stage runs alone, so only inputs and states cross stages (declare '" + tensor_name +
                "' under \"state\" and let that layer write it)");
  }
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
  c.made_in_stage[tensor] = c.stage;
  const auto output = c.outputs.find(tensor_name);
  if (output == c.outputs.end()) return Status();
  const std::string stage = c.stage >= 0 ? c.stages[size_t(c.stage)] : "";
  if (!output->second.empty() && output->second != stage) {
    return fail("makes '" + tensor_name + "', an output of stage '" + output->second + "', in another stage");
  }
  c.b.writer().make_output(tensor);
  return Status();
}

Result<int> Layer::output_tensor(const std::vector<GraphBuilder::Dim>& dims, DType dtype) const {
  const std::string& output = c.output;
  const int state = c.state_named(output);
  if (state < 0) return c.b.activation(name, dims, dtype);
  const DType state_dtype = c.int_tensors.count(state) ? DType::kI32 : DType::kF32;
  if (!same_dims(c.b.dims(state), dims) || state_dtype != dtype) {
    return fail("writes state '" + output + "' " + focal::dtype_name(state_dtype) + " " +
                c.describe(c.b.dims(state)) + ", but its output is " + focal::dtype_name(dtype) + " " +
                c.describe(dims));
  }
  return state;
}

Result<int> Layer::extra_output(const char* key, const std::vector<GraphBuilder::Dim>& dims) const {
  if (!has(key)) return -1;
  const std::string tensor_name = text(key);
  const int state = c.state_named(tensor_name);
  if (state < 0) {
    const int t = c.b.activation(tensor_name, dims);
    FOCAL_RETURN_IF_ERROR(define(tensor_name, t));
    return t;
  }
  if (!same_dims(c.b.dims(state), dims) || c.int_tensors.count(state)) {
    return fail(std::string("\"") + key + "\" writes state '" + tensor_name + "' " + c.describe(c.b.dims(state)) +
                ", but that output is f32 " + c.describe(dims));
  }
  return state;
}

std::string Layer::weight_layout() const {
  if (fields.contains("layout")) return text("layout");
  return spec.value("weight_layout", std::string("out_in"));
}

Result<Matrix> Layer::checkpoint(const std::string& weight) const {
  Result<TensorRef> ref = c.b.weights().has(weight) ? Result<TensorRef>(TensorRef{weight, {}}) : parse_tensor_ref(weight);
  if (!ref.ok()) return fail(ref.status().message());
  Result<Matrix> got = c.b.weights().get_any(ref->name);
  if (!got.ok()) return fail(got.status().message());
  Result<Matrix> block = tensor_block(got.value(), ref.value(), weight);
  if (!block.ok()) return fail(block.status().message());
  return std::move(block.value());
}

Result<Matrix> Layer::stored(const json& weight) const {
  if (!weight.is_object()) return checkpoint(weight.get<std::string>());
  Result<Matrix> m = filled_tensor(weight);
  if (!m.ok()) return fail(m.status().message());
  return std::move(m.value());
}

Result<Matrix> Layer::dense_weight(const json& ref, int64_t in) const {
  const std::string weight = ref.is_object() ? ref.dump() : ref.get<std::string>();
  FOCAL_SPEC_ASSIGN(Matrix stored_weight, stored(ref));
  FOCAL_SPEC_ASSIGN(Matrix m, as_out_in(*this, std::move(stored_weight), weight, weight_layout()));
  if (m.shape[1] != in) {
    return fail(weight + " takes " + std::to_string(m.shape[1]) + " inputs, the layer's input has " +
                std::to_string(in));
  }
  return m;
}

int Layer::bias(const char* key, int64_t out) const {
  if (!has(key)) return -1;
  const json& ref = fields.at(key);
  if (ref.is_string() && c.b.weights().has(ref.get<std::string>())) return c.b.param(text(key), {out});
  Result<Matrix> m = stored(ref);
  const Status status = !m.ok() ? m.status()
                        : m->shape != std::vector<int64_t>{out}
                            ? fail(std::string("\"") + key + "\" must be [" + std::to_string(out) + "]")
                            : Status();
  if (!status.ok()) {
    c.b.fail(status);
    return -1;
  }
  return c.b.constant(ref.is_object() ? name + "." + key : ref.get<std::string>(), m.value());
}

Result<int> Layer::vector_param(const std::string& weight, int64_t n) const {
  FOCAL_SPEC_ASSIGN(Matrix m, checkpoint(weight));
  const auto& s = m.shape;
  const bool row_or_column = s.size() == 2 && ((s[0] == 1 && s[1] == n) || (s[0] == n && s[1] == 1));
  const bool vector = (s.size() == 1 && s[0] == n) || row_or_column;
  if (!vector) {
    return fail(weight + " must hold " + std::to_string(n) + " values ([" + std::to_string(n) + "], [1, " +
                std::to_string(n) + "] or [" + std::to_string(n) + ", 1])");
  }
  m.shape = {n};
  return c.b.constant(weight, m);
}

Result<fb::Activation> Layer::activation(const std::string& kind) const {
  static const std::map<std::string, fb::Activation> kinds = {
      {"none", fb::Activation_None},          {"relu", fb::Activation_Relu}, {"gelu", fb::Activation_GeluErf},
      {"gelu_tanh", fb::Activation_GeluTanh}, {"silu", fb::Activation_Silu}, {"tanh", fb::Activation_Tanh},
      {"sigmoid", fb::Activation_Sigmoid}};
  const auto it = kinds.find(kind);
  if (it == kinds.end()) {
    return fail("unknown activation '" + kind + "' (none, relu, gelu, gelu_tanh, silu, tanh, sigmoid)");
  }
  return it->second;
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
