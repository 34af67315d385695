// focal.load and the Model class: what a model file declares (inputs, outputs, ops,
// stages, symbols, metadata), read from the verified FlatBuffer without copying.
#include "model.h"

#include <pybind11/stl.h>

#include <cstring>
#include <vector>

#include "errors.h"
#include "focal/chat.h"
#include "focal/tensor.h"
#include "focal/tokenizer.h"

namespace py = pybind11;

namespace focal {
namespace python {

std::shared_ptr<ModelFile> ModelFile::open(const std::string& path) {
  std::shared_ptr<ModelFile> file(new ModelFile());
  file->path_ = path;
  file->file_.emplace(value_or_raise(MappedFile::open(path.c_str())));
  file->verify(file->file_->data(), file->file_->size());
  return file;
}

namespace {

bool immutable(const py::buffer& buffer) {
  return py::isinstance<py::bytes>(buffer) || py::isinstance(buffer, py::module_::import("mmap").attr("mmap"));
}

}  // namespace

std::shared_ptr<ModelFile> ModelFile::from_buffer(const py::buffer& buffer) {
  std::shared_ptr<ModelFile> file(new ModelFile());
  const py::buffer_info info = buffer.request();
  if (info.ndim > 1 || (info.ndim == 1 && info.strides[0] != info.itemsize)) {
    raise_error(StatusCode::kInvalidArgument, "a model's bytes must be one contiguous buffer");
  }
  const size_t size = static_cast<size_t>(info.size * info.itemsize);
  const auto* bytes = static_cast<const uint8_t*>(info.ptr);
  // In place only when nobody can change the bytes after verification and the engine's
  // 64-byte buffer alignment holds; else one aligned copy. "Read-only" is not enough: a
  // read-only memoryview of a bytearray still changes with the bytearray (it crashed the
  // interpreter). Immutable by Python's promise: bytes, and a read-only mmap (the same
  // guarantee as loading the file by its path, which maps it too).
  if (info.readonly && reinterpret_cast<uintptr_t>(bytes) % kBufferAlignment == 0 && immutable(buffer)) {
    file->owner_ = buffer;
  } else {
    if (!file->copy_.allocate(size, "a copy of the model's bytes").ok()) {
      raise_error(StatusCode::kResourceExhausted, "cannot copy the model's bytes");
    }
    if (size > 0) std::memcpy(file->copy_.data(), bytes, size);
    bytes = file->copy_.data();
  }
  file->verify(bytes, size);
  return file;
}

void ModelFile::verify(const uint8_t* bytes, size_t size) {
  auto model = Model::from_bytes(bytes, size);
  if (!model.ok()) raise_error(model.status().code(), (path_.empty() ? "" : path_ + ": ") + model.status().message());
  model_.emplace(model.value());
}

namespace {

// The NumPy dtype of a focal dtype: f16 and bf16 only occur in weights, shown as
// their storage (bf16 has no NumPy type: uint16).
const char* numpy_dtype(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "float32";
    case DType::kF16: return "float16";
    case DType::kBF16: return "uint16";
    case DType::kI8: return "int8";
    case DType::kI32: return "int32";
    case DType::kI4: return "uint8";  // two 4-bit weights per byte
  }
  return "uint8";
}

// One tensor as the file declares it; `shape` is the planned maximum, `dims` names each
// dim's symbol (None for a fixed dim).
// A name from the file as valid UTF-8: the file's bytes are data, and pybind11's strict
// conversion raised UnicodeDecodeError from model.ops for a name that was not UTF-8.
// Invalid sequences become U+FFFD, as Python's errors="replace" decodes them.
std::string utf8_name(const char* bytes) {
  const py::object text = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeUTF8(bytes, static_cast<Py_ssize_t>(std::strlen(bytes)), "replace"));
  if (!text) throw py::error_already_set();
  return text.cast<std::string>();
}

struct TensorDescription {
  std::string name, dtype, numpy_dtype, role;
  py::tuple shape, dims;
  py::object absent_fill;  // an optional input's fill when left out (1 or 0), else None
};

TensorDescription describe(const Model& model, int tensor) {
  const TensorInfo info = model.tensor(tensor);
  TensorDescription d{utf8_name(info.name), dtype_name(info.dtype), numpy_dtype(info.dtype), tensor_role_name(info.role),
                      py::tuple(info.shape.rank), py::tuple(info.shape.rank),
                      info.absent_fill >= 0 ? py::object(py::int_(info.absent_fill)) : py::object(py::none())};
  for (int i = 0; i < info.shape.rank; ++i) {
    d.shape[static_cast<size_t>(i)] = info.shape.dims[i];
    d.dims[static_cast<size_t>(i)] =
        info.dim_symbols[i] >= 0 ? py::object(py::str(utf8_name(model.symbol(info.dim_symbols[i]).name)))
                                 : py::object(py::none());
  }
  return d;
}

struct OpDescription {
  std::string name, kind;
  std::vector<std::string> inputs, outputs;  // tensor names
  int attention_heads = 0;
  int64_t kv_cache_capacity = 0;
  bool int8_activations = false;  // runs its static int8 form
};

OpDescription describe_op(const Model& model, int op) {
  const OpInfo info = model.op(op);
  OpDescription d{utf8_name(info.name), info.kind, {}, {}, info.attention_heads, info.kv_cache_capacity,
                  info.int8_activations};
  for (int i = 0; i < info.input_count; ++i) {
    const int t = model.op_input(op, i);
    d.inputs.emplace_back(t >= 0 ? utf8_name(model.tensor(t).name) : "");  // -1: an optional operand left out
  }
  for (int i = 0; i < info.output_count; ++i) d.outputs.emplace_back(utf8_name(model.tensor(model.op_output(op, i)).name));
  return d;
}

std::vector<TensorDescription> describe_all(const Model& m, int count, int (Model::*tensor_of)(int) const) {
  std::vector<TensorDescription> all;
  for (int i = 0; i < count; ++i) all.push_back(describe(m, (m.*tensor_of)(i)));
  return all;
}

py::dict hyperparameters(const Model& model) {
  py::dict all;
  for (int i = 0; i < model.hyperparameter_count(); ++i) {
    const HyperparameterInfo kv = model.hyperparameter_info(i);
    all[py::str(kv.key)] = kv.value;
  }
  return all;
}

// The model's tokenizer (the target side's with target=True), or focal.Error.
Tokenizer tokenizer_of(const Model& model, bool target) { return value_or_raise(Tokenizer::from_model(model, target)); }

}  // namespace

