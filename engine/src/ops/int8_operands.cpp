// Load-time checks and views of the int8-activation ops' operands (int8_operands.h).
#include "ops/int8_operands.h"

#include "qint/fixed_point.h"

namespace focal {

bool is_int8_activation(const fb::Tensor& t) {
  return t.dtype() == fb::DType_I8 && t.role() != fb::TensorRole_Constant && t.role() != fb::TensorRole_State;
}

// The verifier checked one scale and one zero point (verify_tensors.cpp).
ActivationQuant activation_quant(const fb::Tensor& t) {
  return {t.quantization()->scales()->Get(0), static_cast<int32_t>(t.quantization()->zero_points()->Get(0))};
}

Status expect_int8_activation(const OpCheck& c, const fb::Tensor& t) {
  if (!is_int8_activation(t)) {
    return c.fail("'%s' is %s; this op's int8 form takes int8 activations", t.name()->c_str(),
                  fb::EnumNameDType(t.dtype()));
  }
  return Status();
}

Status expect_int8_weight(const OpCheck& c, const fb::Tensor& w, int64_t out, int64_t in) {
  FOCAL_RETURN_IF_ERROR(expect_constant(c, w));
  const bool ok = w.dtype() == fb::DType_I8 && w.layout() == fb::TensorLayout_RowMajor && rank(w) == 2 &&
                  dim(w, 0) == out && dim(w, 1) == in && w.quantization()->axis() == 0;
  if (!ok) {
    return c.fail("int8 weight '%s' must be a row-major i8 [%lld, %lld] with a scale per row", w.name()->c_str(),
                  static_cast<long long>(out), static_cast<long long>(in));
  }
  if (in > static_cast<int64_t>(kernels::kQIntMaxK)) {
    return c.fail("int8 weight '%s' has %lld inputs, at most %zu", w.name()->c_str(), static_cast<long long>(in),
                  kernels::kQIntMaxK);
  }
  return Status();
}

Status expect_multiplier(const OpCheck& c, int32_t multiplier, int32_t shift, const char* what) {
  const bool ok = (multiplier == 0 || multiplier >= (int32_t(1) << 30)) && shift >= kernels::qint::kMinShift &&
                  shift <= kernels::qint::kMaxShift;
  if (!ok) {
    return c.fail("%s multiplier %ld shift %ld: expected 0 or [2^30, 2^31) and a shift in [%d, %d]", what,
                  static_cast<long>(multiplier), static_cast<long>(shift), static_cast<int>(kernels::qint::kMinShift),
                  static_cast<int>(kernels::qint::kMaxShift));
  }
  return Status();
}

namespace {

// A vector of `channels` entries when wanted, else absent or empty.
Status expect_entries(const OpCheck& c, const flatbuffers::Vector<int32_t>* v, const char* what, const char* field,
                      int64_t channels, bool wanted) {
  const int64_t size = v == nullptr ? 0 : static_cast<int64_t>(v->size());
  if (size != (wanted ? channels : 0)) {
    return c.fail("%s requantization has %lld %s entries, expected %lld", what, static_cast<long long>(size), field,
                  static_cast<long long>(wanted ? channels : 0));
  }
  return Status();
}

}  // namespace

Status expect_requantization(const OpCheck& c, const fb::Requantization* r, const char* what, int64_t channels,
                             bool bias, bool multipliers) {
  if (r == nullptr) return c.fail("%s: the int8 form needs its requantization", what);
  FOCAL_RETURN_IF_ERROR(expect_entries(c, r->bias(), what, "bias", channels, bias));
  FOCAL_RETURN_IF_ERROR(expect_entries(c, r->multiplier(), what, "multiplier", channels, multipliers));
  FOCAL_RETURN_IF_ERROR(expect_entries(c, r->shift(), what, "shift", channels, multipliers));
  constexpr int32_t kBiasLimit = int32_t(1) << 30;
  for (int64_t j = 0; bias && j < channels; ++j) {
    const int32_t b = r->bias()->Get(static_cast<uint32_t>(j));
    if (b <= -kBiasLimit || b >= kBiasLimit) {
      return c.fail("%s bias %lld is %ld, outside (-2^30, 2^30)", what, static_cast<long long>(j), static_cast<long>(b));
    }
  }
  for (int64_t j = 0; multipliers && j < channels; ++j) {
    const uint32_t i = static_cast<uint32_t>(j);
    FOCAL_RETURN_IF_ERROR(expect_multiplier(c, r->multiplier()->Get(i), r->shift()->Get(i), what));
  }
  return Status();
}

kernels::QGemvParams gemv_params(const fb::Requantization& r, const void* w, size_t n, size_t k) {
  kernels::QGemvParams p;
  p.n = n;
  p.k = k;
  p.w = static_cast<const int8_t*>(w);
  p.w_stride = k;
  p.bias = r.bias() != nullptr && r.bias()->size() != 0 ? r.bias()->data() : nullptr;
  p.multiplier = r.multiplier() != nullptr && r.multiplier()->size() != 0 ? r.multiplier()->data() : nullptr;
  p.shift = r.shift() != nullptr && r.shift()->size() != 0 ? r.shift()->data() : nullptr;
  return p;
}

}  // namespace focal
