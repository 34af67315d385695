#include "reference/self_test_cases.h"

#include <cstdint>
#include <cstring>

#include "focal_generated.h"

namespace focal {
namespace reference {
namespace {

// A stored TensorValue: its shape, and its bytes (f32 or i32, by the tensor's dtype).
Value stored_value(const Model& model, const fb::TensorValue& stored) {
  Value v;
  v.tensor = stored.tensor();
  v.shape.rank = static_cast<int>(stored.shape()->size());
  for (int i = 0; i < v.shape.rank; ++i) v.shape.dims[i] = stored.shape()->Get(static_cast<uint32_t>(i));
  const uint8_t* bytes = model.data_segment() + stored.data()->offset();
  const bool ints = model.tensor(v.tensor).dtype == DType::kI32;
  v.values.resize(static_cast<size_t>(v.shape.element_count()));
  for (size_t i = 0; i < v.values.size(); ++i) {
    if (ints) {
      int32_t x;
      std::memcpy(&x, bytes + i * 4, 4);
      v.values[i] = x;
    } else {
      float x;
      std::memcpy(&x, bytes + i * 4, 4);
      v.values[i] = x;
    }
  }
  return v;
}

int input_index_of(const Model& model, int tensor) {
  for (int i = 0; i < model.input_count(); ++i) {
    if (model.input_tensor(i) == tensor) return i;
  }
  return -1;
}

}  // namespace

std::vector<SelfTestValues> stored_self_tests(const Model& model) {
  std::vector<SelfTestValues> cases;
  if (model.schema().self_tests() == nullptr) return cases;
  for (const fb::SelfTestCase* stored : *model.schema().self_tests()) {
    SelfTestValues c;
    c.atol = stored->atol();
    c.rtol = stored->rtol();
    for (const fb::TensorValue* v : *stored->inputs()) c.inputs.push_back(stored_value(model, *v));
    for (const fb::TensorValue* v : *stored->expected_outputs()) c.expected.push_back(stored_value(model, *v));
    cases.push_back(std::move(c));
  }
  return cases;
}

Result<std::vector<Value>> evaluate_outputs(Evaluator& evaluator, const std::vector<Value>& inputs) {
  const Model& model = evaluator.model();
  evaluator.reset_state();  // each case is a fresh sequence, as run_self_tests does
  for (const Value& input : inputs) {
    FOCAL_RETURN_IF_ERROR(evaluator.set_input(input_index_of(model, input.tensor), input.shape, input.values));
  }
  FOCAL_RETURN_IF_ERROR(evaluator.run());
  std::vector<Value> outputs;
  for (int i = 0; i < model.output_count(); ++i) {
    const int tensor = model.output_tensor(i);
    if (model.tensor(tensor).dtype == DType::kF32) outputs.push_back(evaluator.value(tensor));
  }
  return outputs;
}

}  // namespace reference
}  // namespace focal
