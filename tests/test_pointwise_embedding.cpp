// Pointwise kernels: embedding gather, on every instruction set this CPU has, against
// their reference twins and double-precision computations (tolerances: see
// support/pointwise_testing.h).
#include "focal/gemm.h"
#include "support/pointwise_testing.h"

using namespace focal;
using namespace focal::kernels;
using namespace focal::pointwise_testing;

namespace {

// ---------------------------------------------------------------------------------
// Embedding gather

// Runs kernel set k's gather and the reference twin on p (its `out` aside) and checks
// both against want(t, i), the expected element i of token t, bit for bit, and that
// the kernel wrote nothing outside its output.
template <class Want>
void check_gather_exact(EmbeddingParams p, const KernelSet& k, size_t misalign, Want want) {
  Floats out(p.count * p.dim, misalign), ref(p.count * p.dim);
  p.out = out.data();
  REQUIRE(embedding_gather(p, k).ok());
  p.out = ref.data();
  embedding_gather_reference(p);
  bool exact = true, matches_reference = true;
  for (size_t t = 0; t < p.count; ++t) {
    for (size_t i = 0; i < p.dim; ++i) {
      const float expected = want(t, i);
      exact = exact && same_bits(out[t * p.dim + i], expected);
      matches_reference = matches_reference && same_bits(ref[t * p.dim + i], expected);
    }
  }
  CHECK(exact);
  CHECK(matches_reference);
  CHECK(out.guards_intact());
}

TEST_CASE("pointwise: embedding gather, f32 and f16 tables, scaled, exact") {
  uint32_t seed = 500;
  const size_t vocab = 37;
  const std::vector<int32_t> ids = {0, 36, 5, 5, 17, 1, 35, 0, 22};
  for (const auto& k : kernel_sets()) {
    CAPTURE(std::string(k.isa));
    for (size_t dim : kWidths) {
      for (EmbeddingType type : {EmbeddingType::kF32, EmbeddingType::kF16}) {
        for (float scale : {1.0f, std::sqrt(float(dim)), -0.5f}) {
          CAPTURE(dim);
          CAPTURE(int(type));
          CAPTURE(scale);
          const std::vector<float> values = uniform(vocab * dim, ++seed, -3.0f, 3.0f);
          std::vector<uint16_t> halves(values.size());
          std::vector<float> table(values.size());
          for (size_t i = 0; i < values.size(); ++i) {
            halves[i] = simd::float_to_half(values[i]);
            table[i] = type == EmbeddingType::kF16 ? simd::half_to_float(halves[i]) : values[i];
          }
          EmbeddingParams p;
          p.count = ids.size();
          p.dim = dim;
          p.vocab = vocab;
          p.type = type;
          p.table =
              type == EmbeddingType::kF16 ? static_cast<const void*>(halves.data()) : table.data();
          p.ids = ids.data();
          p.scale = scale;
          // One rounding of the exact product: the double product rounded to f32.
          check_gather_exact(p, k, seed % 2, [&](size_t t, size_t i) {
            return static_cast<float>(double(table[size_t(ids[t]) * dim + i]) * scale);
          });
        }
      }
    }
  }
}

TEST_CASE("pointwise: embedding gather, int8 tables with row scales, exact") {
  uint32_t seed = 900;
  const size_t vocab = 29;
  const std::vector<int32_t> ids = {0, 28, 3, 3, 14, 27, 1};
  for (const auto& k : kernel_sets()) {
    CAPTURE(std::string(k.isa));
    for (size_t dim : kWidths) {
      for (float scale : {1.0f, std::sqrt(float(dim)), -0.5f}) {
        CAPTURE(dim);
        CAPTURE(scale);
        const std::vector<float> draws = uniform(vocab * dim, ++seed, -127.49f, 127.49f);
        std::vector<int8_t> table(draws.size());
        for (size_t i = 0; i < draws.size(); ++i) table[i] = static_cast<int8_t>(std::lround(draws[i]));
        const std::vector<float> row_scales = uniform(vocab, ++seed, 1e-3f, 0.05f);
        EmbeddingParams p;
        p.count = ids.size();
        p.dim = dim;
        p.vocab = vocab;
        p.type = EmbeddingType::kI8;
        p.table = table.data();
        p.row_scales = row_scales.data();
        p.ids = ids.data();
        p.scale = scale;
        check_gather_exact(p, k, seed % 2, [&](size_t t, size_t i) {
          const float row_scale = row_scales[size_t(ids[t])] * scale;  // as the kernels do: once per row
          return static_cast<float>(double(table[size_t(ids[t]) * dim + i]) * row_scale);
        });
      }
    }
    EmbeddingParams missing_scales;
    const int8_t one_row[4] = {1, 2, 3, 4};
    const int32_t id = 0;
    float out[4];
    missing_scales.count = 1;
    missing_scales.dim = 4;
    missing_scales.vocab = 1;
    missing_scales.type = EmbeddingType::kI8;
    missing_scales.table = one_row;
    missing_scales.ids = &id;
    missing_scales.out = out;
    CHECK(embedding_gather(missing_scales, k).code() == StatusCode::kInvalidArgument);
  }
}

// A value exactly representable in `type`, so packing stores it without rounding.
float storable(DType type, float value) {
  if (type == DType::kF16) return simd::half_to_float(simd::float_to_half(value));
  if (type == DType::kBF16) {  // 8 significant bits (normal values): truncate the mantissa
    int exponent = 0;
    const float mantissa = std::frexp(value, &exponent);
    return std::ldexp(std::trunc(std::ldexp(mantissa, 8)), exponent - 8);
  }
  return value;
}

EmbeddingType embedding_type(DType type) {
  return type == DType::kF16 ? EmbeddingType::kF16 : type == DType::kBF16 ? EmbeddingType::kBF16
         : type == DType::kI8 ? EmbeddingType::kI8 : EmbeddingType::kF32;
}

// A tied LM head: the table is a Dense weight [vocab, dim] packed by the GEMM's own
// pack_dense_weights (or the int8-dot packing), and the gather must give each row as
// the row-major table would: values representable in the type, int8 as q * scale with
// the scales given to the packer, so the expected rows are known exactly.
TEST_CASE("pointwise: embedding gather from a Dense weight's packed panels (tied LM head), exact") {
  uint32_t seed = 1300;
  struct Case {
    DType type;
    EmbeddingLayout layout;
  };
  const Case cases[] = {{DType::kF32, EmbeddingLayout::kDensePanels}, {DType::kF16, EmbeddingLayout::kDensePanels},
                        {DType::kBF16, EmbeddingLayout::kDensePanels}, {DType::kI8, EmbeddingLayout::kDensePanels},
                        {DType::kI8, EmbeddingLayout::kInt8DotPanels}};
  for (const auto& k : kernel_sets()) {
    CAPTURE(std::string(k.isa));
    for (size_t dim : kWidths) {
      for (const Case& c : cases) {
        for (float scale : {1.0f, -0.5f}) {
          // Full panels of 32 and a ragged last one (fewer rows when wide: firmware RAM).
          const size_t vocab = dim > 100 ? 34 : 70;
          const int32_t last = static_cast<int32_t>(vocab) - 1;
          const std::vector<int32_t> ids = {0, last, 31, 32, 5, 5, last - 1, 1, 33};
          CAPTURE(dim);
          CAPTURE(int(c.type));
          CAPTURE(int(c.layout));
          CAPTURE(scale);
          const bool int8 = c.type == DType::kI8;
          const std::vector<float> draws = uniform(vocab * dim, ++seed, -127.49f, 127.49f);
          std::vector<float> row_scales = uniform(vocab, ++seed, 1e-3f, 0.05f);
          std::vector<float> q(draws.size()), weights(draws.size());
          for (size_t i = 0; i < draws.size(); ++i) {
            q[i] = int8 ? static_cast<float>(std::lround(draws[i])) : storable(c.type, draws[i] / 64.0f);
            weights[i] = int8 ? q[i] * row_scales[i / dim] : q[i];
          }
          const bool dot = c.layout == EmbeddingLayout::kInt8DotPanels;
          const size_t bytes = dot ? packed_dense_weights_int8_dot_bytes(vocab, dim)
                                   : packed_dense_weights_bytes(c.type, vocab, dim);
          AlignedBuffer packed(bytes);
          const auto written = dot ? pack_dense_weights_int8_dot(weights.data(), vocab, dim, packed.data(), bytes,
                                                                 row_scales.data())
                                   : pack_dense_weights(c.type, weights.data(), vocab, dim, packed.data(), bytes,
                                                        int8 ? row_scales.data() : nullptr);
          REQUIRE(written.ok());
          EmbeddingParams p;
          p.count = ids.size();
          p.dim = dim;
          p.vocab = vocab;
          p.type = embedding_type(c.type);
          p.layout = c.layout;
          p.table = packed.data();
          // The packer's copy of the scales, after the panels, as the Embedding op finds them.
          if (int8) {
            p.row_scales = reinterpret_cast<const float*>(packed.data() +
                                                          packed_table_scales_offset(c.layout, vocab, dim));
          }
          p.ids = ids.data();
          p.scale = scale;
          check_gather_exact(p, k, seed % 2, [&](size_t t, size_t i) {
            const size_t id = size_t(ids[t]);
            const float row_scale = int8 ? row_scales[id] * scale : scale;
            return static_cast<float>(double(q[id * dim + i]) * row_scale);
          });
        }
      }
    }
  }
  // Types a layout cannot hold are refused before anything runs.
  const float table[4] = {1, 2, 3, 4};
  const int32_t id = 0;
  float out[4];
  EmbeddingParams p;
  p.count = 1;
  p.dim = 4;
  p.vocab = 1;
  p.table = table;
  p.ids = &id;
  p.out = out;
  p.type = EmbeddingType::kBF16;
  CHECK(embedding_gather(p).code() == StatusCode::kInvalidArgument);  // bf16 rows
  p.type = EmbeddingType::kF32;
  p.layout = EmbeddingLayout::kInt8DotPanels;
  CHECK(embedding_gather(p).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("pointwise: embedding gather refuses out-of-range ids before writing anything") {
  const size_t vocab = 10, dim = 4;
  const std::vector<float> table(vocab * dim, 1.0f);
  struct Bad {
    std::vector<int32_t> ids;
    const char* message;
  };
  const Bad cases[] = {
      {{1, 2, -1, 3}, "embedding: ids[2] = -1 outside the vocabulary 0..9"},
      {{10}, "embedding: ids[0] = 10 outside the vocabulary 0..9"},
      {{0, 9, 9, 0, std::numeric_limits<int32_t>::min()},
       "embedding: ids[4] = -2147483648 outside the vocabulary 0..9"},
      {{0, std::numeric_limits<int32_t>::max()},
       "embedding: ids[1] = 2147483647 outside the vocabulary 0..9"},
  };
  for (const Bad& bad : cases) {
    Floats out(bad.ids.size() * dim);
    EmbeddingParams p;
    p.count = bad.ids.size();
    p.dim = dim;
    p.vocab = vocab;
    p.table = table.data();
    p.ids = bad.ids.data();
    p.out = out.data();
    const Status status = embedding_gather(p);
    CHECK(status.code() == StatusCode::kOutOfRange);
    CHECK(std::string(status.message()) == bad.message);
    bool untouched = true;
    for (size_t i = 0; i < out.size(); ++i) untouched = untouched && same_bits(out[i], kSentinel);
    CHECK(untouched);
  }
  EmbeddingParams p;
  p.count = 1;
  p.dim = dim;
  p.vocab = vocab;
  p.table = table.data();
  const int32_t id = 0;
  p.ids = &id;
  CHECK(embedding_gather(p).code() == StatusCode::kInvalidArgument);  // null out
  float out[dim];
  p.out = out;
  p.vocab = 0;
  CHECK(embedding_gather(p).code() == StatusCode::kInvalidArgument);
}

}  // namespace
