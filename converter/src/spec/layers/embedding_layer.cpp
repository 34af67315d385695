// {"op": "embedding"}: token table, scale, learned or sinusoidal positions, segments
// (schema/focal.fbs EmbeddingOptions).
#include <cmath>

#include "json/json_integer.h"
#include "focal/internal/position_reference.h"
#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {
namespace {

Result<kernels::SinusoidParams> sinusoid_params(const Layer& l, const json& s) {
  kernels::SinusoidParams p;
  p.min_timescale = s.value("min_timescale", 1.0f);
  p.max_timescale = s.value("max_timescale", 10000.0f);
  const std::string layout = s.value("layout", std::string("interleaved"));
  if (layout != "interleaved" && layout != "concatenated") return l.fail("sinusoidal layout must be interleaved or concatenated");
  p.layout = layout == "interleaved" ? kernels::SinusoidLayout::kInterleaved : kernels::SinusoidLayout::kConcatenated;
  const std::string spacing = s.value("spacing", std::string(layout == "interleaved" ? "vaswani" : "tensor2tensor"));
  if (spacing != "vaswani" && spacing != "tensor2tensor") return l.fail("sinusoidal spacing must be vaswani or tensor2tensor");
  p.spacing = spacing == "vaswani" ? kernels::TimescaleSpacing::kVaswani : kernels::TimescaleSpacing::kTensor2Tensor;
  if (!(p.min_timescale > 0.0f) || !(p.max_timescale >= p.min_timescale)) return l.fail("timescales must be 0 < min <= max");
  return p;
}

Result<Matrix> sinusoid_table(const Layer& l, const json& s, int64_t positions, int64_t dim) {
  FOCAL_SPEC_ASSIGN(kernels::SinusoidParams p, sinusoid_params(l, s));
  p.positions = static_cast<size_t>(positions);
  p.dim = static_cast<size_t>(dim);
  Matrix m{{positions, dim}, std::vector<float>(static_cast<size_t>(positions * dim))};
  p.out = m.values.data();
  kernels::sinusoid_reference(p);
  return m;
}

// The position table: -1 without "positions".
Result<int> positions_table(const Layer& l, int64_t dim) {
  if (!l.fields.contains("positions")) return -1;
  const json& p = l.fields.at("positions");
  if (p.contains("learned")) {
    const std::string name = p.at("learned").get<std::string>();
    FOCAL_SPEC_ASSIGN(const Matrix learned, l.checkpoint(name));
    if (learned.shape.size() != 2 || learned.shape[1] != dim) return l.fail("learned positions must be [positions, dim]");
    return l.c.b.constant(name, learned);
  }
  if (p.contains("sinusoidal")) {
    const int64_t count = json_integer_or(p, "max_positions", l.c.symbols.at("seq").size, 1);
    FOCAL_SPEC_ASSIGN(const Matrix table, sinusoid_table(l, p.at("sinusoidal"), count, dim));
    return l.c.b.constant(l.name + ".sinusoidal_positions", table);
  }
  return l.fail("positions must be {\"learned\": tensor} or {\"sinusoidal\": {...}}");
}

float token_scale(const Layer& l, int64_t dim) {
  if (!l.fields.contains("scale")) return 1.0f;
  const json& s = l.fields.at("scale");
  return s.is_string() && s.get<std::string>() == "sqrt_dim" ? std::sqrt(static_cast<float>(dim)) : s.get<float>();
}

}  // namespace

Result<int> embedding_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int ids, l.tensor("input"));
  const std::string table_name = l.text("table");
  FOCAL_SPEC_ASSIGN(const Matrix table, l.checkpoint(table_name));
  if (table.shape.size() != 2) return l.fail(table_name + " must be [vocab, dim]");
  const int64_t dim = table.shape[1];
  const int table_tensor = l.c.b.constant(table_name, table);
  const float scale = token_scale(l, dim);
  FOCAL_SPEC_ASSIGN(const int positions, positions_table(l, dim));
  int type_ids = -1, segments = -1;
  if (l.fields.contains("segments")) {
    const json& s = l.fields.at("segments");
    FOCAL_SPEC_ASSIGN(type_ids, (Layer{l.c, l.spec, s, l.name}.tensor("input")));
    segments = l.c.b.param(s.at("table").get<std::string>(), {json_integer(s.at("count"), "segments count", 1), dim});
  }
  std::vector<GraphBuilder::Dim> dims = l.c.b.dims(ids);  // [B, S] ids give [B, S, D]; [B] ids [B, D]
  dims.push_back({dim, -1});
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(dims));
  return l.c.b.embedding(l.name, ids, table_tensor, positions, type_ids, segments, scale, y);
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
