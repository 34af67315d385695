// The embedding gather, written once against Vec<Arch> (simd/vec_*.hpp) and compiled
// once per instruction set by dispatch/kernel_set_instance.cpp. Everything here is in an anonymous
// namespace: each ISA's translation unit keeps a private copy, so code built with
// AVX-512 flags can never be merged into another ISA's path.
//
// A gather is a copy: f32 rows with scale 1 are memcpy'd (bitwise the table's values);
// otherwise each row is converted (f16) and scaled a vector at a time. The last
// dim % W elements of an f16 row are converted through a zero-padded stack copy. int8
// rows are a plain loop: one row per token is memory-bound, and the compiler vectorizes
// it; the row's scale and the op's are multiplied first, as in the reference twin.
// A packed table (a tied LM head, packed_table.h) is read element by element at the
// layout's stride: a strided gather has no use for vectors, and its cost is the cache
// lines it passes through, not the arithmetic.
#pragma once

#include <cstddef>
#include <cstring>

#include "embedding/embedding_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

template <class Arch>
struct Embedding {
  FOCAL_VEC_TYPES(Arch)

  static void row_f32(const float* src, size_t dim, vec scale, float* out) {
    size_t i = 0;
    for (; i + W <= dim; i += W) V::store(out + i, V::load(src + i) * scale);
    if (i < dim)
      V::store_partial(out + i, dim - i, V::load_partial(src + i, dim - i, 0.0f) * scale);
  }

  static void row_f16(const uint16_t* src, size_t dim, vec scale, float* out) {
    size_t i = 0;
    for (; i + W <= dim; i += W) V::store(out + i, V::load_half(src + i) * scale);
    if (i < dim) {
      uint16_t tail[W] = {};
      std::memcpy(tail, src + i, (dim - i) * sizeof(uint16_t));
      V::store_partial(out + i, dim - i, V::load_half(tail) * scale);
    }
  }

  static void row_i8(const int8_t* src, size_t dim, float scale, float* out) {
    for (size_t i = 0; i < dim; ++i) out[i] = static_cast<float>(src[i]) * scale;
  }

  // Row `id` of a packed table; `to_float` converts one stored element.
  template <class Element, class ToFloat>
  static void packed_row(const EmbeddingParams& p, size_t id, float scale, ToFloat to_float, float* out) {
    const Element* table = static_cast<const Element*>(p.table);
    for (size_t i = 0; i < p.dim; ++i) out[i] = to_float(table[packed_table_index(p.layout, id, i, p.dim)]) * scale;
  }

  static void packed_row(const EmbeddingParams& p, size_t id, float* out) {
    switch (p.type) {
      case EmbeddingType::kF16:
        return packed_row<uint16_t>(p, id, p.scale, [](uint16_t h) { return simd::half_to_float(h); }, out);
      case EmbeddingType::kBF16:
        return packed_row<uint16_t>(p, id, p.scale, [](uint16_t b) { return simd::bf16_to_float(b); }, out);
      case EmbeddingType::kI8:
        return packed_row<int8_t>(p, id, p.row_scales[id] * p.scale, [](int8_t q) { return static_cast<float>(q); },
                                  out);
      default:
        return packed_row<float>(p, id, p.scale, [](float v) { return v; }, out);
    }
  }

  static void gather(const EmbeddingParams& p) {
    if (p.layout != EmbeddingLayout::kRows) {
      for (size_t t = 0; t < p.count; ++t) packed_row(p, static_cast<size_t>(p.ids[t]), p.out + t * p.dim);
      return;
    }
    const vec scale = V::splat(p.scale);
    for (size_t t = 0; t < p.count; ++t) {
      const size_t row = static_cast<size_t>(p.ids[t]) * p.dim;
      float* out = p.out + t * p.dim;
      if (p.type == EmbeddingType::kI8) {
        row_i8(static_cast<const int8_t*>(p.table) + row, p.dim, p.row_scales[p.ids[t]] * p.scale, out);
      } else if (p.type == EmbeddingType::kF16) {
        row_f16(static_cast<const uint16_t*>(p.table) + row, p.dim, scale, out);
      } else if (p.scale == 1.0f) {
        std::memcpy(out, static_cast<const float*>(p.table) + row, p.dim * sizeof(float));
      } else {
        row_f32(static_cast<const float*>(p.table) + row, p.dim, scale, out);
      }
    }
  }

  static constexpr EmbeddingKernelTable table(const char* isa) { return {isa, gather}; }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
