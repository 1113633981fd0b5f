#include "python/source.h"

#include "python/errors.h"

#include <optional>

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
    // A bytearray or memoryview may change while the GIL is released, so it
    // is copied, in C order whatever its layout: a reversed or strided
    // memoryview gives the bytes bytes(source) would, not the memory under
    // its first element read as if contiguous.
    Py_buffer view;
    if (PyObject_GetBuffer(source.ptr(), &view, PyBUF_FULL_RO) != 0) throw py::error_already_set();
    copy_.resize(static_cast<size_t>(view.len));
    const int copied = PyBuffer_ToContiguous(copy_.data(), &view, view.len, 'C');
    PyBuffer_Release(&view);
    if (copied != 0) throw py::error_already_set();
    bytes_ = copy_;
    return;
  }
  py::object os = py::module_::import("os");
  py::object path = os.attr("fsdecode")(os.attr("fspath")(source));
  path_ = path.cast<std::string>();
  if (path_.empty()) Raise("", Error{"the path is empty"});
  // The system calls would stop at the NUL and name another file; Python's
  // open() refuses such a path the same way.
  if (path_.find('\0') != std::string::npos) throw py::value_error("embedded null byte in path");
}

OpenedProgram Source::Open() const {
  std::optional<Result<OpenedProgram>> opened;
  {
    // Opening may wait for another writer's lock (a thread of this process
    // rewriting the file): other Python threads run meanwhile.
    py::gil_scoped_release unlocked;
    opened.emplace(is_bytes() ? OpenProgramBytes(bytes_) : OpenProgram(path_));
  }
  if (!opened->ok()) Raise(path_, opened->error());
  if (!opened->value().notice.empty()) Warn(path_, opened->value().notice);
  return std::move(*opened).value();
}

void Warn(const std::string& file, const std::string& message) {
  const std::string line = file.empty() ? message : file + ": " + message;
  // As Raise: a message may quote bytes that are not UTF-8.
  const py::object text = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeUTF8(line.data(), static_cast<Py_ssize_t>(line.size()), "backslashreplace"));
  if (!text) throw py::error_already_set();
  py::module_::import("warnings").attr("warn")(text, py::handle(PyExc_UserWarning), 2);
}

}  // namespace pteshare::python
