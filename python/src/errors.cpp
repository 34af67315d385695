#include "errors.h"

namespace py = pybind11;

namespace focal {
namespace python {
namespace {

// focal.Error, created once at import and kept for the interpreter's life.
PyObject* error_type = nullptr;

}  // namespace

void raise_error(StatusCode code, const std::string& message) {
  py::object error = py::reinterpret_borrow<py::object>(error_type)(message);
  error.attr("code") = status_code_name(code);
  PyErr_SetObject(error_type, error.ptr());
  throw py::error_already_set();
}

void register_errors(py::module_& m) {
  error_type = PyErr_NewExceptionWithDoc(
      "focal.Error",
      "A failure reported by focal's engine, converter or tools. str(error) is the engine's\n"
      "message; error.code names its status code ('invalid argument', 'invalid model', ...).",
      PyExc_RuntimeError, nullptr);
  if (error_type == nullptr) throw py::error_already_set();
  m.attr("Error") = py::reinterpret_borrow<py::object>(error_type);
}

}  // namespace python
}  // namespace focal
