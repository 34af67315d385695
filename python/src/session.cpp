// Session.run and Session.run_stage: NumPy arrays in (by input name), NumPy arrays out
// (by output name). Per run, with `out` arrays given, this allocates nothing beyond what
// Session::run does (tests/python/test_module_allocations.py counts it).
#include "session.h"

#include <pybind11/stl.h>

#include <string>

#include "arrays.h"
#include "errors.h"

namespace py = pybind11;

namespace focal {
namespace python {

PySession::PySession(std::shared_ptr<ModelFile> model, int64_t max_batch, int64_t max_seq, int threads)
    : model_(std::move(model)) {
  if (threads < 1 || threads > 256) raise_error(StatusCode::kInvalidArgument, "threads must be 1 to 256");
  pool_ = std::make_unique<ThreadPool>(threads);
  check(pool_->status());  // fewer threads than asked
  SessionOptions options;
  options.max_batch = max_batch;
  options.max_seq = max_seq;
  options.parallel = pool_.get();
  check(cli::open_session(model_->model(), options, &owned_));
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

std::string names_of(const Session& s, bool inputs) {
  std::string names;
  const int count = inputs ? s.input_count() : s.output_count();
  for (int i = 0; i < count; ++i) {
    const Model& m = s.model();
    names += (i > 0 ? ", " : "") + std::string(m.tensor(inputs ? m.input_tensor(i) : m.output_tensor(i)).name);
  }
  return names;
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

int stage_index(PySession& owner, const std::string& name) {
  const int stage = owner.session().find_stage(name.c_str());
  if (stage < 0) raise_error(StatusCode::kInvalidArgument, "the model has no stage '" + name + "'");
  return stage;
}

std::vector<std::string> names(const Session& s, bool inputs) {
  std::vector<std::string> all;
  const Model& m = s.model();
  const int count = inputs ? s.input_count() : s.output_count();
  for (int i = 0; i < count; ++i) all.emplace_back(m.tensor(inputs ? m.input_tensor(i) : m.output_tensor(i)).name);
  return all;
}

}  // namespace

void register_session(py::module_& m) {
  py::class_<PySession> session(m, "Session", "A session of a Model, with its own arena and threads");
  session
      .def(py::init<std::shared_ptr<ModelFile>, int64_t, int64_t, int>(), py::arg("model"), py::arg("max_batch") = 0,
           py::arg("max_seq") = 0, py::arg("threads") = 1)
      .def(
          "run", [](PySession& s, const py::dict& inputs, const py::object& out, bool view) { return run_graph(s, -1, inputs, out, view); },
          py::arg("inputs"), py::arg("out") = py::none(), py::arg("view") = false)
      .def(
          "run_stage",
          [](PySession& s, const std::string& stage, const py::dict& inputs, const py::object& out, bool view) {
            return run_graph(s, stage_index(s, stage), inputs, out, view);
          },
          py::arg("stage"), py::arg("inputs"), py::arg("out") = py::none(), py::arg("view") = false)
      .def("reset_state", [](PySession& s) { s.session().reset_state(); })
      .def_property_readonly("model", &PySession::model)
      .def_property_readonly("inputs", [](PySession& s) { return names(s.session(), true); })
      .def_property_readonly("outputs", [](PySession& s) { return names(s.session(), false); })
      .def_property_readonly("cached_length", [](PySession& s) { return s.session().cached_length(); })
      .def_property_readonly("cache_capacity", [](PySession& s) { return s.session().cache_capacity(); })
      .def_property_readonly("arena_bytes", &PySession::arena_bytes);
  register_generation(session);
}

}  // namespace python
}  // namespace focal
