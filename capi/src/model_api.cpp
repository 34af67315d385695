// focal_model_*: loading (zero copy, copied, or mapped from a file) and what the model
// says about itself. Each maps onto focal::Model.
#include <cstring>

#include "c_api_internal.h"

namespace focal {
namespace capi {
namespace {

LoadOptions load_options(uint32_t flags) {
  LoadOptions options;
  options.verify_checksum = (flags & FOCAL_LOAD_SKIP_CHECKSUM) == 0;
  return options;
}

// Verifies `data` and wraps it in a handle that owns `copy` and `file` (released on
// failure too).
focal_status make_model(const uint8_t* data, size_t size, uint32_t flags, AlignedBlock copy, MappedBytes* file,
                        focal_model** out) {
  auto model = Model::from_bytes(data, size, load_options(flags));
  if (!model.ok()) {
    copy.release();
    unmap_file(file);
    return fail(model.status());
  }
  focal_model* handle = new_handle<focal_model>(model.value(), copy, file);
  if (handle == nullptr) {
    copy.release();
    unmap_file(file);
    return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for a model handle");
  }
  *out = handle;
  return FOCAL_OK;
}

// A model's inputs or its outputs: the two lists the C API looks up the same way.
enum class Side { kInput, kOutput };

int side_count(const Model& model, Side side) {
  return side == Side::kInput ? model.input_count() : model.output_count();
}

int side_tensor(const Model& model, Side side, int index) {
  return side == Side::kInput ? model.input_tensor(index) : model.output_tensor(index);
}

const char* side_name(Side side) { return side == Side::kInput ? "input" : "output"; }

focal_status tensor_info(const focal_model* model, Side side, int32_t index, focal_tensor_info* info) {
  const int count = side_count(model->model, side);
  if (index < 0 || index >= count) {
    return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "%s %d does not exist (model has %d)", side_name(side),
                        static_cast<int>(index), count);
  }
  const TensorInfo tensor = model->model.tensor(side_tensor(model->model, side, index));
  *info = focal_tensor_info{};
  info->name = tensor.name;
  info->dtype = static_cast<focal_dtype>(tensor.dtype);
  info->shape.rank = tensor.shape.rank;
  for (int d = 0; d < tensor.shape.rank; ++d) {
    info->shape.dims[d] = tensor.shape.dims[d];
    const int symbol = tensor.dim_symbols[d];
    info->dim_names[d] = symbol >= 0 ? model->model.symbol(symbol).name : nullptr;
  }
  info->max_bytes = tensor.max_bytes;
  return FOCAL_OK;
}

focal_status find_named(const focal_model* model, Side side, const char* name, int32_t* index) {
  for (int i = 0; i < side_count(model->model, side); ++i) {
    if (std::strcmp(model->model.tensor(side_tensor(model->model, side, i)).name, name) == 0) {
      *index = i;
      return FOCAL_OK;
    }
  }
  return FOCAL_C_FAIL(FOCAL_NOT_FOUND, "the model has no %s named '%s'", side_name(side), name);
}

}  // namespace

void hold_model(const focal_model* model) { model->holds.fetch_add(1, std::memory_order_relaxed); }

void drop_model(const focal_model* model) {
  // The last holder of a released model frees it: no other thread can see it afterwards.
  if (model->holds.fetch_sub(1, std::memory_order_acq_rel) == (kModelReleased | 1u)) {
    delete_handle(const_cast<focal_model*>(model));
  }
}

focal_status release_model(focal_model* model) {
  const uint32_t held = model->holds.fetch_or(kModelReleased, std::memory_order_acq_rel) & ~kModelReleased;
  if (held == 0) {
    delete_handle(model);
    return FOCAL_OK;
  }
  return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT,
                      "focal_model_free: %u session(s) or tokenizer(s) still use the model; it is freed with the "
                      "last of them (free them first)",
                      static_cast<unsigned>(held));
}

}  // namespace capi
}  // namespace focal

using namespace focal;

