// Embedding: y[b, s] = table[ids[b, s]] * scale + positions[cached + s]
// + segments[type_ids[b, s]]. Slots: 0 ids [B, S] (or [B]), 1 table [V, D] (row-major
// f32, f16 or int8, or a tied LM head's packed Dense weight, read back row by row),
// 2 positions [P, D], 3 type ids [B, S], 4 segment table [T, D].
#include <vector>

#include "reference/reference_ops.h"

namespace focal {
namespace reference {
namespace {

enum Slot { kIds = 0, kTable, kPositions, kTypeIds, kSegments };

// The id at token t, checked against the table's rows.
Status checked_id(const Operand& ids, size_t t, size_t rows, const char* what, size_t* id) {
  const double value = ids.at(t);
  if (value < 0 || value >= static_cast<double>(rows)) {
    return Status::error(StatusCode::kOutOfRange, "%s %g at position %zu is outside [0, %zu)", what, value, t, rows);
  }
  *id = static_cast<size_t>(value);
  return Status();
}

}  // namespace

Status embedding_op(const OpContext& c) {
  const Operand& ids = c.in(kIds);
  const Operand& table = c.in(kTable);
  const size_t batch = ids.dim(0), seq = ids.shape.rank == 2 ? ids.dim(1) : 1, width = table.dim(1);
  const double scale = c.op.options_as_EmbeddingOptions()->scale();
  const Operand& positions = c.in(kPositions);
  if (positions.present() && static_cast<size_t>(c.cached_length) + seq > positions.dim(0)) {
    return Status::error(StatusCode::kOutOfRange, "positions %lld to %lld are beyond the model's %zu learned positions",
                         static_cast<long long>(c.cached_length),
                         static_cast<long long>(c.cached_length + static_cast<int64_t>(seq) - 1), positions.dim(0));
  }
  std::vector<double> row(width);
  for (size_t t = 0; t < batch * seq; ++t) {
    size_t id = 0, type = 0;
    FOCAL_RETURN_IF_ERROR(checked_id(ids, t, table.dim(0), "token id", &id));
    table.weight_row(id, row.data());  // the stored row, any layout (int8: q times its scale)
    if (c.has_input(kTypeIds)) {
      FOCAL_RETURN_IF_ERROR(checked_id(c.in(kTypeIds), t, c.in(kSegments).dim(0), "token type id", &type));
    }
    const size_t position = static_cast<size_t>(c.cached_length) + t % seq;
    double* out = c.outputs[0].values + t * width;
    for (size_t i = 0; i < width; ++i) {
      double value = row[i] * scale;
      if (positions.present()) value += positions.at(position * width + i);
      if (c.has_input(kTypeIds)) value += c.in(kSegments).at(type * width + i);
      out[i] = value;
    }
  }
  return Status();
}

}  // namespace reference
}  // namespace focal
