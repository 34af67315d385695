#include "spec/spec_builder.h"

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "json/json_integer.h"
#include "focal/internal/position_reference.h"

namespace focal {
namespace convert {
namespace {

using nlohmann::json;

struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Context {
  GraphBuilder& b;
  const PresetOptions& options;
  std::map<std::string, int> tensors;  // spec name -> tensor index
  std::map<std::string, GraphBuilder::Dim> symbols;
  std::set<std::string> outputs;
  std::string where;  // "layer 3 'attn'" for messages
};

[[noreturn]] void fail(const Context& c, const std::string& what) { throw SpecError(c.where + ": " + what); }

// Layers of "repeat" blocks copied with "{i}" and "{i+1}" replaced in every string.
json substitute(const json& j, int i) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    for (const auto& [key, value] : {std::pair<std::string, int>{"{i+1}", i + 1}, {"{i}", i}}) {
      for (size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, key.size(), std::to_string(value));
    }
    return s;
  }
  if (j.is_array() || j.is_object()) {
    json out = j;
    for (auto it = out.begin(); it != out.end(); ++it) *it = substitute(*it, i);
    return out;
  }
  return j;
}

// Bounds on what "repeat" may expand to, so a few bytes of spec cannot ask for
// unbounded memory ("repeat": 2000000000): at most 65536 layers in all (the deepest
// real stacks are a few hundred blocks of under ten layers, and every layer becomes at
// least one engine op), and at most 2^22 JSON values copied by the expansion (a few
// hundred MB at most; a 12-layer BERT spec copies about 3,000).
constexpr int64_t kMaxSpecLayers = 65536;
constexpr size_t kMaxExpandedValues = size_t(1) << 22;

struct Expansion {
  size_t values_left = kMaxExpandedValues;
};

size_t json_values(const json& j) {
  size_t n = 1;
  if (j.is_array() || j.is_object()) {
    for (const json& item : j) n += json_values(item);
  }
  return n;
}

void expand_layers(const json& layers, Expansion* budget, std::vector<json>* flat) {
  for (const json& layer : layers) {
    if (layer.contains("repeat")) {
      const int64_t count = json_integer(layer.at("repeat"), "repeat", 0, kMaxSpecLayers);
      const size_t per_copy = json_values(layer.at("layers"));
      for (int64_t i = 0; i < count; ++i) {
        if (per_copy > budget->values_left) {
          throw SpecError("spec: \"repeat\" expands to more than " + std::to_string(kMaxExpandedValues) +
                          " JSON values (the spec's expansion budget)");
        }
        budget->values_left -= per_copy;
        expand_layers(substitute(layer.at("layers"), static_cast<int>(i)), budget, flat);
      }
    } else {
      if (flat->size() >= static_cast<size_t>(kMaxSpecLayers)) {
        throw SpecError("spec: expands to more than " + std::to_string(kMaxSpecLayers) +
                        " layers (the spec's expansion budget)");
      }
      flat->push_back(layer);
    }
  }
}

int tensor(const Context& c, const json& layer, const char* key) {
  if (!layer.contains(key)) fail(c, std::string("needs \"") + key + "\"");
  const std::string name = layer.at(key).get<std::string>();
  const auto it = c.tensors.find(name);
  if (it == c.tensors.end()) fail(c, "reads '" + name + "', which no input or earlier layer defines");
  return it->second;
}

int optional_tensor(const Context& c, const json& layer, const char* key) {
  return layer.contains(key) && !layer.at(key).is_null() ? tensor(c, layer, key) : -1;
}

int64_t width(Context& c, int t) {
  const std::vector<GraphBuilder::Dim> d = c.b.dims(t);
  if (d.empty()) fail(c, "reads a tensor without dims (an input needs a \"shape\")");
  return d.back().size;
}

// ---- weights --------------------------------------------------------------------

// A dense weight as [out, in] from any of the stored layouts, checked against `in`.
Matrix dense_weight(Context& c, const std::string& name, const std::string& layout, int64_t in) {
  Result<Matrix> got = c.b.weights().get_any(name);
  if (!got.ok()) fail(c, got.status().message());
  Matrix m = std::move(got).value();
  const auto& s = m.shape;
  if (layout == "conv1x1") {  // PyTorch Conv1d/Conv2d [out, in, 1(, 1)]
    if (s.size() < 3 || s.size() > 4 || s[2] != 1 || (s.size() == 4 && s[3] != 1)) fail(c, name + " is not a 1x1 conv kernel [out, in, 1(, 1)]");
    m.shape = {s[0], s[1]};
  } else if (layout == "conv1x1_in_out") {  // Keras Conv1D/Conv2D [1(, 1), in, out]
    if (s.size() < 3 || s.size() > 4 || s[0] != 1 || (s.size() == 4 && s[1] != 1)) fail(c, name + " is not a 1x1 conv kernel [1(, 1), in, out]");
    m.shape = {s[s.size() - 2], s.back()};
    m = transposed(m);
  } else if (layout == "in_out") {  // Keras Dense, GPT-2 Conv1D
    if (s.size() != 2) fail(c, name + " must be 2-D");
    m = transposed(m);
  } else if (layout == "out_in") {  // PyTorch nn.Linear
    if (s.size() != 2) fail(c, name + " must be 2-D");
  } else {
    fail(c, "unknown weight layout '" + layout + "' (out_in, in_out, conv1x1, conv1x1_in_out)");
  }
  if (m.shape[1] != in) {
    fail(c, name + " takes " + std::to_string(m.shape[1]) + " inputs, the layer's input has " + std::to_string(in));
  }
  return m;
}

std::string layout_of(const Context& c, const json& spec, const json& layer) {
  (void)c;
  if (layer.contains("layout")) return layer.at("layout").get<std::string>();
  return spec.value("weight_layout", std::string("out_in"));
}

int bias(Context& c, const json& layer, const char* key, int64_t out) {
  if (!layer.contains(key) || layer.at(key).is_null()) return -1;
  return c.b.param(layer.at(key).get<std::string>(), {out});
}

fb::Activation activation(const Context& c, const std::string& name) {
  static const std::map<std::string, fb::Activation> kinds = {
      {"none", fb::Activation_None},       {"relu", fb::Activation_Relu}, {"gelu", fb::Activation_GeluErf},
      {"gelu_tanh", fb::Activation_GeluTanh}, {"silu", fb::Activation_Silu}, {"tanh", fb::Activation_Tanh}};
  const auto it = kinds.find(name);
  if (it == kinds.end()) fail(c, "unknown activation '" + name + "' (none, relu, gelu, gelu_tanh, silu, tanh)");
  return it->second;
}

// ---- layers ---------------------------------------------------------------------

int dense_layer(Context& c, const json& spec, const json& layer, const std::string& name) {
  const int x = tensor(c, layer, "input");
  const Matrix w = dense_weight(c, layer.at("weight").get<std::string>(), layout_of(c, spec, layer), width(c, x));
  const int weight = c.b.constant(layer.at("weight").get<std::string>(), w);
  return c.b.dense(name, x, weight, bias(c, layer, "bias", w.shape[0]),
                   activation(c, layer.value("activation", std::string("none"))));
}

Matrix sinusoid_table(const Context& c, const json& s, int64_t positions, int64_t dim) {
  kernels::SinusoidParams p;
  p.positions = static_cast<size_t>(positions);
  p.dim = static_cast<size_t>(dim);
  p.min_timescale = s.value("min_timescale", 1.0f);
  p.max_timescale = s.value("max_timescale", 10000.0f);
  const std::string layout = s.value("layout", std::string("interleaved"));
  if (layout != "interleaved" && layout != "concatenated") fail(c, "sinusoidal layout must be interleaved or concatenated");
  p.layout = layout == "interleaved" ? kernels::SinusoidLayout::kInterleaved : kernels::SinusoidLayout::kConcatenated;
  const std::string spacing = s.value("spacing", std::string(layout == "interleaved" ? "vaswani" : "tensor2tensor"));
  if (spacing != "vaswani" && spacing != "tensor2tensor") fail(c, "sinusoidal spacing must be vaswani or tensor2tensor");
  p.spacing = spacing == "vaswani" ? kernels::TimescaleSpacing::kVaswani : kernels::TimescaleSpacing::kTensor2Tensor;
  if (!(p.min_timescale > 0.0f) || !(p.max_timescale >= p.min_timescale)) fail(c, "timescales must be 0 < min <= max");
  Matrix m{{positions, dim}, std::vector<float>(static_cast<size_t>(positions * dim))};
  p.out = m.values.data();
  kernels::sinusoid_reference(p);
  return m;
}

int embedding_layer(Context& c, const json& layer, const std::string& name) {
  const int ids = tensor(c, layer, "input");
  const std::string table_name = layer.at("table").get<std::string>();
  Result<Matrix> table = c.b.weights().get_any(table_name);
  if (!table.ok()) fail(c, table.status().message());
  if (table->shape.size() != 2) fail(c, table_name + " must be [vocab, dim]");
  const int64_t dim = table->shape[1];
  const int table_tensor = c.b.constant(table_name, table.value());
  float scale = 1.0f;
  if (layer.contains("scale")) {
    const json& s = layer.at("scale");
    scale = s.is_string() && s.get<std::string>() == "sqrt_dim" ? std::sqrt(static_cast<float>(dim)) : s.get<float>();
  }
  int positions = -1;
  if (layer.contains("positions")) {
    const json& p = layer.at("positions");
    if (p.contains("learned")) {
      Result<Matrix> learned = c.b.weights().get_any(p.at("learned").get<std::string>());
      if (!learned.ok()) fail(c, learned.status().message());
      if (learned->shape.size() != 2 || learned->shape[1] != dim) fail(c, "learned positions must be [positions, dim]");
      positions = c.b.constant(p.at("learned").get<std::string>(), learned.value());
    } else if (p.contains("sinusoidal")) {
      const int64_t count = json_integer_or(p, "max_positions", c.symbols.at("seq").size, 1);
      positions = c.b.constant(name + ".sinusoidal_positions", sinusoid_table(c, p.at("sinusoidal"), count, dim));
    } else {
      fail(c, "positions must be {\"learned\": tensor} or {\"sinusoidal\": {...}}");
    }
  }
  int type_ids = -1, segments = -1;
  if (layer.contains("segments")) {
    type_ids = tensor(c, layer.at("segments"), "input");
    segments = c.b.param(layer.at("segments").at("table").get<std::string>(), {json_integer(layer.at("segments").at("count"), "segments count", 1), dim});
  }
  return c.b.embedding(name, ids, table_tensor, positions, type_ids, segments, scale);
}

// Q, K and V weights [features, in]: separate tensors, or one fused tensor split by
// rows in the stated order ("qkv", "kvq", ...).
void attention_projections(Context& c, const json& spec, const json& layer, int64_t in, int64_t q_features,
                           int64_t kv_features, int64_t kv_in, ModelWriter::MultiHeadAttentionSpec* s) {
  const std::string layout = layout_of(c, spec, layer);
  if (layer.contains("qkv")) {
    const json& f = layer.at("qkv");
    const std::string order = f.value("order", std::string("qkv"));
    if (order.size() != 3 || order.find('q') == std::string::npos || order.find('k') == std::string::npos ||
        order.find('v') == std::string::npos) {
      fail(c, "qkv order must be a permutation of \"qkv\"");
    }
    const std::string wname = f.at("weight").get<std::string>();
    const Matrix w = dense_weight(c, wname, layout, in);
    if (w.shape[0] != q_features + 2 * kv_features) fail(c, wname + " must have q + k + v = " + std::to_string(q_features + 2 * kv_features) + " outputs");
    Matrix b;
    if (f.contains("bias")) {
      Result<Matrix> got = c.b.weights().get(f.at("bias").get<std::string>(), {w.shape[0]});
      if (!got.ok()) fail(c, got.status().message());
      b = std::move(got).value();
    }
    int64_t row = 0;
    for (char part : order) {
      const int64_t rows = part == 'q' ? q_features : kv_features;
      int* weight = part == 'q' ? &s->wq : part == 'k' ? &s->wk : &s->wv;
      int* bias_slot = part == 'q' ? &s->bq : part == 'k' ? &s->bk : &s->bv;
      *weight = c.b.constant(wname + "." + part, row_slice(w, row, rows));
      if (!b.shape.empty()) *bias_slot = c.b.constant(wname + ".bias." + part, row_slice(b, row, rows));
      row += rows;
    }
    return;
  }
  const std::pair<const char*, int*> parts[] = {{"q", &s->wq}, {"k", &s->wk}, {"v", &s->wv}};
  for (const auto& [key, slot] : parts) {
    if (!layer.contains(key)) fail(c, std::string("needs \"qkv\" or \"q\", \"k\" and \"v\" projections"));
    const json& p = layer.at(key);
    const std::string wname = p.is_string() ? p.get<std::string>() : p.at("weight").get<std::string>();
    const bool is_q = std::string(key) == "q";
    const Matrix w = dense_weight(c, wname, layout, is_q ? in : kv_in);
    if (w.shape[0] != (is_q ? q_features : kv_features)) fail(c, wname + " has the wrong number of outputs for the heads");
    *slot = c.b.constant(wname, w);
    if (p.is_object() && p.contains("bias")) {
      int* bias_slot = is_q ? &s->bq : std::string(key) == "k" ? &s->bk : &s->bv;
      *bias_slot = c.b.param(p.at("bias").get<std::string>(), {w.shape[0]});
    }
  }
}

int attention_layer(Context& c, const json& spec, const json& layer, const std::string& name) {
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = tensor(c, layer, "input");
  s.memory = optional_tensor(c, layer, "memory");
  s.key_mask = optional_tensor(c, layer, "mask");
  const int64_t in = width(c, s.x);
  s.num_heads = json_int(layer.at("heads"), "heads");
  s.num_kv_heads = json_int_or(layer, "kv_heads", s.num_heads);
  s.head_dim = json_int_or(layer, "head_dim", s.num_heads > 0 ? static_cast<int>(in / s.num_heads) : 0);
  if (s.num_heads < 1 || s.num_kv_heads < 1 || s.head_dim < 1) fail(c, "heads, kv_heads and head_dim must be positive");
  const int64_t q_features = int64_t(s.num_heads) * s.head_dim, kv_features = int64_t(s.num_kv_heads) * s.head_dim;
  const int64_t kv_in = s.memory >= 0 ? width(c, s.memory) : in;
  attention_projections(c, spec, layer, in, q_features, kv_features, kv_in, &s);
  const json& out = layer.at("out");
  const std::string out_name = out.is_string() ? out.get<std::string>() : out.at("weight").get<std::string>();
  const Matrix wo = dense_weight(c, out_name, layout_of(c, spec, layer), q_features);
  s.wo = c.b.constant(out_name, wo);
  if (out.is_object()) s.bo = bias(c, out, "bias", wo.shape[0]);
  s.causal = layer.value("causal", false);
  s.scale = layer.value("scale", 0.0f);
  if (layer.contains("rope")) {
    const json& r = layer.at("rope");
    const std::string rope_layout = r.value("layout", std::string("half"));
    if (rope_layout != "half" && rope_layout != "interleaved") fail(c, "rope layout must be half or interleaved");
    s.rope = rope_layout == "half" ? fb::RopeLayout_HalfSplit : fb::RopeLayout_Interleaved;
    s.rope_theta = r.value("theta", 10000.0f);
    s.rotary_dim = json_int_or(r, "rotary_dim", 0);
  }
  if (layer.value("kv_cache", false)) {
    const GraphBuilder::Dim batch = c.symbols.at("batch"), context{c.symbols.at("seq").size, -1};
    s.k_state = c.b.state(name + ".k_cache", DType::kF32, {batch, context, {kv_features, -1}});
    s.v_state = c.b.state(name + ".v_cache", DType::kF32, {batch, context, {kv_features, -1}});
  }
  return c.b.attention(name, s);
}

int norm_layer(Context& c, const json& layer, const std::string& name, bool rms) {
  const int x = tensor(c, layer, "input");
  const int64_t w = width(c, x);
  const int gamma = c.b.param(layer.at("weight").get<std::string>(), {w});
  const float epsilon = layer.value("epsilon", rms ? 1e-6f : 1e-5f);
  if (rms) return c.b.rmsnorm(name, x, gamma, epsilon);
  return c.b.layernorm(name, x, gamma, c.b.param(layer.at("bias").get<std::string>(), {w}), epsilon);
}

int pool_layer(Context& c, const json& layer, const std::string& name) {
  const std::string mode = layer.value("mode", std::string("cls"));
  const std::map<std::string, fb::PoolMode> modes = {{"cls", fb::PoolMode_Cls}, {"mean", fb::PoolMode_Mean}, {"last", fb::PoolMode_Last}};
  if (!modes.count(mode)) fail(c, "pool mode must be cls, mean or last");
  return c.b.pool(name, tensor(c, layer, "input"), optional_tensor(c, layer, "mask"), modes.at(mode));
}

int build_layer(Context& c, const json& spec, const json& layer, const std::string& name) {
  const std::string op = layer.at("op").get<std::string>();
  if (op == "embedding") return embedding_layer(c, layer, name);
  if (op == "dense") return dense_layer(c, spec, layer, name);
  if (op == "attention") return attention_layer(c, spec, layer, name);
  if (op == "layernorm") return norm_layer(c, layer, name, false);
  if (op == "rmsnorm") return norm_layer(c, layer, name, true);
  if (op == "pool") return pool_layer(c, layer, name);
  if (op == "glu") return c.b.glu(name, tensor(c, layer, "input"), activation(c, layer.value("activation", std::string("silu"))));
  if (op == "add") {
    const json& in = layer.at("inputs");
    if (!in.is_array() || in.size() != 2) fail(c, "add takes \"inputs\": [a, b]");
    const int a = tensor(c, json{{"t", in[0]}}, "t"), b = tensor(c, json{{"t", in[1]}}, "t");
    if (c.b.dims(a).size() != c.b.dims(b).size() || width(c, a) != width(c, b)) fail(c, "add needs equal shapes");
    return c.b.add(name, a, b);
  }
  if (op == "softmax") {
    const int x = tensor(c, layer, "input");
    const int y = c.b.activation(name, c.b.dims(x));
    c.b.writer().add_softmax(name, x, y);
    return y;
  }
  fail(c, "unknown op '" + op + "' (embedding, dense, attention, layernorm, rmsnorm, add, glu, pool, softmax)");
}

void declare_inputs(Context& c, const json& spec) {
  for (const json& input : spec.at("inputs")) {
    const std::string name = input.at("name").get<std::string>();
    const std::string dtype = input.value("dtype", std::string("f32"));
    if (dtype != "f32" && dtype != "i32") throw SpecError("input '" + name + "': dtype must be f32 or i32");
    std::vector<GraphBuilder::Dim> dims;
    for (const json& d : input.at("shape")) {
      if (d.is_string()) {
        const auto it = c.symbols.find(d.get<std::string>());
        if (it == c.symbols.end()) throw SpecError("input '" + name + "': unknown symbol '" + d.get<std::string>() + "'");
        dims.push_back(it->second);
      } else {
        dims.push_back({json_integer(d, "input '" + name + "' shape", 1), -1});
      }
    }
    c.tensors[name] = c.b.input(name, dtype == "f32" ? DType::kF32 : DType::kI32, dims);
  }
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

}  // namespace

Status build_from_spec(const json& spec, const PresetOptions& options, GraphBuilder& b) {
  Context c{b, options, {}, {}, {}, "spec"};
  try {
    declare_symbols(c, spec);
    declare_inputs(c, spec);
    for (const json& o : spec.at("outputs")) c.outputs.insert(o.get<std::string>());
    std::vector<json> layers;
    Expansion expansion;
    expand_layers(spec.at("layers"), &expansion, &layers);
    for (size_t i = 0; i < layers.size(); ++i) {
      const json& layer = layers[i];
      const std::string name = layer.value("name", "layer" + std::to_string(i));
      const std::string output = layer.value("output", name);
      c.where = "layer " + std::to_string(i) + " '" + name + "'";
      if (c.tensors.count(output)) fail(c, "output '" + output + "' is already defined");
      // The tensor (and its op) take the output's name: model outputs are found by it.
      const int t = build_layer(c, spec, layer, output);
      if (!b.status().ok()) return b.status();
      c.tensors[output] = t;
      if (c.outputs.count(output)) b.writer().make_output(t);
    }
    for (const std::string& o : c.outputs) {
      if (!c.tensors.count(o)) throw SpecError("output '" + o + "' is not produced by any layer");
    }
  } catch (const nlohmann::json::exception& e) {
    return Status::error(StatusCode::kInvalidArgument, "%s: %s", c.where.c_str(), e.what());
  } catch (const SpecError& e) {
    return Status::error(StatusCode::kInvalidArgument, "%s", e.what());
  } catch (const JsonFieldError& e) {
    return Status::error(StatusCode::kInvalidArgument, "%s: %s", c.where.c_str(), e.what());
  }
  return b.status();
}

}  // namespace convert
}  // namespace focal