extern "C" {

focal_status focal_model_load_bytes(const void* bytes, size_t size, uint32_t flags, focal_model** model) noexcept {
  FOCAL_C_REQUIRE(model);
  *model = nullptr;
  FOCAL_C_REQUIRE(bytes);
  FOCAL_C_TRY {
    capi::AlignedBlock copy;
    const uint8_t* data = static_cast<const uint8_t*>(bytes);
    if ((flags & FOCAL_LOAD_COPY) != 0) {
      if (!copy.allocate(size, kBufferAlignment)) {
        return FOCAL_C_FAIL(FOCAL_RESOURCE_EXHAUSTED, "out of memory for a copy of %zu model bytes", size);
      }
      std::memcpy(copy.data, bytes, size);
      data = static_cast<const uint8_t*>(copy.data);
    }
    return capi::make_model(data, size, flags, copy, nullptr, model);
  }
  FOCAL_C_CATCH
}

focal_status focal_model_load_file(const char* path, uint32_t flags, focal_model** model) noexcept {
  FOCAL_C_REQUIRE(model);
  *model = nullptr;
  FOCAL_C_REQUIRE(path);
  FOCAL_C_TRY {
    capi::MappedBytes* file = nullptr;
    const uint8_t* data = nullptr;
    size_t size = 0;
    const focal_status mapped = capi::map_file(path, &file, &data, &size);
    if (mapped != FOCAL_OK) return mapped;
    return capi::make_model(data, size, flags, capi::AlignedBlock(), file, model);
  }
  FOCAL_C_CATCH
}

focal_status focal_model_free(focal_model* model) noexcept {
  if (model == nullptr) return FOCAL_OK;
  return capi::release_model(model);
}

int32_t focal_model_input_count(const focal_model* model) noexcept {
  return model == nullptr ? -1 : model->model.input_count();
}

int32_t focal_model_output_count(const focal_model* model) noexcept {
  return model == nullptr ? -1 : model->model.output_count();
}

focal_status focal_model_input_info(const focal_model* model, int32_t index, focal_tensor_info* info) noexcept {
  FOCAL_C_REQUIRE(model);
  FOCAL_C_REQUIRE(info);
  return capi::tensor_info(model, capi::Side::kInput, index, info);
}

focal_status focal_model_output_info(const focal_model* model, int32_t index, focal_tensor_info* info) noexcept {
  FOCAL_C_REQUIRE(model);
  FOCAL_C_REQUIRE(info);
  return capi::tensor_info(model, capi::Side::kOutput, index, info);
}

focal_status focal_model_find_input(const focal_model* model, const char* name, int32_t* index) noexcept {
  FOCAL_C_REQUIRE(model);
  FOCAL_C_REQUIRE(name);
  FOCAL_C_REQUIRE(index);
  return capi::find_named(model, capi::Side::kInput, name, index);
}

focal_status focal_model_find_output(const focal_model* model, const char* name, int32_t* index) noexcept {
  FOCAL_C_REQUIRE(model);
  FOCAL_C_REQUIRE(name);
  FOCAL_C_REQUIRE(index);
  return capi::find_named(model, capi::Side::kOutput, name, index);
}

int32_t focal_model_stage_count(const focal_model* model) noexcept {
  return model == nullptr ? -1 : model->model.stage_count();
}

const char* focal_model_stage_name(const focal_model* model, int32_t index) noexcept {
  if (model == nullptr || index < 0 || index >= model->model.stage_count()) return "";
  return model->model.stage(index).name;
}

int32_t focal_model_self_test_count(const focal_model* model) noexcept {
  return model == nullptr ? -1 : model->model.self_test_count();
}

uint64_t focal_model_parameter_count(const focal_model* model) noexcept {
  return model == nullptr ? 0 : model->model.parameter_count();
}

const char* focal_model_architecture(const focal_model* model) noexcept {
  return model == nullptr ? "" : model->model.architecture();
}

const char* focal_model_hyperparameter(const focal_model* model, const char* key) noexcept {
  if (model == nullptr || key == nullptr) return nullptr;
  return model->model.hyperparameter(key);
}

}  // extern "C"
