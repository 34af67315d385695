// What every preset builds with: ModelWriter calls with shapes inferred from the
// operands, weights taken from the checkpoint by name, and the first error kept (a
// failed step returns -1 and later steps given -1 do nothing), so a preset reads as a
// plain description of the architecture and checks status() once at the end.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model_writer.h"
#include "presets/weights.h"

namespace focal {
namespace convert {

class GraphBuilder {
 public:
  GraphBuilder(ModelWriter& writer, WeightSource& weights) : w_(writer), weights_(weights) {}

  ModelWriter& writer() { return w_; }
  WeightSource& weights() { return weights_; }
  const Status& status() const { return error_; }
  void fail(const Status& status);

  int symbol(const std::string& name, int64_t max);
  // Tensors whose dims are (planned size, symbol or -1) pairs.
  struct Dim {
    int64_t size;
    int symbol;
  };
  int input(const std::string& name, DType dtype, std::vector<Dim> dims);
  // An input a run may leave unset: then every element is `fill` (a mask the framework
  // treats as optional: 1 for an attention_mask, 0 for a PyTorch key padding mask).
  int optional_input(const std::string& name, DType dtype, std::vector<Dim> dims, int fill);
  int output(const std::string& name, std::vector<Dim> dims);
  int activation(const std::string& name, std::vector<Dim> dims, DType dtype = DType::kF32);
  int state(const std::string& name, DType dtype, std::vector<Dim> dims);
  std::vector<Dim> dims(int tensor) const;  // of a tensor made here
  // A tensor like `like` with the last dim replaced by `width`.
  int activation_like(const std::string& name, int like, int64_t width);
  // True with `*out` = dims(tensor) if it has `rank` dims (0: any rank >= 1); else fails.
  bool has_rank(const std::string& layer, int tensor, size_t rank, std::vector<Dim>* out);

  // Checkpoint tensors (f32 constants) and computed ones.
  Matrix fetch(const std::string& name, const std::vector<int64_t>& shape);
  int param(const std::string& name, const std::vector<int64_t>& shape);
  int constant(const std::string& name, const Matrix& m);
  int optional_param(const std::string& name, const std::vector<int64_t>& shape);  // -1 if absent
  // A token table [vocab, d] that is also the LM head's weight (tied embeddings): one
  // tensor, packed as a Dense weight, for both embedding() and dense(), where the writer
  // stores it once (ModelWriter::shares_tied_tables); else the table as an embedding
  // table and a copy named `head_name` as the head's weight.
  struct TiedHead {
    int table = -1, head = -1;
  };
  TiedHead tied_table(const std::string& name, const std::string& head_name, const Matrix& m);

  // Ops; `out` -1 creates an activation named after the op.
  int dense(const std::string& name, int x, int weight, int bias, fb::Activation act = fb::Activation_None,
            int out = -1);
  int add(const std::string& name, int a, int b, int out = -1);
  int layernorm(const std::string& name, int x, int gamma, int beta, float epsilon, int out = -1);
  int rmsnorm(const std::string& name, int x, int gamma, float epsilon, int out = -1);
  int glu(const std::string& name, int x, fb::Activation act, int out = -1);
  int pool(const std::string& name, int x, int mask, fb::PoolMode mode, int out = -1);
  int copy(const std::string& name, int x, int out);
  int embedding(const std::string& name, int ids, int table, int positions, int type_ids, int segments,
                float scale, int out = -1);
  int concat(const std::string& name, std::vector<int32_t> inputs, int out = -1);
  // Any op kind with one input and one output of the input's dims (Scale, L2Normalize),
  // its options the schema's object API value (fb::<Kind>OptionsT) as ModelWriter::add_op
  // records them: a new kind of that shape needs no helper here or in the writer. Its
  // options are judged once, by the engine op's load-time check, which the converter runs
  // on every model it writes and whose error names the op.
  template <class KindOptionsT>
  int elementwise(const std::string& name, KindOptionsT options, int x, int out = -1) {
    if (!ok({x})) return -1;
    if (out < 0) out = activation(name, dims(x));
    w_.add_op(name, std::move(options), {x}, {out});
    return out;
  }
  // T5's bias rows [heads, 2 keys - 1] by key - query distance from `table` [num_buckets,
  // heads] (a constant made here), for attention specs' relative_bias.
  int relative_position_bias(const std::string& name, int x, int table, int max_distance, bool bidirectional,
                             int64_t keys, int out = -1);
  // spec.x must be set; the output has x's [B, S] and wo's rows as width.
  int attention(const std::string& name, const ModelWriter::MultiHeadAttentionSpec& spec, int out = -1);

 private:
  bool ok(std::initializer_list<int> tensors) const;
  int64_t rows_of(int weight) const;

  ModelWriter& w_;
  WeightSource& weights_;
  Status error_;
  std::map<int, std::vector<Dim>> dims_;
  std::map<int, std::vector<int64_t>> constant_shapes_;
};

}  // namespace convert
}  // namespace focal
