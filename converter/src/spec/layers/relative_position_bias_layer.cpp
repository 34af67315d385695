// {"op": "relative_position_bias", "input": X, "table": WEIGHT [num_buckets, heads],
//  "max_distance": 128, "bidirectional": true}: T5's bias rows by key - query distance
// (schema/focal.fbs RelativePositionBiasOptions) over the spec's planned "seq", for
// attention layers that name the output in "relative_bias".
#include "focal/internal/relative_position_bucket.h"
#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {

Result<int> relative_position_bias_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  if (!l.has("table")) return l.fail("needs \"table\": the [num_buckets, heads] relative_attention_bias weight");
  FOCAL_SPEC_ASSIGN(const Matrix table, l.stored(l.fields.at("table")));
  const int64_t max_distance = l.fields.value("max_distance", int64_t(128));
  const bool bidirectional = l.fields.value("bidirectional", true);
  if (table.shape.size() != 2 || max_distance > INT32_MAX ||
      !relative_position_buckets_valid(static_cast<int32_t>(table.shape[0]), static_cast<int32_t>(max_distance),
                                       bidirectional)) {
    return l.fail("\"table\" must be [num_buckets, heads] with enough buckets per side for \"max_distance\"");
  }
  const auto seq = l.c.symbols.find("seq");
  if (seq == l.c.symbols.end()) return l.fail("needs the spec's \"seq\" symbol: the planned keys");
  const int64_t keys = seq->second.size;
  FOCAL_SPEC_ASSIGN(const int rows, l.output_tensor({{table.shape[1], -1}, {2 * keys - 1, -1}}));
  return l.c.b.relative_position_bias(l.name, x, l.c.b.constant(l.text("table"), table),
                                      static_cast<int>(max_distance), bidirectional, rows);
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
