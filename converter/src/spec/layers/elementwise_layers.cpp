// Layers of one input (or a few) that keep its leading dims: add, softmax, glu, copy,
// concat, layernorm, rmsnorm and pool (schema/focal.fbs for each op's semantics).
#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {
namespace {

// The tensors of "inputs": [a, b, ...], `min` to `max` of them.
Result<std::vector<int32_t>> input_list(const Layer& l, size_t min, size_t max, const char* usage) {
  const json& in = l.fields.at("inputs");
  if (!in.is_array() || in.size() < min || in.size() > max) return l.fail(usage);
  std::vector<int32_t> tensors;
  for (const json& name : in) {
    FOCAL_SPEC_ASSIGN(const int t, l.tensor_named(name.get<std::string>()));
    tensors.push_back(t);
  }
  return tensors;
}

Result<int> norm(const Layer& l, bool rms) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  FOCAL_SPEC_ASSIGN(const int64_t w, l.width(x));
  const int gamma = l.c.b.param(l.text("weight"), {w});
  const float epsilon = l.fields.value("epsilon", rms ? 1e-6f : 1e-5f);
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(l.c.b.dims(x)));
  if (rms) return l.c.b.rmsnorm(l.name, x, gamma, epsilon, y);
  return l.c.b.layernorm(l.name, x, gamma, l.c.b.param(l.text("bias"), {w}), epsilon, y);
}

}  // namespace

Result<int> add_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const std::vector<int32_t> in, input_list(l, 2, 2, "add takes \"inputs\": [a, b]"));
  FOCAL_SPEC_ASSIGN(const int64_t a_width, l.width(in[0]));
  FOCAL_SPEC_ASSIGN(const int64_t b_width, l.width(in[1]));
  if (l.c.b.dims(in[0]).size() != l.c.b.dims(in[1]).size() || a_width != b_width) return l.fail("add needs equal shapes");
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(l.c.b.dims(in[0])));
  return l.c.b.add(l.name, in[0], in[1], y);
}

Result<int> softmax_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(l.c.b.dims(x)));
  l.c.b.writer().add_softmax(l.name, x, y);
  return y;
}

Result<int> glu_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  FOCAL_SPEC_ASSIGN(const fb::Activation act, l.activation(l.text_or("activation", "silu")));
  std::vector<GraphBuilder::Dim> dims;
  if (!l.c.b.has_rank(l.name, x, 0, &dims)) return -1;
  dims.back() = {dims.back().size / 2, -1};  // [..., 2F] -> [..., F]
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(dims));
  return l.c.b.glu(l.name, x, act, y);
}

// y = x, same shape and dtype (an i32 mask stays i32).
Result<int> copy_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  const bool integer = l.c.int_tensors.count(x) > 0;
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(l.c.b.dims(x), integer ? DType::kI32 : DType::kF32));
  if (integer) l.c.int_tensors.insert(y);
  return l.c.b.copy(l.name, x, y);
}

// Along the last axis; the inputs' leading dims must agree (the loader checks them).
Result<int> concat_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(std::vector<int32_t> in, input_list(l, 2, 3, "concat takes \"inputs\": [a, b] or [a, b, c]"));
  int64_t width = 0;
  for (const int t : in) {
    FOCAL_SPEC_ASSIGN(const int64_t w, l.width(t));
    width += w;
  }
  std::vector<GraphBuilder::Dim> dims = l.c.b.dims(in[0]);
  dims.back() = {width, -1};
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(dims));
  return l.c.b.concat(l.name, std::move(in), y);
}

Result<int> layernorm_layer(const Layer& l) { return norm(l, false); }
Result<int> rmsnorm_layer(const Layer& l) { return norm(l, true); }

Result<int> pool_layer(const Layer& l) {
  const std::string mode = l.text_or("mode", "cls");
  const std::map<std::string, fb::PoolMode> modes = {
      {"cls", fb::PoolMode_Cls}, {"mean", fb::PoolMode_Mean}, {"last", fb::PoolMode_Last}, {"max", fb::PoolMode_Max}};
  if (!modes.count(mode)) return l.fail("pool mode must be cls, mean or last");
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  FOCAL_SPEC_ASSIGN(const int mask, l.optional_tensor("mask"));
  std::vector<GraphBuilder::Dim> d;
  if (!l.c.b.has_rank(l.name, x, 3, &d)) return -1;  // [B, S, D] -> [B, D]
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor({d[0], d[2]}));
  return l.c.b.pool(l.name, x, mask, modes.at(mode), y);
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
