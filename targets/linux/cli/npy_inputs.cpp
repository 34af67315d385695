#include "cli/npy_inputs.h"

#include <cstring>

#include "cli/printable.h"
#include "readers/checkpoint.h"
#include "readers/npy.h"

namespace focal {
namespace cli {
namespace {

bool is_integral(convert::ElementType type) {
  return type == convert::ElementType::kI64 || type == convert::ElementType::kI32 ||
         type == convert::ElementType::kI16 || type == convert::ElementType::kI8 ||
         type == convert::ElementType::kU8 || type == convert::ElementType::kBool;
}

// The array's values in the input's dtype, refusing conversions that could lose values:
// integer arrays reach i32 inputs exactly (never through float), or not at all.
Result<std::vector<uint8_t>> input_bytes(const convert::CheckpointTensor& array, DType dtype,
                                         const std::string& name) {
  if (dtype == DType::kF32) {
    const std::vector<float> values = array.to_f32();
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }
  if (dtype == DType::kI32 && is_integral(array.type)) {
    const Result<std::vector<int32_t>> values = array.to_i32();
    if (!values.ok()) {
      return Status::error(values.status().code(), "input '%s': %s", printable(name).c_str(), values.status().message());
    }
    std::vector<uint8_t> bytes(values->size() * 4);
    std::memcpy(bytes.data(), values->data(), bytes.size());
    return bytes;
  }
  return Status::error(StatusCode::kInvalidArgument, "input '%s' is %s but the array is %s", name.c_str(),
                       dtype_name(dtype), convert::element_type_name(array.type));
}

}  // namespace

bool add_input_spec(const std::string& spec, NpyInputs* inputs) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  inputs->emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
  return true;
}

Status bad_input_spec(const std::string& spec) {
  return Status::error(StatusCode::kInvalidArgument, "--input '%s' is not NAME=FILE.npy", printable(spec).c_str());
}

Status set_npy_inputs(Session& session, const NpyInputs& inputs) {
  for (const auto& input : inputs) {
    const int index = session.find_input(input.first.c_str());
    if (index < 0) {
      return Status::error(StatusCode::kInvalidArgument, "the model has no input '%s'", input.first.c_str());
    }
    auto file = convert::read_npy(input.second);
    if (!file.ok()) return file.status();
    const convert::CheckpointTensor& array = file->tensors[0];
    if (array.shape.size() > static_cast<size_t>(kMaxRank)) {
      return Status::error(StatusCode::kInvalidArgument, "%s has more than %d dims", input.second.c_str(), kMaxRank);
    }
    Shape shape;
    shape.rank = static_cast<int>(array.shape.size());
    for (int d = 0; d < shape.rank; ++d) shape.dims[d] = array.shape[static_cast<size_t>(d)];
    const TensorInfo info = session.model().tensor(session.model().input_tensor(index));
    auto bytes = input_bytes(array, info.dtype, input.first);
    if (!bytes.ok()) return bytes.status();
    FOCAL_RETURN_IF_ERROR(session.set_input(index, shape, bytes->data(), bytes->size()));
  }
  return Status();
}

}  // namespace cli
}  // namespace focal
