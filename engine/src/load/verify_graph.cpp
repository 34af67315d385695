// The graph: every op known to this build with operands it accepts, and stages in order
// (the memory plan's placement is verify_overlaps.cpp).
#include "load/verify_checks.h"
#include "ops/op.h"

namespace focal {
namespace verify {
namespace {

Status check_op_operands(const fb::Model& model, int index, const OpDef& def, uint8_t* defined) {
  const fb::Op& op = *model.ops()->Get(index);
  const OpCheck c{model, op, index};
  const int inputs = static_cast<int>(op.inputs()->size());
  const int outputs = static_cast<int>(op.outputs()->size());
  const int min_outputs = def.min_outputs > 0 ? def.min_outputs : def.outputs;
  if (inputs < def.min_inputs || inputs > def.max_inputs || outputs < min_outputs ||
      outputs > def.outputs) {
    return c.fail("has %d inputs and %d outputs, expected %d to %d and %d to %d", inputs, outputs,
                  def.min_inputs, def.max_inputs, min_outputs, def.outputs);
  }
  const uint32_t tensor_count = model.tensors()->size();
  for (int slot = 0; slot < inputs; ++slot) {
    const int32_t t = op.inputs()->Get(static_cast<uint32_t>(slot));
    if (t == -1 && slot < 32 && (def.optional_inputs >> slot & 1u)) continue;
    if (t < 0 || static_cast<uint32_t>(t) >= tensor_count) {
      return c.fail("input names tensor %d, the model has %u", static_cast<int>(t),
                    static_cast<unsigned>(tensor_count));
    }
    if (!defined[t]) {
      return c.fail("reads tensor '%s' before any op writes it", name_of(*model.tensors()->Get(t)));
    }
  }
  for (int32_t t : *op.outputs()) {
    if (t < 0 || static_cast<uint32_t>(t) >= tensor_count) {
      return c.fail("output names tensor %d, the model has %u", static_cast<int>(t),
                    static_cast<unsigned>(tensor_count));
    }
    const fb::Tensor& out = *model.tensors()->Get(t);
    // States are defined from the start and may be updated (an earlier stage fills them).
    if (out.role() == fb::TensorRole_State) continue;
    if (defined[t]) return c.fail("writes tensor '%s', which is already defined", name_of(out));
    defined[t] = 1;
  }
  return def.check(c);
}

// An op without a definition: a type newer than this engine, or one this build left
// out to save flash (focal_select_ops), which the message names so the fix is clear.
Status unsupported_op(uint32_t index, const fb::Op& op, bool int8) {
  const char* name = op.name() ? op.name()->c_str() : "";
  const fb::OpOptions type = op.options_type();
  if (type > fb::OpOptions_NONE && type <= fb::OpOptions_MAX && op.options() != nullptr) {
    const char* options = fb::EnumNameOpOptions(type);  // "<Kind>Options"
    const int kind_length = static_cast<int>(std::strlen(options)) - 7;
    if (int8) {
      return Status::error(StatusCode::kUnsupported,
                           "op %u '%s' is a %.*s op on int8 activations, which this build leaves out "
                           "(focal_select_ops INT8_OPS)",
                           static_cast<unsigned>(index), name, kind_length, options);
    }
    return Status::error(
        StatusCode::kUnsupported,
        "op %u '%s' is a %.*s op, which this build leaves out (add it to focal_select_ops)",
        static_cast<unsigned>(index), name, kind_length, options);
  }
  return Status::error(StatusCode::kUnsupported,
                       "op %u '%s' has op type %d, unknown to this engine",
                       static_cast<unsigned>(index), name, static_cast<int>(type));
}

}  // namespace

Status check_ops(const fb::Model& model, GraphScratch& scratch) {
  const auto& ops = *model.ops();
  if (ops.size() > kMaxOps)
    return invalid("%u ops, at most %u supported", static_cast<unsigned>(ops.size()),
                   static_cast<unsigned>(kMaxOps));
  const uint32_t tensor_count = model.tensors()->size();
  for (uint32_t t = 0; t < tensor_count; ++t) {
    const auto role = model.tensors()->Get(t)->role();
    scratch.defined[t] = role == fb::TensorRole_Constant || role == fb::TensorRole_Input ||
                         role == fb::TensorRole_State;
  }
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const fb::Op& op = *ops.Get(i);
    const OpDef* def = find_op_def(model, op);
    if (def == nullptr || op.options() == nullptr) return unsupported_op(i, op, runs_int8(model, op));
    FOCAL_RETURN_IF_ERROR(check_op_operands(model, static_cast<int>(i), *def, scratch.defined));
  }
  for (int32_t t : *model.outputs()) {
    if (!scratch.defined[t]) {
      return invalid("output '%s' is never written", name_of(*model.tensors()->Get(t)));
    }
  }
  return Status();
}

// Stages: contiguous op ranges that cover the graph in order, and only states carry
// values from one stage to another (a stage runs alone, so its activations are gone
// by the time another stage runs). `producer_stage` is scratch, one byte per tensor.
Status check_stages(const fb::Model& model, uint8_t* producer_stage) {
  if (model.stages() == nullptr) return Status();
  const auto& stages = *model.stages();
  const uint32_t op_count = model.ops()->size();
  if (stages.size() < 1 || stages.size() > static_cast<uint32_t>(kMaxStages)) {
    return invalid("%u stages, expected 1 to %d", static_cast<unsigned>(stages.size()), kMaxStages);
  }
  int64_t next = 0;
  for (const fb::Stage* stage : stages) {
    if (stage->first_op() != next || stage->op_count() < 1 ||
        stage->first_op() + int64_t(stage->op_count()) > int64_t(op_count)) {
      return invalid("stage '%s' (ops %d+%d) does not continue the previous one at op %lld",
                     stage->name()->c_str(), static_cast<int>(stage->first_op()),
                     static_cast<int>(stage->op_count()), static_cast<long long>(next));
    }
    next = stage->first_op() + int64_t(stage->op_count());
  }
  if (next != int64_t(op_count)) {
    return invalid("stages cover %lld of %u ops", static_cast<long long>(next),
                   static_cast<unsigned>(op_count));
  }
  for (uint32_t s = 0; s < stages.size(); ++s) {
    const fb::Stage& stage = *stages.Get(s);
    for (int i = stage.first_op(); i < stage.first_op() + stage.op_count(); ++i) {
      for (int32_t t : *model.ops()->Get(static_cast<uint32_t>(i))->outputs()) {
        producer_stage[t] = static_cast<uint8_t>(s);
      }
    }
  }
  for (uint32_t s = 0; s < stages.size(); ++s) {
    const fb::Stage& stage = *stages.Get(s);
    for (int i = stage.first_op(); i < stage.first_op() + stage.op_count(); ++i) {
      for (int32_t t : *model.ops()->Get(static_cast<uint32_t>(i))->inputs()) {
        if (t < 0) continue;
        const fb::Tensor& tensor = *model.tensors()->Get(t);
        const bool carried =
            tensor.role() == fb::TensorRole_Activation || tensor.role() == fb::TensorRole_Output;
        if (carried && producer_stage[t] != s) {
          return invalid("stage '%s' reads '%s' from another stage; only states cross stages",
                         stage.name()->c_str(), name_of(tensor));
        }
      }
    }
  }
  return Status();
}

}  // namespace verify
}  // namespace focal
