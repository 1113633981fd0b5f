#include "python/errors.h"

namespace pteshare::python {
namespace {

namespace py = pybind11;

// Created once at import and never freed: the module cannot be unloaded.
PyObject* error_class = nullptr;
PyObject* bad_input_class = nullptr;
PyObject* no_valid_plan_class = nullptr;
PyObject* io_class = nullptr;

PyObject* NewClass(py::module_& module, const char* name, const char* doc, PyObject* base) {
  const std::string qualified = std::string("pteshare.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (cls == nullptr) throw py::error_already_set();
  module.add_object(name, py::reinterpret_borrow<py::object>(cls));
  return cls;
}

}  // namespace

void AddExceptions(py::module_& module) {
  error_class = NewClass(module, "Error",
                         "A pteshare call failed; the message is the CLI's one line "
                         "(FILE: what went wrong).",
                         PyExc_Exception);
  bad_input_class =
      NewClass(module, "BadInputError",
               "Bad options, or an unreadable or invalid program (the CLI exits 2).", error_class);
  no_valid_plan_class = NewClass(module, "NoValidPlanError",
                                 "The program is fine but no plan fits an arena limit, verifies "
                                 "or can be patched in (the CLI exits 1).",
                                 error_class);
  io_class = NewClass(
      module, "IoError",
      "Writing the result failed; the input is as it was, unless the message says the result "
      "is in place and only its folder's fsync failed (the CLI exits 2).",
      error_class);
}

void Raise(const std::string& file, const Error& error) {
  PyObject* cls = bad_input_class;
  switch (error.kind) {
    case ErrorKind::kBadInput:
      cls = bad_input_class;
      break;
    case ErrorKind::kNoValidPlan:
      cls = no_valid_plan_class;
      break;
    case ErrorKind::kIo:
      cls = io_class;
      break;
  }
  const std::string line = file.empty() ? error.message : file + ": " + error.message;
  // A message may quote a tensor name or a path that is not UTF-8.
  PyObject* text =
      PyUnicode_DecodeUTF8(line.data(), static_cast<Py_ssize_t>(line.size()), "backslashreplace");
  if (text == nullptr) throw py::error_already_set();
  PyErr_SetObject(cls, text);
  Py_DECREF(text);
  throw py::error_already_set();
}

}  // namespace pteshare::python
