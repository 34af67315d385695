// Reading stored constants back to double: the inverse of what the model writer and
// pack_dense_weights() store, written out here from the format's description (schema
// and focal/gemm.h) rather than through the engine's kernel helpers.
#include "reference/operand.h"

#include <cmath>
#include <algorithm>
#include <cstring>

namespace focal {
namespace reference {
namespace {

constexpr size_t kPanel = 32;  // outputs per packed panel (focal/gemm.h)

double f32_at(const uint8_t* bytes, size_t i) {
  float value;
  std::memcpy(&value, bytes + i * 4, 4);
  return value;
}

// IEEE binary16: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits.
double f16_at(const uint8_t* bytes, size_t i) {
  uint16_t half;
  std::memcpy(&half, bytes + i * 2, 2);
  const int exponent = (half >> 10) & 0x1F;
  const int mantissa = half & 0x3FF;
  const double sign = (half & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);  // zero and subnormals
  if (exponent == 31) return mantissa == 0 ? sign * INFINITY : NAN;
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

// bfloat16: the top 16 bits of an f32.
double bf16_at(const uint8_t* bytes, size_t i) {
  uint16_t high;
  std::memcpy(&high, bytes + i * 2, 2);
  const uint32_t bits = uint32_t(high) << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

double stored_at(fb::DType dtype, const uint8_t* bytes, size_t i) {
  switch (dtype) {
    case fb::DType_F16:
      return f16_at(bytes, i);
    case fb::DType_BF16:
      return bf16_at(bytes, i);
    case fb::DType_I8:
      return static_cast<int8_t>(bytes[i]);
    default:
      return f32_at(bytes, i);
  }
}

}  // namespace

// Element i (row-major) of a row-major constant; int8 ones are q times the scale of
// their channel along the quantization axis (int8 embedding tables: one per row).
double Operand::at(size_t i) const {
  if (values != nullptr) return values[i];
  const double stored = stored_at(tensor->dtype(), bytes, i);
  const fb::Quantization* q = tensor->quantization();
  if (tensor->dtype() != fb::DType_I8 || q == nullptr || q->scales() == nullptr) return stored;
  // The stored shape: a constant's (the verifier checked the axis and the scales' count).
  const auto& dims = *tensor->shape();
  const auto axis = static_cast<flatbuffers::uoffset_t>(q->axis());
  size_t inner = 1;  // elements per step along the axis
  for (flatbuffers::uoffset_t d = axis + 1; d < dims.size(); ++d) inner *= static_cast<size_t>(dims.Get(d));
  const size_t channel = (i / inner) % static_cast<size_t>(dims.Get(axis));
  return stored * q->scales()->Get(static_cast<flatbuffers::uoffset_t>(channel));
}

// Packed layout: panel p = n / 32 holds outputs 32p..32p+31; W[n][k] is element
// (p * K + k) * 32 + n % 32. int8: q times scale[n], the scales (f32) stored after the
// panels at byte round_up(P * K * 32, 64).
void Operand::weight_row(size_t n, double* row) const {
  const size_t in = dim(1);
  if (int4()) {
    int4_row(n, row);
    return;
  }
  if (int8_dot()) {
    const double scale = int8_dot_row(n, row);
    for (size_t k = 0; k < in; ++k) row[k] *= scale;
    return;
  }
  if (!packed()) {
    for (size_t k = 0; k < in; ++k) row[k] = at(n * in + k);
    return;
  }
  const size_t panel = n / kPanel, lane = n % kPanel;
  const fb::DType dtype = tensor->dtype();
  for (size_t k = 0; k < in; ++k) row[k] = stored_at(dtype, bytes, (panel * in + k) * kPanel + lane);
  if (dtype == fb::DType_I8) {
    const size_t panels = (dim(0) + kPanel - 1) / kPanel;
    const size_t scales_offset = (panels * in * kPanel + 63) / 64 * 64;
    const double scale = f32_at(bytes + scales_offset, n);
    for (size_t k = 0; k < in; ++k) row[k] *= scale;
  }
}

// Int8-dot layout: k in groups of 8; W[n][k] is byte ((p * G + k / 8) * 32 + n % 32) * 8
// + k % 8 with G = ceil(K / 8), then the f32 scales at byte round_up(P * G * 256, 64)
// (the column sums after them are the engine's, recomputed by the loader).
double Operand::int8_dot_row(size_t n, double* row) const {
  const size_t in = dim(1), groups = (in + 7) / 8;
  const size_t panel = n / kPanel, lane = n % kPanel;
  for (size_t k = 0; k < in; ++k) {
    row[k] = static_cast<int8_t>(bytes[((panel * groups + k / 8) * kPanel + lane) * 8 + k % 8]);
  }
  const size_t panels = (dim(0) + kPanel - 1) / kPanel;
  return f32_at(bytes + (panels * groups * kPanel * 8 + 63) / 64 * 64, n);
}

// Int4 layout (focal/gemm.h): panels of 32 outputs, each its groups of G k in order; a
// group its quads (4 k x 32 outputs in 64 bytes: byte (n % 16) * 4 + k % 4, the low
// nibble for outputs n % 32 < 16, the high one for the others, as q + 8), then 32 f16
// scales. Read here from the bytes, independently of the engine's kernels.
void Operand::int4_row(size_t n, double* row) const {
  const size_t in = dim(1), group = static_cast<size_t>(tensor->group_size());
  const size_t quads = (in + 3) / 4, groups = (in + group - 1) / group;
  const size_t panel_bytes = quads * 64 + groups * 64, group_stride = group / 4 * 64 + 64;
  const size_t lane = n % kPanel;
  const uint8_t* panel = bytes + n / kPanel * panel_bytes;
  for (size_t g = 0; g < groups; ++g) {
    const uint8_t* at = panel + g * group_stride;
    const size_t begin = g * group, end = begin + group < in ? begin + group : in;
    const size_t group_quads = (std::min(begin + group, quads * 4) - begin) / 4;
    const double scale = f16_at(at + group_quads * 64, lane);
    for (size_t k = begin; k < end; ++k) {
      const uint8_t byte = at[(k - begin) / 4 * 64 + (lane % 16) * 4 + k % 4];
      const int u = lane < 16 ? byte & 0x0F : byte >> 4;
      row[k] = double(u - 8) * scale;
    }
  }
}

}  // namespace reference
}  // namespace focal
