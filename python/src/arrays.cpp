#include "arrays.h"

#include <cstring>
#include <string>
#include <vector>

#include "errors.h"

namespace py = pybind11;

namespace focal {
namespace python {
namespace {

constexpr auto kCStyle = py::array::c_style;

template <class T>
bool is_c_array_of(py::handle value) {
  return py::isinstance<py::array_t<T>>(value) && (py::reinterpret_borrow<py::array>(value).flags() & kCStyle) != 0;
}

std::string shape_text(const Shape& shape) {
  std::string text = "(";
  for (int i = 0; i < shape.rank; ++i) text += (i > 0 ? ", " : "") + std::to_string(shape.dims[i]);
  return text + (shape.rank == 1 ? ",)" : ")");
}

const char* numpy_name(DType dtype) { return dtype == DType::kI32 ? "int32" : "float32"; }

// `value` as a C-contiguous array of the input's dtype: itself when it is one, else a
// converted copy (integers checked to fit int32 exactly, as `focal run` does).
py::array as_input_array(py::handle value, DType dtype, const char* name) {
  if (dtype == DType::kF32 ? is_c_array_of<float>(value) : is_c_array_of<int32_t>(value)) {
    return py::reinterpret_borrow<py::array>(value);
  }
  const py::array given = py::module_::import("numpy").attr("asarray")(value);
  const char kind = given.dtype().kind();
  const bool integers = kind == 'i' || kind == 'u' || kind == 'b';
  if (dtype == DType::kF32) {
    if (kind != 'f' && !integers) raise_error(StatusCode::kInvalidArgument, std::string("input '") + name + "' takes float32 values, given dtype " + py::str(given.dtype()).cast<std::string>());
    return py::array_t<float, kCStyle | py::array::forcecast>::ensure(given);
  }
  if (!integers) {
    raise_error(StatusCode::kInvalidArgument, std::string("input '") + name + "' takes integer ids (int32), given dtype " +
                                                  py::str(given.dtype()).cast<std::string>());
  }
  py::array converted = given.attr("astype")("int32", "C");
  if (!py::module_::import("numpy").attr("array_equal")(converted, given).cast<bool>()) {
    raise_error(StatusCode::kOutOfRange, std::string("input '") + name + "' holds a value outside int32");
  }
  return converted;
}

}  // namespace

void set_input_array(Session& session, int index, const char* name, py::handle value) {
  const TensorInfo info = session.model().tensor(session.model().input_tensor(index));
  const py::array array = as_input_array(value, info.dtype, name);
  Shape shape;
  if (array.ndim() > kMaxRank) {
    raise_error(StatusCode::kInvalidArgument, std::string("input '") + name + "' has " + std::to_string(array.ndim()) + " dims");
  }
  shape.rank = static_cast<int>(array.ndim());
  for (int i = 0; i < shape.rank; ++i) shape.dims[i] = array.shape(i);
  check(session.set_input(index, shape, array.data(), static_cast<size_t>(array.nbytes())));
}

py::array copy_of(const TensorView& output) {
  std::vector<py::ssize_t> shape(output.shape.dims, output.shape.dims + output.shape.rank);
  py::array result = output.dtype == DType::kI32 ? py::array(py::dtype::of<int32_t>(), shape)
                                                 : py::array(py::dtype::of<float>(), shape);
  std::memcpy(result.mutable_data(), output.data, static_cast<size_t>(result.nbytes()));
  return result;
}

py::array view_of(const TensorView& output, py::handle owner) {
  std::vector<py::ssize_t> shape(output.shape.dims, output.shape.dims + output.shape.rank);
  py::array result = output.dtype == DType::kI32 ? py::array(py::dtype::of<int32_t>(), shape, output.data, owner)
                                                 : py::array(py::dtype::of<float>(), shape, output.data, owner);
  py::detail::array_proxy(result.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return result;
}

void copy_into(const TensorView& output, py::handle target) {
  const bool typed = output.dtype == DType::kI32 ? is_c_array_of<int32_t>(target) : is_c_array_of<float>(target);
  bool fits = typed;
  if (fits) {
    const auto array = py::reinterpret_borrow<py::array>(target);
    fits = array.writeable() && array.ndim() == output.shape.rank;
    for (int i = 0; fits && i < output.shape.rank; ++i) fits = array.shape(i) == output.shape.dims[i];
  }
  if (!fits) {
    raise_error(StatusCode::kInvalidArgument, std::string("out['") + output.name + "'] must be a writable C-contiguous " +
                                                  numpy_name(output.dtype) + " array of shape " + shape_text(output.shape));
  }
  const size_t bytes = static_cast<size_t>(output.shape.element_count()) * dtype_size(output.dtype);
  std::memcpy(py::reinterpret_borrow<py::array>(target).mutable_data(), output.data, bytes);
}

}  // namespace python
}  // namespace focal