std::vector<int32_t> tokenize(const Model& model, const std::string& text, bool target, bool add_special_tokens,
                              bool parse_special) {
  Tokenizer tokenizer = tokenizer_of(model, target);
  tokenizer.set_parse_special(parse_special);
  // At most one id per byte of the normalized text (NFC: up to 3 per byte), and the template's.
  std::vector<int32_t> ids(16 * text.size() + 64);  // one per normalized byte: 16 per byte under nmt_nfkc
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(text.size()) / 8 + 1);
  const size_t scratch_bytes = scratch.size() * 8;
  ids.resize(value_or_raise(
      add_special_tokens
          ? tokenizer.encode_for_model(text.data(), text.size(), nullptr, 0, ids.data(), ids.size(), scratch.data(),
                                       scratch_bytes)
          : tokenizer.encode(text.data(), text.size(), ids.data(), ids.size(), scratch.data(), scratch_bytes)));
  return ids;
}

namespace {

// transformers' apply_chat_template(messages, add_generation_prompt, tokenize=False): the
// conversation ([{"role": ..., "content": ...}]) in the model's stored chat format.
std::string apply_chat_template(const ModelFile& file, const py::list& messages, bool add_generation_prompt) {
  const ChatFormat format = value_or_raise(ChatFormat::from_model(file.model()));
  std::vector<std::string> roles, contents;
  for (const py::handle& m : messages) {
    if (!py::isinstance<py::dict>(m) || !m.contains("role") || !m.contains("content")) {
      throw py::type_error("each message must be a dict with 'role' and 'content'");
    }
    if (!py::isinstance<py::str>(m["role"]) || !py::isinstance<py::str>(m["content"])) {
      throw py::type_error("a message's 'role' and 'content' must be str");
    }
    roles.push_back(utf8_text(m["role"], "role"));
    contents.push_back(utf8_text(m["content"], "content"));
  }
  std::vector<ChatMessage> turns;
  for (size_t i = 0; i < roles.size(); ++i) turns.push_back({roles[i].c_str(), contents[i].data(), contents[i].size()});
  std::string text(format.rendered_bytes_bound(turns.data(), turns.size()), '\0');
  text.resize(value_or_raise(format.render(turns.data(), turns.size(), add_generation_prompt, &text[0], text.size())));
  return text;
}

py::bytes detokenize(const ModelFile& file, const std::vector<int32_t>& ids, bool target) {
  const Tokenizer tokenizer = tokenizer_of(file.model(), target);
  std::string text;
  std::vector<char> piece;
  for (int32_t id : ids) {
    piece.resize(std::max(piece.size(), tokenizer.decoded_bytes_bound(id)));
    text.append(piece.data(), value_or_raise(tokenizer.decode_token(id, piece.data(), piece.size())));
  }
  return py::bytes(text);
}

void register_descriptions(py::module_& m) {
  py::class_<TensorDescription>(m, "Tensor", "A tensor as the model file declares it (shape: the planned maximum)")
      .def_readonly("name", &TensorDescription::name)
      .def_readonly("dtype", &TensorDescription::dtype)
      .def_readonly("numpy_dtype", &TensorDescription::numpy_dtype)
      .def_readonly("role", &TensorDescription::role)
      .def_readonly("shape", &TensorDescription::shape)
      .def_readonly("dims", &TensorDescription::dims)
      .def_readonly("absent_fill", &TensorDescription::absent_fill)
      .def("__repr__", [](const TensorDescription& t) {
        return "Tensor(" + py::repr(py::str(t.name)).cast<std::string>() + ", " + t.dtype + ", shape=" +
               py::repr(t.shape).cast<std::string>() + ", dims=" + py::repr(t.dims).cast<std::string>() + ")";
      });
  py::class_<OpDescription>(m, "Op", "One op of the graph, in execution order")
      .def_readonly("name", &OpDescription::name)
      .def_readonly("kind", &OpDescription::kind)
      .def_readonly("inputs", &OpDescription::inputs)
      .def_readonly("outputs", &OpDescription::outputs)
      .def_readonly("attention_heads", &OpDescription::attention_heads)
      .def_readonly("kv_cache_capacity", &OpDescription::kv_cache_capacity)
      .def_readonly("int8_activations", &OpDescription::int8_activations)
      .def("__repr__", [](const OpDescription& o) { return "Op(" + o.kind + " " + o.name + ")"; });
}

}  // namespace

