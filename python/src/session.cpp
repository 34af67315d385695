// Session.run and Session.run_stage: NumPy arrays in (by input name), NumPy arrays out
// (by output name). Per run, with `out` arrays given, this allocates nothing beyond what
// Session::run does (tests/python/test_module_allocations.py counts it).
#include "session.h"

#include <pybind11/stl.h>

#include <cstring>
#include <string>

#include "arrays.h"
#include "cli/command_line.h"
#include "errors.h"

namespace py = pybind11;

namespace focal {
namespace python {

PySession::PySession(std::shared_ptr<ModelFile> model, int64_t max_batch, int64_t max_seq, int threads)
    : model_(std::move(model)) {
  // Bad values are ValueErrors naming the argument, as Python's own functions raise them.
  if (threads < 1 || threads > cli::kMaxThreads) {
    throw py::value_error("threads must be 1 to " + std::to_string(cli::kMaxThreads) + ", not " + std::to_string(threads));
  }
  if (max_batch < 0) throw py::value_error("max_batch must be 0 (the model's plan) or more, not " + std::to_string(max_batch));
  if (max_seq < 0) throw py::value_error("max_seq must be 0 (the model's plan) or more, not " + std::to_string(max_seq));
  threads_ = threads;
  SessionOptions options;
  options.max_batch = max_batch;
  options.max_seq = max_seq;
  check(OwnedSession::open(model_->model(), options, threads, &owned_));  // fewer threads than asked: raises
  const Model& m = model_->model();
  for (int s = 0; s < m.stage_count(); ++s) {
    const StageInfo stage = m.stage(s);
    uint64_t written = 0;
    for (int o = stage.first_op; o < stage.first_op + stage.op_count; ++o) {
      for (int i = 0; i < m.op(o).output_count; ++i) {
        for (int out = 0; out < m.output_count(); ++out) {
          if (m.output_tensor(out) == m.op_output(o, i)) written |= uint64_t(1) << out;
        }
      }
    }
    stage_outputs_.push_back(written);
  }
}

uint64_t PySession::outputs_of_stage(int stage) const {
  if (stage >= 0 && static_cast<size_t>(stage) < stage_outputs_.size()) return stage_outputs_[static_cast<size_t>(stage)];
  return model_->model().output_count() >= 64 ? ~uint64_t(0) : (uint64_t(1) << model_->model().output_count()) - 1;
}

PySession::Use::Use(PySession& s) : session_(s) {
  if (s.busy_.exchange(true)) {
    raise_error(StatusCode::kInvalidArgument,
                "this Session is running on another thread: give each thread its own Session, or hold a lock");
  }
}

namespace {

// The UTF-8 text of a str key, read in place (no copy for ASCII names).
const char* key_text(py::handle key) {
  if (!PyUnicode_Check(key.ptr())) raise_error(StatusCode::kInvalidArgument, "names must be str");
  const char* text = PyUnicode_AsUTF8(key.ptr());
  if (text == nullptr) throw py::error_already_set();
  return text;
}

std::vector<std::string> names(const Session& s, bool inputs) {
  std::vector<std::string> all;
  const Model& m = s.model();
  const int count = inputs ? s.input_count() : s.output_count();
  for (int i = 0; i < count; ++i) all.emplace_back(m.tensor(inputs ? m.input_tensor(i) : m.output_tensor(i)).name);
  return all;
}

// "a, b, c": the names, for error messages.
std::string names_of(const Session& s, bool inputs) {
  std::string text;
  for (const std::string& name : names(s, inputs)) text += (text.empty() ? "" : ", ") + name;
  return text;
}

void set_inputs(Session& s, const py::dict& inputs) {
  for (auto item : inputs) {
    const char* name = key_text(item.first);
    const int index = s.find_input(name);
    if (index < 0) {
      raise_error(StatusCode::kInvalidArgument, std::string("the model has no input '") + name + "' (inputs: " + names_of(s, true) + ")");
    }
    set_input_array(s, index, name, item.second);
  }
}

py::object collect_outputs(PySession& owner, int stage, const py::object& out, bool view) {
  Session& s = owner.session();
  if (!out.is_none()) {
    for (auto item : py::reinterpret_borrow<py::dict>(out)) {
      const char* name = key_text(item.first);
      const int index = s.find_output(name);
      if (index < 0) {
        raise_error(StatusCode::kInvalidArgument, std::string("the model has no output '") + name + "' (outputs: " + names_of(s, false) + ")");
      }
      copy_into(s.output(index), item.second);
    }
    return out;
  }
  py::dict outputs;
  const uint64_t written = owner.outputs_of_stage(stage);
  const py::object self = py::cast(&owner, py::return_value_policy::reference);
  for (int i = 0; i < s.output_count(); ++i) {
    if ((written >> i & 1) == 0) continue;
    const TensorView output = s.output(i);
    outputs[py::str(output.name)] = view ? view_of(output, self) : copy_of(output);
  }
  return std::move(outputs);
}

// One run of the whole graph (stage -1) or of one stage.
py::object run_graph(PySession& owner, int stage, const py::dict& inputs, const py::object& out, bool view) {
  if (!out.is_none() && !py::isinstance<py::dict>(out)) raise_error(StatusCode::kInvalidArgument, "out must be a dict of arrays");
  const PySession::Use use(owner);
  Session& s = owner.session();
  set_inputs(s, inputs);
  Status status;
  {
    const py::gil_scoped_release release;
    status = stage < 0 ? s.run() : s.run_stage(stage);
  }
  check(status);
  return collect_outputs(owner, stage, out, view);
}

int stage_index(PySession& owner, const char* name) {
  const int stage = owner.session().find_stage(name);
  if (stage < 0) raise_error(StatusCode::kInvalidArgument, std::string("the model has no stage '") + name + "'");
  return stage;
}

// Session.run, .run_stage and .reset_state are plain CPython methods (METH_FASTCALL):
// pybind11's dispatcher allocates two vectors per call, which would break "nothing
// allocated per run". Arguments by position or keyword, as pybind11 would take them.
constexpr int kMaxArguments = 4;

// Binds positional and keyword arguments to `names` (unset: null); false with a
// TypeError set for too many, unknown or repeated ones.
bool bind_arguments(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, const char* const* names, int count,
                    PyObject** bound) {
  for (int i = 0; i < count; ++i) bound[i] = i < nargs ? args[i] : nullptr;
  if (nargs > count) {
    PyErr_Format(PyExc_TypeError, "takes at most %d arguments (%zd given)", count, nargs);
    return false;
  }
  const Py_ssize_t keywords = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < keywords; ++k) {
    const char* keyword = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if (keyword == nullptr) return false;
    int slot = 0;
    while (slot < count && std::strcmp(names[slot], keyword) != 0) ++slot;
    if (slot == count || bound[slot] != nullptr) {
      PyErr_Format(PyExc_TypeError, "unexpected or repeated argument '%s'", keyword);
      return false;
    }
    bound[slot] = args[nargs + k];
  }
  return true;
}

// Runs `body` with C++ exceptions turned into the Python error they carry.
template <class Body>
PyObject* guarded(Body body) {
  try {
    return body();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

py::dict required_dict(PyObject* value, const char* name) {
  if (value == nullptr || !PyDict_Check(value)) throw py::type_error(std::string(name) + " must be a dict of arrays");
  return py::reinterpret_borrow<py::dict>(value);
}

py::object optional(PyObject* value) {
  return value != nullptr ? py::reinterpret_borrow<py::object>(value) : py::none();
}

PyObject* run_method(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guarded([&] {
    static const char* const names[] = {"inputs", "out", "view"};
    PyObject* bound[kMaxArguments];
    if (!bind_arguments(args, nargs, kwnames, names, 3, bound)) return static_cast<PyObject*>(nullptr);
    PySession& session = py::cast<PySession&>(py::handle(self));
    const bool view = bound[2] != nullptr && PyObject_IsTrue(bound[2]) == 1;
    return run_graph(session, -1, required_dict(bound[0], "inputs"), optional(bound[1]), view).release().ptr();
  });
}

PyObject* run_stage_method(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guarded([&] {
    static const char* const names[] = {"stage", "inputs", "out", "view"};
    PyObject* bound[kMaxArguments];
    if (!bind_arguments(args, nargs, kwnames, names, 4, bound)) return static_cast<PyObject*>(nullptr);
    PySession& session = py::cast<PySession&>(py::handle(self));
    if (bound[0] == nullptr) throw py::type_error("run_stage needs the stage's name");
    const int stage = stage_index(session, key_text(bound[0]));
    const bool view = bound[3] != nullptr && PyObject_IsTrue(bound[3]) == 1;
    return run_graph(session, stage, required_dict(bound[1], "inputs"), optional(bound[2]), view).release().ptr();
  });
}

PyObject* reset_state_method(PyObject* self, PyObject* /*unused*/) {
  return guarded([&] {
    py::cast<PySession&>(py::handle(self)).session().reset_state();
    Py_RETURN_NONE;
  });
}

template <class Method>
PyCFunction as_cfunction(Method method) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(method));
}

PyMethodDef fast_methods[] = {
    {"run", as_cfunction(run_method), METH_FASTCALL | METH_KEYWORDS,
     "run(inputs, out=None, view=False) -> {output name: array}\n"
     "Sets every input from inputs {name: array} and runs the whole graph. Outputs: new\n"
     "arrays; with out={name: array}, written into those arrays (returns out); with\n"
     "view=True, read-only views of the arena, valid until the next run."},
    {"run_stage", as_cfunction(run_stage_method), METH_FASTCALL | METH_KEYWORDS,
     "run_stage(stage, inputs, out=None, view=False) -> {output name: array}\n"
     "Runs one stage (e.g. 'encode', 'decode'); returns the outputs that stage writes."},
    {"reset", as_cfunction(reset_state_method), METH_NOARGS,
     "reset()\nEmpties the KV caches: the next run() starts a new sequence. run() continues the\n"
     "sequence the previous run() left (one step at a time); generate() and translate() start\n"
     "and end with empty caches."},
    {"reset_state", as_cfunction(reset_state_method), METH_NOARGS, "reset_state()\nThe same as reset()."},
};

void add_fast_methods(py::handle type) {
  for (PyMethodDef& method : fast_methods) {
    const py::object descriptor =
        py::reinterpret_steal<py::object>(PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(type.ptr()), &method));
    if (!descriptor) throw py::error_already_set();
    type.attr(method.ml_name) = descriptor;
  }
}

}  // namespace

