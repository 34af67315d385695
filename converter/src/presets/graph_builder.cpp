#include "presets/graph_builder.h"

#include <cstring>

namespace focal {
namespace convert {
namespace {

std::vector<int64_t> sizes_of(const std::vector<GraphBuilder::Dim>& dims) {
  std::vector<int64_t> sizes;
  for (const auto& d : dims) sizes.push_back(d.size);
  return sizes;
}

std::vector<int32_t> symbols_of(const std::vector<GraphBuilder::Dim>& dims) {
  std::vector<int32_t> symbols;
  bool any = false;
  for (const auto& d : dims) {
    symbols.push_back(d.symbol);
    any = any || d.symbol >= 0;
  }
  return any ? symbols : std::vector<int32_t>{};
}

std::vector<uint8_t> float_bytes(const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

}  // namespace

void GraphBuilder::fail(const Status& status) {
  if (error_.ok()) error_ = status;
}

bool GraphBuilder::ok(std::initializer_list<int> tensors) const {
  if (!error_.ok()) return false;
  for (int t : tensors) {
    if (t < 0) return false;
  }
  return true;
}

int GraphBuilder::symbol(const std::string& name, int64_t max) { return w_.add_symbol(name, max); }

int GraphBuilder::input(const std::string& name, DType dtype, std::vector<Dim> dims) {
  const int t = w_.add_input(name, dtype, sizes_of(dims), symbols_of(dims));
  dims_[t] = std::move(dims);
  return t;
}

int GraphBuilder::optional_input(const std::string& name, DType dtype, std::vector<Dim> dims, int fill) {
  const int t = input(name, dtype, std::move(dims));
  w_.set_absent_fill(t, fill);
  return t;
}

int GraphBuilder::output(const std::string& name, std::vector<Dim> dims) {
  const int t = w_.add_output(name, DType::kF32, sizes_of(dims), symbols_of(dims));
  dims_[t] = std::move(dims);
  return t;
}

int GraphBuilder::activation(const std::string& name, std::vector<Dim> dims, DType dtype) {
  const int t = w_.add_activation(name, dtype, sizes_of(dims), symbols_of(dims));
  dims_[t] = std::move(dims);
  return t;
}

int GraphBuilder::state(const std::string& name, DType dtype, std::vector<Dim> dims) {
  const int t = w_.add_state(name, dtype, sizes_of(dims), symbols_of(dims));
  dims_[t] = std::move(dims);
  return t;
}

std::vector<GraphBuilder::Dim> GraphBuilder::dims(int tensor) const {
  const auto it = dims_.find(tensor);
  return it == dims_.end() ? std::vector<Dim>{} : it->second;
}

// The dims of `tensor` if it has `rank` of them (any rank >= 1 when `rank` is 0); else
// fails, naming the layer, so a spec of the wrong shape is an error, not a bad read.
bool GraphBuilder::has_rank(const std::string& layer, int tensor, size_t rank, std::vector<Dim>* out) {
  *out = dims(tensor);
  if (rank == 0 ? !out->empty() : out->size() == rank) return true;
  fail(Status::error(StatusCode::kInvalidArgument, "layer '%s': input has rank %zu, expected %s", layer.c_str(),
                     out->size(), rank == 0 ? "at least 1" : std::to_string(rank).c_str()));
  return false;
}

int GraphBuilder::activation_like(const std::string& name, int like, int64_t width) {
  std::vector<Dim> d = dims(like);
  if (d.empty()) return -1;
  d.back() = Dim{width, -1};
  return activation(name, d);
}

Matrix GraphBuilder::fetch(const std::string& name, const std::vector<int64_t>& shape) {
  if (!error_.ok()) return Matrix{};
  Result<Matrix> m = weights_.get(name, shape);
  if (!m.ok()) {
    fail(m.status());
    return Matrix{};
  }
  return std::move(m).value();
}

int GraphBuilder::constant(const std::string& name, const Matrix& m) {
  if (!error_.ok() || m.shape.empty()) return -1;
  const int t = w_.add_constant(name, DType::kF32, m.shape, float_bytes(m.values));
  constant_shapes_[t] = m.shape;
  return t;
}

GraphBuilder::TiedHead GraphBuilder::tied_table(const std::string& name, const std::string& head_name, const Matrix& m) {
  const int t = constant(name, m);
  if (!w_.shares_tied_tables()) return {t, constant(head_name, m)};
  if (t >= 0) w_.share_table_with_dense(t);
  return {t, t};
}

int GraphBuilder::param(const std::string& name, const std::vector<int64_t>& shape) {
  return constant(name, fetch(name, shape));
}

int GraphBuilder::optional_param(const std::string& name, const std::vector<int64_t>& shape) {
  return weights_.has(name) ? param(name, shape) : -1;
}

int64_t GraphBuilder::rows_of(int weight) const {
  const auto it = constant_shapes_.find(weight);
  return it == constant_shapes_.end() ? -1 : it->second[0];
}

int GraphBuilder::dense(const std::string& name, int x, int weight, int bias, fb::Activation act,
                        int out) {
  if (!ok({x, weight})) return -1;
  if (out < 0) out = activation_like(name, x, rows_of(weight));
  w_.add_dense(name, x, weight, bias, out, act);
  return out;
}

int GraphBuilder::add(const std::string& name, int a, int b, int out) {
  if (!ok({a, b})) return -1;
  if (out < 0) out = activation(name, dims(a));
  w_.add_add(name, a, b, out);
  return out;
}

int GraphBuilder::layernorm(const std::string& name, int x, int gamma, int beta, float epsilon,
                            int out) {
  if (!ok({x, gamma, beta})) return -1;
  if (out < 0) out = activation(name, dims(x));
  w_.add_layernorm(name, x, gamma, beta, out, epsilon);
  return out;
}

int GraphBuilder::rmsnorm(const std::string& name, int x, int gamma, float epsilon, int out) {
  if (!ok({x, gamma})) return -1;
  if (out < 0) out = activation(name, dims(x));
  w_.add_rmsnorm(name, x, gamma, out, epsilon);
  return out;
}

int GraphBuilder::glu(const std::string& name, int x, fb::Activation act, int out) {
  std::vector<Dim> d;
  if (!ok({x}) || !has_rank(name, x, 0, &d)) return -1;
  if (out < 0) out = activation_like(name, x, d.back().size / 2);
  w_.add_glu(name, x, out, act);
  return out;
}

int GraphBuilder::pool(const std::string& name, int x, int mask, fb::PoolMode mode, int out) {
  std::vector<Dim> d;
  if (!ok({x}) || !has_rank(name, x, 3, &d)) return -1;  // [B, S, D] -> [B, D]
  if (out < 0) out = activation(name, {d[0], d[2]});
  w_.add_pool(name, x, mask, out, mode);
  return out;
}

int GraphBuilder::copy(const std::string& name, int x, int out) {
  if (!ok({x, out})) return -1;
  w_.add_copy(name, x, out);
  return out;
}

int GraphBuilder::embedding(const std::string& name, int ids, int table, int positions,
                            int type_ids, int segments, float scale, int out) {
  if (!ok({ids, table})) return -1;
  if (constant_shapes_[table].size() != 2) {
    fail(Status::error(StatusCode::kInvalidArgument, "layer '%s': the table must be [vocab, width], not rank %zu",
                       name.c_str(), constant_shapes_[table].size()));
    return -1;
  }
  if (out < 0) {  // [B, S] ids give [B, S, D]; [B] ids (a decoder step) give [B, D]
    std::vector<Dim> d = dims(ids);
    d.push_back(Dim{constant_shapes_[table][1], -1});
    out = activation(name, d);
  }
  w_.add_embedding(name, ids, table, positions, type_ids, segments, out, scale);
  return out;
}

int GraphBuilder::concat(const std::string& name, std::vector<int32_t> inputs, int out) {
  if (!error_.ok() || inputs.empty()) return -1;
  int64_t width = 0;
  for (int t : inputs) {
    std::vector<Dim> d;
    if (t < 0 || !has_rank(name, t, 0, &d)) return -1;
    width += d.back().size;
  }
  if (out < 0) out = activation_like(name, inputs[0], width);
  w_.add_concat(name, std::move(inputs), out);
  return out;
}

int GraphBuilder::relative_position_bias(const std::string& name, int x, int table, int max_distance,
                                         bool bidirectional, int64_t keys, int out) {
  if (!ok({x, table})) return -1;
  const std::vector<int64_t>& shape = constant_shapes_[table];
  if (shape.size() != 2) {
    fail(Status::error(StatusCode::kInvalidArgument, "layer '%s': the table must be [num_buckets, heads]", name.c_str()));
    return -1;
  }
  if (out < 0) out = activation(name, {{shape[1], -1}, {2 * keys - 1, -1}});
  w_.add_relative_position_bias(name, x, table, out, static_cast<int>(shape[0]), max_distance, bidirectional);
  return out;
}

int GraphBuilder::attention(const std::string& name, const ModelWriter::MultiHeadAttentionSpec& spec,
                            int out) {
  if (!ok({spec.x, spec.wq, spec.wo})) return -1;
  if (out < 0) out = activation_like(name, spec.x, rows_of(spec.wo));
  w_.add_multi_head_attention(name, spec, out);
  return out;
}

}  // namespace convert
}  // namespace focal
