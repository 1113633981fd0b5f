#include "python/errors.h"

#include "python/keyword_message.h"

namespace pteshare::python {
namespace {

namespace py = pybind11;

// Looked up once at import and never freed: the module cannot be unloaded.
PyObject* bad_input_class = nullptr;
PyObject* no_valid_plan_class = nullptr;
PyObject* io_class = nullptr;

PyObject* ClassOf(const py::module_& errors, const char* name) {
  return py::object(errors.attr(name)).release().ptr();
}

}  // namespace

void AddExceptions(py::module_& module) {
  // The classes are the package's (pteshare/_errors.py), so that they are
  // plain Python classes a script can subclass and `except OSError` can
  // catch; the extension only raises them.
  const py::module_ errors = py::module_::import("pteshare._errors");
  bad_input_class = ClassOf(errors, "BadInputError");
  no_valid_plan_class = ClassOf(errors, "NoValidPlanError");
  io_class = ClassOf(errors, "IoError");
  for (const char* name : {"Error", "BadInputError", "NoValidPlanError", "IoError"}) {
    module.attr(name) = errors.attr(name);
  }
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
  const std::string message = InKeywordTerms(error.message);
  const std::string line = file.empty() ? message : file + ": " + message;
  // A message may quote a tensor name or a path that is not UTF-8.
  PyObject* text =
      PyUnicode_DecodeUTF8(line.data(), static_cast<Py_ssize_t>(line.size()), "backslashreplace");
  if (text == nullptr) throw py::error_already_set();
  PyErr_SetObject(cls, text);
  Py_DECREF(text);
  throw py::error_already_set();
}

}  // namespace pteshare::python
