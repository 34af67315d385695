// Embedding into int8 activations (schema EmbeddingOptions): the int8 token table keeps
// its scale per row; each gathered row is requantized into the output's scale and zero
// point, plus a learned position's row requantized likewise (kernels/qint,
// qembedding_gather).
#include "ops/int8_operands.h"

namespace focal {
namespace {

enum Slot { kIds = 0, kTable, kPositions, kTypeIds, kSegments };

// ids [B, S] (or [B]) i32, y [B, S, D] (or [B, D]) int8 with a fixed width.
Status check_ids_and_output(const OpCheck& c, const fb::Tensor& ids, const fb::Tensor& y) {
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, y));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, y, 2, 3));
  if (dim_symbol(y, -1) != -1) return c.fail("the embedding width must be fixed");
  FOCAL_RETURN_IF_ERROR(expect_i32(c, ids));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, ids, 1, 2));
  bool ok = rank(ids) + 1 == rank(y);
  for (int d = 0; ok && d < rank(ids); ++d) ok = same_dim(ids, d, y, d);
  if (!ok) return c.fail("'%s' must be the leading dims of '%s'", ids.name()->c_str(), y.name()->c_str());
  return Status();
}

// Every row's shift at most kMaxRowShift: an int8 row value (|q| <= 128 = 2^7) shifted
// left by it stays below 2^29, so each requantized row, and a token's plus a position's,
// stays within int32.
constexpr int32_t kMaxRowShift = 22;

Status check_row_records(const OpCheck& c, const fb::Requantization* r, const char* what, int64_t rows) {
  FOCAL_RETURN_IF_ERROR(expect_requantization(c, r, what, rows, false, true));
  for (uint32_t i = 0; i < static_cast<uint32_t>(rows); ++i) {
    if (r->shift()->Get(i) > kMaxRowShift) {
      return c.fail("%s row %lu: shift %ld above %d", what, static_cast<unsigned long>(i),
                    static_cast<long>(r->shift()->Get(i)), static_cast<int>(kMaxRowShift));
    }
  }
  return Status();
}

// Learned positions: an int8 [P, D] table with P at least the planned sequence length
// (no KV cache: positions start at 0) and a record per row; or none, and no record.
Status check_positions(const OpCheck& c, const fb::Tensor& ids, const fb::Tensor& y) {
  const fb::Requantization* record = c.op.options_as_EmbeddingOptions()->position_requantization();
  if (!c.has_input(kPositions)) {
    return record == nullptr ? Status() : c.fail("a position requantization without a position table");
  }
  if (rank(ids) != 2) return c.fail("positions need ids [batch, seq]");
  const fb::Tensor& positions = c.input(kPositions);
  FOCAL_RETURN_IF_ERROR(expect_constant(c, positions));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, positions, 2, 2));
  FOCAL_RETURN_IF_ERROR(expect_int8_weight(c, positions, dim(positions, 0), dim(y, -1)));
  if (dim(ids, 1) > dim(positions, 0)) {
    return c.fail("sequences of up to %lld tokens, and %lld positions", static_cast<long long>(dim(ids, 1)),
                  static_cast<long long>(dim(positions, 0)));
  }
  return check_row_records(c, record, "embedding positions", dim(positions, 0));
}

Status check_embedding_int8(const OpCheck& c) {
  const fb::Tensor& y = c.output(0);
  const fb::Tensor& table = c.input(kTable);
  FOCAL_RETURN_IF_ERROR(check_ids_and_output(c, c.input(kIds), y));
  if (c.has_input(kTypeIds) || c.has_input(kSegments)) return c.fail("an int8 embedding has no segment tables");
  if (c.op.options_as_EmbeddingOptions()->scale() != 1.0f) {
    return c.fail("an int8 embedding's scale must be 1 (folded into its requantization)");
  }
  FOCAL_RETURN_IF_ERROR(expect_constant(c, table));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, table, 2, 2));
  FOCAL_RETURN_IF_ERROR(expect_int8_weight(c, table, dim(table, 0), dim(y, -1)));
  FOCAL_RETURN_IF_ERROR(
      check_row_records(c, c.op.options_as_EmbeddingOptions()->requantization(), "embedding", dim(table, 0)));
  return check_positions(c, c.input(kIds), y);
}

Status run_embedding_int8(const OpRun& r) {
  const Shape& ids = r.inputs[0].shape;
  const size_t count = static_cast<size_t>(ids.dims[0]) * (ids.rank == 2 ? static_cast<size_t>(ids.dims[1]) : 1);
  const fb::Requantization& q = *r.options<fb::EmbeddingOptions>().requantization();
  kernels::QEmbeddingParams p;
  p.vocab = static_cast<size_t>(r.inputs[1].shape.dims[0]);
  p.width = static_cast<size_t>(r.inputs[1].shape.dims[1]);
  p.table = static_cast<const int8_t*>(r.inputs[1].data);
  p.multiplier = q.multiplier()->data();
  p.shift = q.shift()->data();
  p.output_zero_point = activation_quant(*r.outputs[0].tensor).zero_point;
  if (r.input_count > kPositions && r.inputs[kPositions].present()) {
    const fb::Requantization& pq = *r.options<fb::EmbeddingOptions>().position_requantization();
    p.seq = static_cast<size_t>(ids.dims[1]);
    p.positions = static_cast<const int8_t*>(r.inputs[kPositions].data);
    p.position_multiplier = pq.multiplier()->data();
    p.position_shift = pq.shift()->data();
  }
  const int32_t* id = r.inputs[0].i32();
  if (kernels::qembedding_gather(p, id, count, static_cast<int8_t*>(r.outputs[0].data))) return Status();
  size_t at = 0;
  while (at < count && id[at] >= 0 && static_cast<size_t>(id[at]) < p.vocab) ++at;
  return Status::error(StatusCode::kOutOfRange, "embedding: ids[%lu] = %ld outside the vocabulary 0..%lu",
                       static_cast<unsigned long>(at), static_cast<long>(id[at < count ? at : 0]),
                       static_cast<unsigned long>(p.vocab - 1));
}

// Token ids index the token table.
int embedding_indexed_table(int slot) { return slot == kIds ? kTable : -1; }

}  // namespace

const OpDef& embedding_int8_op_def() {
  static const OpDef def = {"Embedding", 2, 5, 1, check_embedding_int8, run_embedding_int8, nullptr,
                            (1u << kPositions) | (1u << kTypeIds) | (1u << kSegments), 0, nullptr, nullptr,
                            nullptr, embedding_indexed_table};
  return def;
}

}  // namespace focal
