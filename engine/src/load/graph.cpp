#include "focal/internal/graph.h"

namespace focal {

Shape max_shape(const fb::Tensor& tensor) {
  Shape shape;
  const auto* dims = tensor.shape();
  shape.rank = static_cast<int>(dims->size());
  for (int i = 0; i < shape.rank && i < kMaxRank; ++i) shape.dims[i] = dims->Get(i);
  return shape;
}

bool tensor_max_bytes(const fb::Tensor& tensor, uint64_t* bytes) {
  constexpr uint64_t kLimit = uint64_t(1) << 62;
  uint64_t total = dtype_size(to_dtype(tensor.dtype()));
  if (total == 0) return false;
  for (int64_t dim : *tensor.shape()) {
    if (dim < 1) return false;
    if (total > kLimit / static_cast<uint64_t>(dim)) return false;
    total *= static_cast<uint64_t>(dim);
  }
  *bytes = total;
  return true;
}

void compute_lifetimes(const fb::Model& model, Lifetime* lifetimes) {
  const int32_t op_count = static_cast<int32_t>(model.ops()->size());
  const uint32_t tensor_count = model.tensors()->size();
  for (uint32_t t = 0; t < tensor_count; ++t) {
    const auto role = model.tensors()->Get(t)->role();
    // Constants are never planned; states keep their bytes across runs, so nothing
    // else may ever share them.
    const bool whole_run = role == fb::TensorRole_Constant || role == fb::TensorRole_State;
    lifetimes[t] = {whole_run || role == fb::TensorRole_Input ? -1 : op_count,
                    whole_run || role == fb::TensorRole_Output ? op_count : -1};
  }
  for (int32_t step = 0; step < op_count; ++step) {
    const fb::Op* op = model.ops()->Get(step);
    for (int32_t t : *op->outputs()) {
      if (step < lifetimes[t].first) lifetimes[t].first = step;
      if (step > lifetimes[t].last) lifetimes[t].last = step;
    }
    for (int32_t t : *op->inputs()) {
      if (t < 0) continue;  // an absent optional operand
      if (step > lifetimes[t].last) lifetimes[t].last = step;
    }
  }
  // A tensor never written keeps first = op_count; never read, last = its first step.
  for (uint32_t t = 0; t < tensor_count; ++t) {
    if (lifetimes[t].last < lifetimes[t].first) lifetimes[t].last = lifetimes[t].first;
  }
}

}  // namespace focal
