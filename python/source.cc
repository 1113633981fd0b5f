#include "python/source.h"

#include "python/errors.h"

namespace pteshare::python {

namespace py = pybind11;

Source::Source(const py::object& source) {
  if (py::isinstance<py::bytes>(source)) {
    // bytes cannot change under us, even with the GIL released: read in place.
    owner_ = source;
    char* data = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(source.ptr(), &data, &size) != 0) throw py::error_already_set();
    bytes_ = {reinterpret_cast<const uint8_t*>(data), static_cast<size_t>(size)};
    return;
  }
  if (PyObject_CheckBuffer(source.ptr())) {
    // A bytearray or memoryview may change while the GIL is released.
    py::buffer_info info = py::reinterpret_borrow<py::buffer>(source).request();
    const auto* first = static_cast<const uint8_t*>(info.ptr);
    copy_.assign(first, first + info.size * info.itemsize);
    bytes_ = copy_;
    return;
  }
  py::object os = py::module_::import("os");
  py::object path = os.attr("fsdecode")(os.attr("fspath")(source));
  path_ = path.cast<std::string>();
  if (path_.empty()) Raise("", Error{"the path is empty"});
}

OpenedProgram Source::Open() const {
  Result<OpenedProgram> opened = is_bytes() ? OpenProgramBytes(bytes_) : OpenProgram(path_);
  if (!opened.ok()) Raise(path_, opened.error());
  if (!opened->notice.empty()) Warn(path_, opened->notice);
  return std::move(opened).value();
}

void Warn(const std::string& file, const std::string& message) {
  const std::string line = file.empty() ? message : file + ": " + message;
  if (PyErr_WarnEx(PyExc_UserWarning, line.c_str(), 1) != 0) throw py::error_already_set();
}

}  // namespace pteshare::python
