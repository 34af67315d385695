// RelativePositionBias op (T5): the rows of bias by key - query distance that a stack's
// MultiHeadAttention ops add to their scores (slot 15), from the stored table
// [num_buckets, H] (schema/focal.fbs RelativePositionBiasOptions). inputs: x [B, Sq, D]
// (only Sq is read), table; output rows [H, 2L - 1].
//
// Computed once per run and stack instead of per layer, and as one row of distances per
// head instead of an [H, Sq, Sk] matrix: a run sees at most Sq + Sk - 1 distances. Plain
// scalar code (one bucket per distance, then a table lookup per head): a few thousand
// values per run, negligible beside the attention that reads them; a firmware that does
// not select the op links none of it.
#include "focal/internal/relative_position_bucket.h"
#include "ops/op_checks.h"

namespace focal {
namespace {

Status check_relative_position_bias(const OpCheck& c) {
  const fb::RelativePositionBiasOptions& o = *c.op.options_as_RelativePositionBiasOptions();
  if (!relative_position_buckets_valid(o.num_buckets(), o.max_distance(), o.bidirectional())) {
    return c.fail("num_buckets %d and max_distance %d: each side needs at least 2 buckets (at most 65536 in all) "
                  "and max_distance must exceed its exact range",
                  static_cast<int>(o.num_buckets()), static_cast<int>(o.max_distance()));
  }
  const fb::Tensor& x = c.input(0);
  const fb::Tensor& table = c.input(1);
  const fb::Tensor& rows = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, x));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, x, 3, 3));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, table));
  FOCAL_RETURN_IF_ERROR(expect_constant(c, table));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, table, 2, 2));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, rows));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, rows, 2, 2));
  if (dim(table, 0) != o.num_buckets()) {
    return c.fail("table '%s' must have num_buckets (%d) rows", table.name()->c_str(), static_cast<int>(o.num_buckets()));
  }
  if (dim_symbol(rows, 0) != -1 || dim_symbol(rows, 1) != -1 || dim(rows, 0) != dim(table, 1) || dim(rows, 1) % 2 != 1) {
    return c.fail("rows '%s' must be fixed [heads of the table, an odd 2L - 1]", rows.name()->c_str());
  }
  return Status();
}

Status run_relative_position_bias(const OpRun& r) {
  const fb::RelativePositionBiasOptions& o = r.options<fb::RelativePositionBiasOptions>();
  const size_t heads = static_cast<size_t>(r.outputs[0].shape.dims[0]);
  const size_t row_length = static_cast<size_t>(r.outputs[0].shape.dims[1]);
  const int64_t center = static_cast<int64_t>(row_length / 2);  // the entry of distance 0
  // The distances this run's attention can see: queries at cached .. cached + Sq - 1,
  // keys from 0 to the last query.
  int64_t band = r.cached_length + r.inputs[0].shape.dims[1] - 1;
  band = band < center ? band : center;
  const float* table = r.inputs[1].f32();
  float* rows = r.outputs[0].mutable_f32();
  for (int64_t d = -band; d <= band; ++d) {
    const float* bucket = table + static_cast<size_t>(relative_position_bucket(d, o.num_buckets(), o.max_distance(),
                                                                               o.bidirectional())) * heads;
    float* column = rows + static_cast<size_t>(center + d);
    for (size_t h = 0; h < heads; ++h) column[h * row_length] = bucket[h];
  }
  return Status();
}

}  // namespace

const OpDef& relative_position_bias_op_def() {
  static const OpDef def = {"RelativePositionBias", 2, 2, 1, check_relative_position_bias, run_relative_position_bias,
                            nullptr};
  return def;
}

}  // namespace focal
