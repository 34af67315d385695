#include "load/model_verifier.h"

#include "load/verify_checks.h"

namespace focal {

// In this order: each check may rely on what the ones before it established.
Status verify_model_meaning(const fb::Model& model, const uint8_t* bytes, size_t size,
                            uint64_t data_offset) {
  using namespace verify;  // the checks, load/verify_checks.h
  const FileLayout file{size, data_offset, bytes};
  FOCAL_RETURN_IF_ERROR(check_symbols(model));
  FOCAL_RETURN_IF_ERROR(check_plan_header(model));
  FOCAL_RETURN_IF_ERROR(check_tensors(model, file));
  FOCAL_RETURN_IF_ERROR(check_arena_limit(model));
  FOCAL_RETURN_IF_ERROR(check_constants_disjoint(model));
  FOCAL_RETURN_IF_ERROR(
      check_io_list(model, *model.inputs(), fb::TensorRole_Input, kMaxModelInputs));
  FOCAL_RETURN_IF_ERROR(check_io_list(model, *model.outputs(), fb::TensorRole_Output, kMaxTensors));

  GraphScratch scratch;
  const uint32_t n = model.tensors()->size();
  scratch.lifetimes = static_cast<Lifetime*>(std::malloc(sizeof(Lifetime) * (n + 1)));
  scratch.defined = static_cast<uint8_t*>(std::malloc(n + 1));
  if (scratch.lifetimes == nullptr || scratch.defined == nullptr) {
    return Status::error(StatusCode::kResourceExhausted,
                         "no memory for verifying a graph of %u tensors", static_cast<unsigned>(n));
  }
  FOCAL_RETURN_IF_ERROR(check_ops(model, scratch));
  FOCAL_RETURN_IF_ERROR(check_stages(model, scratch.defined));
  FOCAL_RETURN_IF_ERROR(check_plan_overlaps(model, scratch));
  FOCAL_RETURN_IF_ERROR(check_tokenizer(model.tokenizer(), "tokenizer"));
  FOCAL_RETURN_IF_ERROR(check_tokenizer(model.target_tokenizer(), "target tokenizer"));
  return check_self_tests(model, file);
}

}  // namespace focal
