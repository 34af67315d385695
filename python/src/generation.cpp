// Session.generate (decoder-only models), Session.translate (sequence-to-sequence) and
// Session.self_test, with the defaults `focal generate` and `focal verify` use, so the
// same arguments give the same tokens. The engine runs with the GIL released; a Python
// on_token callback takes it back for each token.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "cli/generation_defaults.h"
#include "errors.h"
#include "focal/generate.h"
#include "focal/self_test.h"
#include "focal/tokenizer.h"
#include "focal/translate.h"
#include "model.h"
#include "session.h"

namespace py = pybind11;

namespace focal {
namespace python {

// A str as UTF-8; a lone surrogate (which UTF-8 cannot hold) is a ValueError.
std::string utf8_text(const py::handle& text, const char* argument) {
  Py_ssize_t size = 0;
  const char* bytes = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (bytes == nullptr) {
    PyErr_Clear();
    throw py::value_error(std::string(argument) + ": the text holds a lone surrogate, which is not valid Unicode");
  }
  return std::string(bytes, static_cast<size_t>(size));
}

namespace {

// A prompt or source: a str through the model's (source-side) tokenizer, or token ids.
// Arguments are checked here, as Python checks its own: a wrong type is a TypeError and
// a wrong value a ValueError, naming the argument (pybind11's own casts said only
// "Unable to cast Python instance").
std::string type_name(const py::handle& value) { return py::str(py::type::handle_of(value).attr("__name__")); }

// A token id: an integer (int, or NumPy's, anything with __index__ but bool) in
// [-1, 2^31 - 1] (-1: none, where the argument allows it).
int32_t token_id(const py::handle& value, const char* argument) {
  if (py::isinstance<py::bool_>(value) || PyIndex_Check(value.ptr()) == 0) {
    throw py::type_error(std::string(argument) + " must be an int token id, not " + type_name(value));
  }
  const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!index) throw py::error_already_set();
  const long long id = PyLong_AsLongLong(index.ptr());
  if (PyErr_Occurred() != nullptr || id < -1 || id > INT32_MAX) {
    PyErr_Clear();
    throw py::value_error(std::string(argument) + " must be a token id from -1 to 2147483647, not " +
                          std::string(py::str(value)));
  }
  return static_cast<int32_t>(id);
}

// A prompt's text gets the tokenizer template's special tokens (add_special_tokens: Llama's
// bos), as transformers' generate and focal generate --prompt; a source's is encoded alone.
std::vector<int32_t> token_ids(const Model& model, const py::object& text_or_ids, const char* argument,
                               bool add_special_tokens) {
  if (py::isinstance<py::str>(text_or_ids)) {
    std::vector<int32_t> ids = tokenize(model, utf8_text(text_or_ids, argument), false, add_special_tokens);
    if (ids.empty()) raise_error(StatusCode::kInvalidArgument, "the text has no tokens");
    return ids;
  }
  if (!py::isinstance<py::sequence>(text_or_ids) || py::isinstance<py::bytes>(text_or_ids)) {
    throw py::type_error(std::string(argument) + " must be a str or a sequence of int token ids, not " +
                         type_name(text_or_ids));
  }
  std::vector<int32_t> ids;
  for (const py::handle item : text_or_ids) ids.push_back(token_id(item, argument));
  return ids;
}

// end_id None: the tokenizer's end token when the model has a tokenizer (the target
// side's for seq2seq), else `fallback`; -1: none.
int32_t end_token(const Model& model, const py::object& end_id, bool target, int32_t fallback) {
  if (!end_id.is_none()) return token_id(end_id, "end_id");
  auto tokenizer = Tokenizer::from_model(model, target);
  return tokenizer.ok() ? tokenizer->eos_id() : fallback;
}

// Collects generated tokens; calls the Python callback, under the GIL, for each.
struct TokenSink {
  std::vector<int32_t> tokens;
  py::handle callback;  // None: no callback
  std::exception_ptr error;
  static bool on_token(int32_t token, void* user) {
    auto* sink = static_cast<TokenSink*>(user);
    sink->tokens.push_back(token);
    if (sink->callback.is_none()) return true;
    const py::gil_scoped_acquire acquire;
    try {
      // None goes on; anything else by its truth, as Python's own `if` takes it.
      const py::object keep_going = sink->callback(token);
      if (keep_going.is_none()) return true;
      const int truth = PyObject_IsTrue(keep_going.ptr());
      if (truth < 0) throw py::error_already_set();  // its __bool__ raised
      return truth == 1;
    } catch (...) {
      sink->error = std::current_exception();  // raised once the engine has returned
      return false;
    }
  }
};

// (tokens, ended): the generated ids, the last one the end token when `ended`. The KV
// caches are emptied afterwards, so a following run() starts a new sequence, as a
// transformers forward pass after generate() does (docs/python.md).
py::tuple generate_tokens(PySession& owner, const py::object& prompt, size_t max_new, float temperature,
                                     int top_k, float top_p, uint64_t seed, const py::object& end_id,
                                     const py::object& on_token) {
  const PySession::Use use(owner);
  Session& session = owner.session();
  const Model& model = session.model();
  const std::vector<int32_t> ids = token_ids(model, prompt, "prompt", true);
  const int logits = session.find_output("logits");
  if (logits < 0) raise_error(StatusCode::kInvalidArgument, "the model has no 'logits' output");
  const Shape logits_shape = model.tensor(model.output_tensor(logits)).shape;
  const size_t vocab = static_cast<size_t>(logits_shape.dims[logits_shape.rank - 1]);  // [1, V] or [1, S, V]
  SamplingOptions sampling;
  sampling.temperature = temperature;
  sampling.top_k = top_k;
  sampling.top_p = top_p;
  sampling.seed = seed;
  std::vector<uint32_t> scratch(sampler_scratch_bytes(vocab) / 4 + 1);
  Sampler sampler = value_or_raise(Sampler::create(sampling, vocab, scratch.data(), scratch.size() * 4));
  GenerateOptions options;
  options.max_new_tokens = max_new;
  // end_id None: any of generation_config.json's eos ids (else the tokenizer's eos), as focal generate stops.
  std::vector<int32_t> end_tokens;
  if (end_id.is_none()) {
    auto tokenizer = Tokenizer::from_model(model);
    end_tokens = cli::default_end_tokens(model, tokenizer.ok() ? tokenizer->eos_id() : -1);
    options.end_tokens = end_tokens.data();
    options.end_token_count = end_tokens.size();
  } else {
    options.end_token = token_id(end_id, "end_id");
  }
  TokenSink sink{{}, on_token, nullptr};
  sink.tokens.reserve(cli::decode_step_limit(session, max_new, ids.size()));
  Status status;
  {
    const py::gil_scoped_release release;
    status = generate(session, ids.data(), ids.size(), sampler, options, TokenSink::on_token, &sink);
  }
  session.reset_state();
  if (sink.error) std::rethrow_exception(sink.error);
  check(status);
  const bool ended = !sink.tokens.empty() && (sink.tokens.back() == options.end_token ||
                                              std::find(end_tokens.begin(), end_tokens.end(), sink.tokens.back()) !=
                                                  end_tokens.end());
  return py::make_tuple(sink.tokens, ended);
}

// (tokens, alignment [len(tokens), len(source)]); the tokens end with the end token
// when one ended the translation, as `focal generate --ids` prints them.
py::tuple translate_source(PySession& owner, const py::object& source, size_t max_new, size_t beam,
                           const py::object& end_id, float length_penalty) {
  const PySession::Use use(owner);
  Session& session = owner.session();
  const std::vector<int32_t> ids = token_ids(session.model(), source, "source", false);
  TranslateOptions options;
  options.max_steps = cli::decode_step_limit(session, max_new, 0);
  options.beam_width = beam;
  options.length_penalty = length_penalty;
  auto target = Tokenizer::from_model(session.model(), true);
  if (target.ok() && target->bos_id() >= 0) options.bos_id = target->bos_id();
  options.eos_id = end_token(session.model(), end_id, true, options.eos_id);
  std::vector<uint64_t> scratch(translate_scratch_bytes(options, ids.size()) / 8 + 1);
  std::vector<int32_t> tokens(options.max_steps);
  py::array_t<float> alignment({static_cast<py::ssize_t>(options.max_steps), static_cast<py::ssize_t>(ids.size())});
  float* alignment_data = alignment.mutable_data();
  std::optional<Result<Translation>> result;
  {
    const py::gil_scoped_release release;
    result.emplace(translate(session, ids.data(), ids.size(), options, scratch.data(), scratch.size() * 8, tokens.data(),
                             alignment_data));
  }
  session.reset_state();  // as after generate: the next run starts a new sequence
  const Translation translation = value_or_raise(std::move(*result));
  tokens.resize(translation.length);
  alignment.resize({static_cast<py::ssize_t>(translation.length), static_cast<py::ssize_t>(ids.size())});
  return py::make_tuple(tokens, alignment);
}

py::dict self_test(PySession& owner) {
  const PySession::Use use(owner);
  if (owner.session().model().self_test_count() == 0) raise_error(StatusCode::kInvalidArgument, "the model has no self-test vectors");
  std::optional<Result<SelfTestReport>> result;
  {
    const py::gil_scoped_release release;
    result.emplace(run_self_tests(owner.session()));
  }
  const SelfTestReport report = value_or_raise(std::move(*result));
  py::dict d;
  d["passed"] = report.failed_cases == 0;
  d["cases"] = report.cases;
  d["failed_cases"] = report.failed_cases;
  d["max_abs_error"] = report.max_abs_error;
  d["worst_tolerance_ratio"] = report.worst_tolerance_ratio;
  return d;
}

}  // namespace

void register_generation(py::class_<PySession>& session) {
  session
      // focal/_generation.py checks the arguments and makes text of the ids (Session.generate).
      .def("_generate", &generate_tokens, py::arg("prompt"), py::arg("max_new"), py::arg("temperature"),
           py::arg("top_k"), py::arg("top_p"), py::arg("seed"), py::arg("end_id"), py::arg("on_token"))
      .def("translate", &translate_source, py::arg("source"), py::arg("max_new") = 16, py::arg("beam") = 1,
           py::arg("end_id") = py::none(), py::arg("length_penalty") = 0.0f,
           "A sequence-to-sequence model's translation of `source` (a str through the source tokenizer, or\n"
           "ids): (ids, alignment [len(ids), len(source)]), the ids ending with the end token when one ended\n"
           "it. beam=K needs Session(model, max_batch=K). The KV caches are empty afterwards.")
      .def("self_test", &self_test,
           "Runs the model's stored self-test: {passed, cases, failed_cases, max_abs_error, worst_tolerance_ratio}");
}

}  // namespace python
}  // namespace focal
