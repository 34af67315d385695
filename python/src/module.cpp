// focal._focal: the compiled half of the Python package (python/focal/__init__.py is
// the other half, and the documented interface).
#include "bindings.h"

PYBIND11_MODULE(_focal, m) {
  m.doc() = "focal's engine, converter and command line (use the focal package, not this module)";
  focal::python::register_errors(m);
  focal::python::register_model(m);
  focal::python::register_session(m);
  focal::python::register_conversion(m);
  focal::python::register_command_line(m);
  m.attr("__version__") = FOCAL_VERSION;  // the project's version (CMakeLists.txt)
}
