// Activation ranges over calibration cases (activation_ranges.h).
#include "quantize/activation_ranges.h"

#include "assign_or_return.h"
#include "reference/self_test_cases.h"

namespace focal {
namespace quantize {

namespace {

void widen(TensorRange& r, double v) {
  r.lo = v < r.lo ? v : r.lo;
  r.hi = v > r.hi ? v : r.hi;
}

// Every dense product's input rows and outputs, by weight.
class ProductRanges : public reference::DenseObserver {
 public:
  explicit ProductRanges(std::map<std::string, ProductRange>* out) : out_(out) {}
  void observe(const char*, const reference::Operand& w, const reference::Operand*, const double* x, size_t x_stride,
               size_t rows, const double* y, size_t y_stride) override {
    ProductRange& r = (*out_)[w.tensor->name()->str()];
    const size_t in = w.dim(1), out = w.dim(0);
    for (size_t i = 0; i < rows; ++i) {
      for (size_t k = 0; k < in; ++k) widen(r.input, x[i * x_stride + k]);
      for (size_t n = 0; n < out; ++n) widen(r.output, y[i * y_stride + n]);
    }
  }

 private:
  std::map<std::string, ProductRange>* out_;
};

}  // namespace

Result<Ranges> measure_ranges(const Model& model, const std::vector<std::vector<reference::Value>>& cases) {
  FOCAL_ASSIGN_OR_RETURN(reference::Evaluator evaluator, reference::Evaluator::create(model));
  Ranges ranges;
  ranges.tensors.resize(static_cast<size_t>(model.tensor_count()));
  ProductRanges products(&ranges.products);
  evaluator.set_dense_observer(&products);
  for (const std::vector<reference::Value>& inputs : cases) {
    evaluator.reset_state();
    FOCAL_RETURN_IF_ERROR(reference::evaluate_outputs(evaluator, inputs).status());
    for (int t = 0; t < model.tensor_count(); ++t) {
      if (model.tensor(t).role == TensorRole::kConstant) continue;
      for (double v : evaluator.value(t).values) widen(ranges.tensors[static_cast<size_t>(t)], v);
    }
  }
  return ranges;
}

}  // namespace quantize
}  // namespace focal
