// focal.convert: `focal convert`'s options (focal/__init__.py turns keyword arguments
// into them) parsed by the command's own parser, converted with the GIL released.
#include <pybind11/stl.h>

#include <cctype>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/convert_arguments.h"
#include "errors.h"
#include "presets/preset.h"

namespace py = pybind11;

namespace focal {
namespace python {
namespace {

// What a conversion gives besides the bytes; accuracy is int8_accuracy.h's report as
// JSON text (`focal convert --json`'s "int8_activations"), empty without int8 activations;
// fit the --fit report's (fit/fit_report.h, "fit"), empty without --fit.
struct Conversion {
  py::bytes bytes;
  std::vector<std::string> warnings;
  int self_tests = 0;
  bool self_test_computed = false;
  float self_test_worst_ratio = 0.0f;
  std::string accuracy_json;
  std::string fit_json;
};

// Calls the Python progress callback (if any) under the GIL; its first exception is
// kept and raised after the conversion.
struct Progress {
  py::handle callback;
  std::exception_ptr error;
  void report(const std::string& line) {
    if (callback.is_none() || error) return;
    const py::gil_scoped_acquire acquire;
    try {
      callback(line);
    } catch (...) {
      error = std::current_exception();
    }
  }
};

// The command-line parser's message in the words of Python's keyword arguments:
// "--max-seq" becomes "max_seq".
std::string keyword_message(const std::string& message) {
  std::string text;
  bool in_option = false;
  for (size_t i = 0; i < message.size(); ++i) {
    const bool starts = message.compare(i, 2, "--") == 0 && i + 2 < message.size() &&
                        std::isalpha(static_cast<unsigned char>(message[i + 2])) != 0;
    if (starts) {
      in_option = true;
      ++i;  // skip both dashes
      continue;
    }
    if (in_option && message[i] == '-') {
      text += '_';
      continue;
    }
    in_option = in_option && (std::isalnum(static_cast<unsigned char>(message[i])) != 0 || message[i] == '_');
    text += message[i];
  }
  return text;
}

Conversion convert(const std::vector<std::string>& arguments, const std::string& output, const py::object& progress) {
  std::vector<char*> argv;
  for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  convert::ConvertOptions options;
  std::string ignored_output;  // -o comes as `output`, never in `arguments`
  const Status parsed = cli::parse_convert_arguments(static_cast<int>(argv.size()), argv.data(), &options, &ignored_output);
  if (!parsed.ok()) {
    // An unknown option is a keyword convert() does not take: TypeError, as Python says it.
    const std::string message = parsed.message();
    const std::string unknown = "unknown option '--";
    if (message.rfind(unknown, 0) == 0) {
      const std::string rest = keyword_message(message.substr(unknown.size() - 2));
      throw py::type_error("convert() got an unexpected keyword argument '" + rest.substr(0, rest.find('\'')) + "'");
    }
    throw py::value_error(keyword_message(message));
  }
  if (!ignored_output.empty()) raise_error(StatusCode::kInvalidArgument, "give the output file as output=, not -o");
  Progress reporter{progress, nullptr};
  options.progress = [&reporter](const std::string& line) { reporter.report(line); };
  std::optional<Result<convert::Converted>> converted;
  {
    const py::gil_scoped_release release;
    converted.emplace(cli::convert_and_write(options, output));
  }
  if (reporter.error) std::rethrow_exception(reporter.error);
  const convert::Converted& c = value_or_raise(std::move(*converted));
  Conversion result{py::bytes(reinterpret_cast<const char*>(c.bytes.data()), c.bytes.size()), c.warnings,
                    c.self_tests, c.self_test_computed, c.self_test_worst_ratio, "", ""};
  if (!c.accuracy.layers.empty()) result.accuracy_json = convert::accuracy_json(c.accuracy).dump();
  if (!c.fit.choices.empty()) result.fit_json = convert::fit_json(c.fit).dump();
  return result;
}

std::vector<std::pair<std::string, std::string>> presets() {
  size_t count = 0;
  const convert::Preset* all = convert::presets(&count);
  std::vector<std::pair<std::string, std::string>> list;
  for (size_t i = 0; i < count; ++i) list.emplace_back(all[i].name, all[i].description);
  return list;
}

}  // namespace

void register_conversion(py::module_& m) {
  py::class_<Conversion>(m, "Conversion", "What focal.convert made: the model's bytes and the converter's report")
      .def_readonly("bytes", &Conversion::bytes)
      .def_readonly("warnings", &Conversion::warnings)
      .def_readonly("self_tests", &Conversion::self_tests)
      .def_readonly("self_test_computed", &Conversion::self_test_computed)
      .def_readonly("self_test_worst_ratio", &Conversion::self_test_worst_ratio)
      .def_readonly("_accuracy_json", &Conversion::accuracy_json)
      .def_readonly("_fit_json", &Conversion::fit_json);
  m.def("_convert", &convert, py::arg("arguments"), py::arg("output"), py::arg("progress"));
  m.def("presets", &presets, "(name, description) of every converter preset, as `focal convert --list-presets`");
}

}  // namespace python
}  // namespace focal
