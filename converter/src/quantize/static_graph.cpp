// The draft model rewritten on static int8 activations (static_graph.h): the tensors are
// carried over as they are first used, each op by its kind (static_ops.cpp).
#include "quantize/static_graph.h"

#include "quantize/static_ops.h"

namespace focal {
namespace quantize {
namespace {

// Op kinds whose int8 form reads int8 activations in slot 0 (Add: slots 0 and 1).
bool int8_form(fb::OpOptions kind) {
  switch (kind) {
    case fb::OpOptions_RecurrentOptions:
    case fb::OpOptions_AttentionPoolOptions:
    case fb::OpOptions_DenseOptions:
    case fb::OpOptions_LayerNormOptions:
    case fb::OpOptions_MultiHeadAttentionOptions:
    case fb::OpOptions_PoolOptions:
    case fb::OpOptions_AddOptions:
      return true;
    default:
      return false;
  }
}

bool reads_as_int8(const fb::Op& op, uint32_t slot) {
  const fb::OpOptions kind = op.options_type();
  return int8_form(kind) && (slot == 0 || (slot == 1 && kind == fb::OpOptions_AddOptions));
}

bool input_int8(const fb::Op& op, uint32_t slot, const std::vector<bool>& int8) {
  return slot < op.inputs()->size() && op.inputs()->Get(slot) >= 0 && int8[static_cast<size_t>(op.inputs()->Get(slot))];
}

bool writes_int8(const fb::Op& op, const std::vector<bool>& int8) {
  const fb::OpOptions kind = op.options_type();
  if (kind == fb::OpOptions_EmbeddingOptions) return true;
  const bool inputs = input_int8(op, 0, int8) && (kind != fb::OpOptions_AddOptions || input_int8(op, 1, int8));
  return int8_form(kind) && inputs;
}

// A model output an int8 op writes as an int8 twin that a Scale op dequantizes: every op
// but Dense, which writes f32 itself (its dequantized sums).
bool twin_output(const fb::Model& m, const fb::Op& op, int32_t y) {
  return m.tensors()->Get(static_cast<uint32_t>(y))->role() == fb::TensorRole_Output &&
         op.options_type() != fb::OpOptions_DenseOptions;
}

// The int8 tensors, in one pass in op order (a tensor is written before it is read).
std::vector<bool> choose_int8(const fb::Model& m) {
  const size_t count = m.tensors()->size();
  std::vector<bool> read_ok(count, true), int8(count, false);
  for (const fb::Op* op : *m.ops()) {
    for (uint32_t s = 0; s < op->inputs()->size(); ++s) {
      const int32_t t = op->inputs()->Get(s);
      if (t >= 0 && !reads_as_int8(*op, s)) read_ok[static_cast<size_t>(t)] = false;
    }
  }
  for (const fb::Op* op : *m.ops()) {
    const int32_t y = op->outputs()->Get(0);
    const bool activation = m.tensors()->Get(static_cast<uint32_t>(y))->role() == fb::TensorRole_Activation;
    int8[static_cast<size_t>(y)] =
        (activation || twin_output(m, *op, y)) && read_ok[static_cast<size_t>(y)] && writes_int8(*op, int8);
  }
  return int8;
}

DType dtype_of(fb::DType d) { return static_cast<DType>(d); }

std::vector<int64_t> shape_of(const fb::Tensor& t) { return std::vector<int64_t>(t.shape()->begin(), t.shape()->end()); }

std::vector<int32_t> symbols_of(const fb::Tensor& t) {
  if (t.dim_symbols() == nullptr) return {};
  return std::vector<int32_t>(t.dim_symbols()->begin(), t.dim_symbols()->end());
}

Status carry_graph_io(const fb::Model& m, StaticWriter& w) {
  if (m.symbols() != nullptr) {
    for (const fb::Symbol* s : *m.symbols()) w.out.add_symbol(s->name()->str(), s->max());
  }
  for (int32_t t : *m.inputs()) {
    const fb::Tensor& tensor = *m.tensors()->Get(static_cast<uint32_t>(t));
    const int added = w.out.add_input(tensor.name()->str(), dtype_of(tensor.dtype()), shape_of(tensor), symbols_of(tensor));
    if (tensor.when_absent() != fb::WhenAbsent_Required) {
      w.out.set_absent_fill(added, tensor.when_absent() == fb::WhenAbsent_Ones ? 1 : 0);
    }
    w.mapped[static_cast<size_t>(t)] = added;
  }
  for (int32_t t : *m.outputs()) {
    const fb::Tensor& tensor = *m.tensors()->Get(static_cast<uint32_t>(t));
    if (tensor.dtype() != fb::DType_F32) {
      return Status::error(StatusCode::kUnsupported, "--quantize static: output '%s' is %s; f32 outputs only",
                           tensor.name()->c_str(), fb::EnumNameDType(tensor.dtype()));
    }
    const int added = w.out.add_output(tensor.name()->str(), DType::kF32, shape_of(tensor), symbols_of(tensor));
    // An int8 output is its op's int8 twin, dequantized after the op (write_static_int8).
    (w.int8[static_cast<size_t>(t)] ? w.dequantized : w.mapped)[static_cast<size_t>(t)] = added;
  }
  return Status();
}

void carry_metadata(const Model& draft, const std::string& calibration, ModelWriter& out) {
  const fb::Metadata* meta = draft.schema().metadata();
  auto text = [](const flatbuffers::String* s) { return s != nullptr ? s->str() : std::string(); };
  if (meta != nullptr) {
    out.set_metadata(text(meta->architecture()), text(meta->producer()), text(meta->source()));
    if (meta->hyperparameters() != nullptr) {
      for (const fb::KeyValue* kv : *meta->hyperparameters()) out.add_hyperparameter(kv->key()->str(), text(kv->value()));
    }
  }
  out.add_hyperparameter("quantization", "static int8 activations, calibrated on " + calibration);
}

// After an op that wrote a model output's int8 twin: the Scale op (scale 1, shift 0)
// that dequantizes it into the f32 output.
void dequantize_twin(StaticWriter& w, const fb::Op& op) {
  const auto y = static_cast<size_t>(op.outputs()->Get(0));
  if (w.dequantized[y] < 0) return;
  const std::string name = w.draft.schema().tensors()->Get(static_cast<uint32_t>(y))->name()->str();
  w.out.add_op(name + ".dequantize", fb::ScaleOptionsT(), {w.mapped[y]}, {w.dequantized[y]});
}

}  // namespace

Status write_static_int8(const Model& draft, const Ranges& ranges, const std::string& calibration,
                         ModelWriter* out) {
  const fb::Model& m = draft.schema();
  if (m.stages() != nullptr || m.tokenizer() != nullptr || m.target_tokenizer() != nullptr) {
    return Status::error(StatusCode::kUnsupported,
                         "--quantize static: models with stages or a tokenizer are not supported yet");
  }
  const size_t count = m.tensors()->size();
  StaticWriter w{draft, *out, ranges, choose_int8(m), std::vector<int>(count, -1), std::vector<int>(count, -1), {}};
  FOCAL_RETURN_IF_ERROR(carry_graph_io(m, w));
  for (uint32_t i = 0; i < m.ops()->size(); ++i) {
    FOCAL_RETURN_IF_ERROR(write_static_op(w, static_cast<int>(i)));
    dequantize_twin(w, *m.ops()->Get(i));
  }
  carry_metadata(draft, calibration, *out);
  return Status();
}

}  // namespace quantize
}  // namespace focal