void register_session(py::module_& m) {
  py::class_<PySession> session(m, "Session",
                                "Session(model, max_batch=0, max_seq=0, threads=1)\n"
                                "A session of a Model: an arena of its own (sized for max_batch and max_seq; 0: the\n"
                                "model's plan) and `threads` worker threads. One thread at a time may call it.");
  session
      .def(py::init<std::shared_ptr<ModelFile>, int64_t, int64_t, int>(), py::arg("model"), py::arg("max_batch") = 0,
           py::arg("max_seq") = 0, py::arg("threads") = 1)
      .def_property_readonly("model", &PySession::model, "The Model this session runs")
      .def_property_readonly("inputs", [](PySession& s) { return names(s.session(), true); }, "Input names")
      .def_property_readonly("outputs", [](PySession& s) { return names(s.session(), false); }, "Output names")
      .def_property_readonly("cached_length", [](PySession& s) { return s.session().cached_length(); },
                             "Tokens in the KV caches (0 after reset(), generate() and translate())")
      .def_property_readonly("cache_capacity", [](PySession& s) { return s.session().cache_capacity(); },
                             "The most tokens the KV caches hold (0 for a model without caches)")
      .def_property_readonly("threads", &PySession::threads, "Worker threads")
      .def_property_readonly("arena_bytes", &PySession::arena_bytes, "The size of the session's arena");
  add_fast_methods(session);
  register_generation(session);
}

}  // namespace python
}  // namespace focal
