// Embedding op: token rows (times a scale), plus position rows from the session's cached
// length, plus segment rows. Slots: 0 ids [B, S] (or [B]) i32, 1 table [V, D]: row-major
// f32, f16 or int8 with one scale per row (quantization axis 0), or a tied LM head: the
// Dense weight [V, D] of the model's output layer in its packed layout (DensePacked f32,
// f16, bf16 or int8, DenseInt8Dot), the one tensor both ops read (kernels/embedding/
// packed_table.h says why the gather reads the panels); 2 positions [P, D] f32, 3 type_ids
// [B, S] i32, 4 segments [T, D] f32 (absent: -1).
#include "embedding/embedding_kernels.h"
#include "ops/op_checks.h"
#include "dispatch/pointwise_dispatch.h"

namespace focal {
namespace {

enum Slot { kIds = 0, kTable, kPositions, kTypeIds, kSegments };

// A token table shared with a Dense op: a packed weight [V, width] in a layout the
// gather reads (the loader checked its bytes against its layout, dtype and shape; a Dense
// op reading it checks [N, K] against its own operands, so both ops agree on the one
// tensor's shape and type). An int4 table has no gather: its rows would be read as f32,
// past the end of its bytes.
Status check_packed_table(const OpCheck& c, const fb::Tensor& t, int64_t width) {
  if (t.layout() == fb::TensorLayout_DenseInt4 || t.dtype() == fb::DType_I4 || t.dtype() == fb::DType_I32) {
    return c.fail("packed table '%s' is %s, which the embedding cannot gather (f32, f16, bf16 or int8)",
                  t.name()->c_str(), t.layout() == fb::TensorLayout_DenseInt4 ? "int4" : fb::EnumNameDType(t.dtype()));
  }
  if (dim(t, 1) != width) {
    return c.fail("packed table '%s' (a tied LM head) must have %lld columns, found %lld", t.name()->c_str(),
                  static_cast<long long>(width), static_cast<long long>(dim(t, 1)));
  }
  return Status();
}

// `compact`: the token table, which may also be f16 or int8 (scales per row), or packed.
Status check_table(const OpCheck& c, const fb::Tensor& t, int64_t width, bool compact) {
  FOCAL_RETURN_IF_ERROR(expect_constant(c, t));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, t, 2, 2));
  if (compact && is_packed_weight(t)) return check_packed_table(c, t, width);
  const bool allowed = t.dtype() == fb::DType_F32 ||
                       (compact && (t.dtype() == fb::DType_F16 || t.dtype() == fb::DType_I8));
  if (!allowed) {
    return c.fail("table '%s' is %s, expected f32%s", t.name()->c_str(), fb::EnumNameDType(t.dtype()),
                  compact ? ", f16 or int8" : "");
  }
  // The verifier checked that an int8 tensor has one scale per channel of its axis.
  if (t.dtype() == fb::DType_I8 && t.quantization()->axis() != 0) {
    return c.fail("int8 table '%s' needs one scale per row (axis 0)", t.name()->c_str());
  }
  if (t.layout() != fb::TensorLayout_RowMajor || dim(t, 1) != width) {
    return c.fail("table '%s' must be row-major with %lld columns", t.name()->c_str(),
                  static_cast<long long>(width));
  }
  return Status();
}

// ids [B, S] (or [B]: one token per row, a decoder step) with y [B, S, D] ([B, D]).
Status check_ids(const OpCheck& c, const fb::Tensor& ids, const fb::Tensor& like) {
  FOCAL_RETURN_IF_ERROR(expect_i32(c, ids));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, ids, 1, 2));
  bool ok = rank(ids) + 1 == rank(like);
  for (int d = 0; ok && d < rank(ids); ++d) ok = same_dim(ids, d, like, d);
  if (!ok) return c.fail("'%s' must be the leading dims of '%s'", ids.name()->c_str(), like.name()->c_str());
  return Status();
}

Status check_embedding(const OpCheck& c) {
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, y));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, y, 2, 3));
  if (dim_symbol(y, -1) != -1) return c.fail("the embedding width must be fixed");
  const int64_t width = dim(y, -1);
  FOCAL_RETURN_IF_ERROR(check_ids(c, c.input(kIds), y));
  FOCAL_RETURN_IF_ERROR(check_table(c, c.input(kTable), width, true));
  if (c.has_input(kPositions)) FOCAL_RETURN_IF_ERROR(check_table(c, c.input(kPositions), width, false));
  if (c.has_input(kTypeIds) != c.has_input(kSegments)) {
    return c.fail("type ids and the segment table come together");
  }
  if (c.has_input(kTypeIds)) {
    FOCAL_RETURN_IF_ERROR(check_ids(c, c.input(kTypeIds), y));
    FOCAL_RETURN_IF_ERROR(check_table(c, c.input(kSegments), width, false));
  }
  const float scale = c.op.options_as_EmbeddingOptions()->scale();
  if (!(scale == scale) || scale == 0.0f) return c.fail("scale must be a nonzero number");
  return Status();
}

