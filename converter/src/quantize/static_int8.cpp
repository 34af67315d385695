// Static int8 quantization arithmetic (static_int8.h).
#include "quantize/static_int8.h"

#include <cmath>

#include "focal/internal/int8_row.h"
#include "qint/fixed_point.h"

namespace focal {
namespace quantize {

ActivationParams activation_params(double lo, double hi) {
  lo = lo < 0.0 ? lo : 0.0;
  hi = hi > 0.0 ? hi : 0.0;
  ActivationParams p;
  if (!(hi - lo > 0.0) || !std::isfinite(hi - lo)) return {1.0 / 128.0, 0};
  // The file stores the scale as a float: compute everything from that float's value.
  p.scale = double(float((hi - lo) / 255.0));
  const double zero = std::nearbyint(-128.0 - lo / p.scale);
  p.zero_point = static_cast<int32_t>(zero < -128.0 ? -128.0 : zero > 127.0 ? 127.0 : zero);
  return p;
}

Int8Weight quantize_weight(const std::vector<float>& values, size_t rows, size_t cols) {
  Int8Weight w;
  w.rows = rows, w.cols = cols;
  w.q.resize(rows * cols);
  w.scales.resize(rows);
  for (size_t r = 0; r < rows; ++r) {
    const float scale = quantize_int8_row(values.data() + r * cols, cols, w.q.data() + r * cols);
    w.scales[r] = scale > 0.0f ? scale : 1.0f;
  }
  return w;
}

std::vector<uint8_t> weight_bytes(const Int8Weight& w) {
  return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(w.q.data()),
                              reinterpret_cast<const uint8_t*>(w.q.data()) + w.q.size());
}

Status fixed_multiplier(const std::string& what, double real, int32_t* multiplier, int32_t* shift) {
  kernels::qint::FixedMultiplier m{};
  if (!kernels::qint::quantize_multiplier(real, &m)) {
    return Status::error(StatusCode::kInvalidArgument, "%s: multiplier %g cannot be a Q31 fixed-point multiplier",
                         what.c_str(), real);
  }
  *multiplier = m.multiplier;
  *shift = m.shift;
  return Status();
}

Status requantization(const std::string& what, const Int8Weight& w, const std::vector<float>& b,
                      const ActivationParams& x, double output_scale, fb::RequantizationT* out) {
  out->bias.assign(w.rows, 0);
  out->multiplier.clear();
  out->shift.clear();
  for (size_t j = 0; j < w.rows; ++j) {
    const double unit = x.scale * double(w.scales[j]);
    int64_t sum = 0;
    for (size_t k = 0; k < w.cols; ++k) sum += w.q[j * w.cols + k];
    const double bias = (b.empty() ? 0.0 : std::nearbyint(double(b[j]) / unit)) - double(x.zero_point) * double(sum);
    if (!(std::fabs(bias) < double(int64_t(1) << 30))) {
      return Status::error(StatusCode::kInvalidArgument,
                           "%s: output %zu's int32 bias %g does not fit (|bias| < 2^30) at input scale %g", what.c_str(),
                           j, bias, x.scale);
    }
    out->bias[j] = static_cast<int32_t>(bias);
    if (output_scale == 0.0) continue;
    int32_t m = 0, s = 0;
    FOCAL_RETURN_IF_ERROR(fixed_multiplier(what, unit / output_scale, &m, &s));
    out->multiplier.push_back(m);
    out->shift.push_back(s);
  }
  return Status();
}

}  // namespace quantize
}  // namespace focal
