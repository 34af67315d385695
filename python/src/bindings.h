// The parts of the focal Python module (_focal), each registered by its own file.
#pragma once

#include <pybind11/pybind11.h>

namespace focal {
namespace python {

void register_errors(pybind11::module_& m);        // errors.cpp: focal.Error
void register_model(pybind11::module_& m);         // model.cpp: load, Model, inspection
void register_session(pybind11::module_& m);       // session.cpp: Session, run, stages
void register_conversion(pybind11::module_& m);    // conversion.cpp: convert, presets
void register_command_line(pybind11::module_& m);  // command_line.cpp: the CLI in process

}  // namespace python
}  // namespace focal