Status add_positions(const OpRun& r, size_t batch, size_t seq, size_t width, float* y) {
  const BoundTensor& table = r.inputs[kPositions];
  const int64_t rows = table.shape.dims[0];
  if (r.cached_length + static_cast<int64_t>(seq) > rows) {
    return Status::error(StatusCode::kOutOfRange,
                         "positions %lld to %lld are beyond the model's %lld learned positions",
                         static_cast<long long>(r.cached_length),
                         static_cast<long long>(r.cached_length + static_cast<int64_t>(seq) - 1),
                         static_cast<long long>(rows));
  }
  const float* first = table.f32() + static_cast<size_t>(r.cached_length) * width;
  for (size_t b = 0; b < batch; ++b) {
    float* rows_b = y + b * seq * width;
    residual_add(seq * width, rows_b, first, rows_b, r.kernels);
  }
  return Status();
}

Status add_segments(const OpRun& r, size_t count, size_t width, float* y) {
  const int32_t* types = r.inputs[kTypeIds].i32();
  const BoundTensor& table = r.inputs[kSegments];
  const int64_t rows = table.shape.dims[0];
  for (size_t t = 0; t < count; ++t) {
    if (types[t] < 0 || types[t] >= rows) {
      return Status::error(StatusCode::kOutOfRange,
                           "token type id %d at position %zu is outside [0, %lld)",
                           static_cast<int>(types[t]), t, static_cast<long long>(rows));
    }
    float* row = y + t * width;
    residual_add(width, row, table.f32() + static_cast<size_t>(types[t]) * width, row, r.kernels);
  }
  return Status();
}

kernels::EmbeddingLayout table_layout(const fb::Tensor& t) {
  switch (t.layout()) {
    case fb::TensorLayout_DensePacked:
      return kernels::EmbeddingLayout::kDensePanels;
    case fb::TensorLayout_DenseInt8Dot:
      return kernels::EmbeddingLayout::kInt8DotPanels;
    default:
      return kernels::EmbeddingLayout::kRows;
  }
}

// A row-major int8 table's scales are its quantization's; a packed one keeps them after
// its panels (4-byte aligned there: the file aligns each buffer to 64).
const float* row_scales(const fb::Tensor& t, const kernels::EmbeddingParams& p) {
  if (p.layout == kernels::EmbeddingLayout::kRows) return t.quantization()->scales()->data();
  const uint8_t* bytes = static_cast<const uint8_t*>(p.table);
  return reinterpret_cast<const float*>(bytes + kernels::packed_table_scales_offset(p.layout, p.vocab, p.dim));
}

Status run_embedding(const OpRun& r) {
  const Shape& ids = r.inputs[kIds].shape;
  const size_t batch = static_cast<size_t>(ids.dims[0]);
  const size_t seq = ids.rank == 2 ? static_cast<size_t>(ids.dims[1]) : 1;
  const BoundTensor& table = r.inputs[kTable];
  const fb::Tensor& table_tensor = *r.inputs[kTable].tensor;
  kernels::EmbeddingParams p;
  p.count = batch * seq;
  p.dim = static_cast<size_t>(table.shape.dims[1]);
  p.vocab = static_cast<size_t>(table.shape.dims[0]);
  p.type = table_tensor.dtype() == fb::DType_F16    ? kernels::EmbeddingType::kF16
           : table_tensor.dtype() == fb::DType_BF16 ? kernels::EmbeddingType::kBF16
           : table_tensor.dtype() == fb::DType_I8   ? kernels::EmbeddingType::kI8
                                                    : kernels::EmbeddingType::kF32;
  p.layout = table_layout(table_tensor);
  p.table = table.data;
  if (p.type == kernels::EmbeddingType::kI8) p.row_scales = row_scales(table_tensor, p);
  p.ids = r.inputs[kIds].i32();
  p.scale = r.options<fb::EmbeddingOptions>().scale();
  p.out = r.outputs[0].mutable_f32();
  FOCAL_RETURN_IF_ERROR(embedding_gather(p, r.kernels));
  if (r.inputs[kPositions].present()) FOCAL_RETURN_IF_ERROR(add_positions(r, batch, seq, p.dim, p.out));
  if (r.input_count > kTypeIds && r.inputs[kTypeIds].present()) {
    FOCAL_RETURN_IF_ERROR(add_segments(r, p.count, p.dim, p.out));
  }
  return Status();
}

// Token ids index the token table, segment ids the segment table.
int embedding_indexed_table(int slot) { return slot == kIds ? kTable : slot == kTypeIds ? kSegments : -1; }

}  // namespace

const OpDef& embedding_op_def() {
  static const OpDef def = {"Embedding", 2, 5, 1, check_embedding, run_embedding, nullptr,
                            (1u << kPositions) | (1u << kTypeIds) | (1u << kSegments), 0, nullptr, nullptr,
                            nullptr, embedding_indexed_table};
  return def;
}

}  // namespace focal