void register_model(py::module_& m) {
  register_descriptions(m);
  py::class_<ModelFile, std::shared_ptr<ModelFile>>(m, "Model", "A verified .focal model (see focal.load)")
      .def_property_readonly("path", [](const ModelFile& f) { return f.path().empty() ? py::object(py::none()) : py::object(py::str(f.path())); })
      .def_property_readonly("zero_copy", &ModelFile::zero_copy, "True when the file or buffer is used in place")
      .def_property_readonly("size", [](const ModelFile& f) { return f.model().size(); })
      .def_property_readonly("version", [](const ModelFile& f) { return f.model().version(); })
      .def_property_readonly("architecture", [](const ModelFile& f) { return f.model().architecture(); })
      .def_property_readonly("producer", [](const ModelFile& f) { return f.model().producer(); })
      .def_property_readonly("hyperparameters", [](const ModelFile& f) { return hyperparameters(f.model()); })
      .def_property_readonly("inputs", [](const ModelFile& f) {
        return describe_all(f.model(), f.model().input_count(), &Model::input_tensor);
      })
      .def_property_readonly("outputs", [](const ModelFile& f) {
        return describe_all(f.model(), f.model().output_count(), &Model::output_tensor);
      })
      .def_property_readonly("tensors", [](const ModelFile& f) {
        std::vector<TensorDescription> all;
        for (int t = 0; t < f.model().tensor_count(); ++t) all.push_back(describe(f.model(), t));
        return all;
      })
      .def_property_readonly("ops", [](const ModelFile& f) {
        std::vector<OpDescription> all;
        for (int o = 0; o < f.model().op_count(); ++o) all.push_back(describe_op(f.model(), o));
        return all;
      })
      .def_property_readonly("stages", [](const ModelFile& f) {
        std::vector<std::string> names;
        for (int s = 0; s < f.model().stage_count(); ++s) names.emplace_back(f.model().stage(s).name);
        return names;
      })
      .def_property_readonly("symbols", [](const ModelFile& f) {
        py::dict symbols;  // name -> planned maximum
        for (int s = 0; s < f.model().symbol_count(); ++s) symbols[py::str(f.model().symbol(s).name)] = f.model().symbol(s).max;
        return symbols;
      })
      .def_property_readonly("arena_bytes", [](const ModelFile& f) { return f.model().arena_bytes(); })
      .def_property_readonly("parameter_count", [](const ModelFile& f) { return f.model().parameter_count(); })
      .def_property_readonly("parameter_bytes", [](const ModelFile& f) { return f.model().parameter_bytes(); })
      .def_property_readonly("self_test_count", [](const ModelFile& f) { return f.model().self_test_count(); })
      .def("tokenize",
           [](const ModelFile& f, const std::string& text, bool add_special_tokens, bool parse_special, bool target) {
             return tokenize(f.model(), text, target, add_special_tokens, parse_special);
           },
           py::arg("text"), py::arg("add_special_tokens") = true, py::arg("parse_special") = true,
           py::arg("target") = false,
           "Token ids of `text` through the tokenizer stored in the model, with the special tokens the model\n"
           "adds ([CLS] ... [SEP], <s> ...) as transformers' encode() does; add_special_tokens=False: the\n"
           "text's ids alone. parse_special=False: special tokens written in the text are plain text.")
      .def("apply_chat_template", &apply_chat_template, py::arg("messages"), py::arg("add_generation_prompt") = true,
           "The conversation [{'role': 'system' | 'user' | 'assistant', 'content': str}, ...] as the prompt text\n"
           "of the model's chat format (tokenizer_config.json's chat_template, recognized at conversion), as\n"
           "transformers' apply_chat_template(..., tokenize=False); focal.Error when the model has none")
      // focal/_generation.py's Model.detokenize decodes them (errors="replace").
      .def("_detokenize", &detokenize, py::arg("ids"), py::arg("target"));
  m.def("_load_path", &ModelFile::open, py::arg("path"));
  m.def("_load_buffer", &ModelFile::from_buffer, py::arg("buffer"));
}

}  // namespace python
}  // namespace focal
