#include "python/call_arguments.h"

#include <stdexcept>

namespace pteshare::python {

namespace py = pybind11;

namespace {

// A keyword as the user spelled it, cut short if it is long: it is text
// the user typed, but a message stays one line.
std::string Quoted(const py::handle& key) {
  if (!py::isinstance<py::str>(key)) return "(not a str)";
  std::string text = py::str(key).cast<std::string>();
  constexpr size_t kLongest = 64;
  if (text.size() > kLongest) text = text.substr(0, kLongest) + "...";
  return "'" + text + "'";
}

}  // namespace

CallArguments::CallArguments(const char* function, const py::args& args, const py::kwargs& kwargs,
                             const KeywordDefaults& keywords)
    : function_(function), values_(keywords) {
  const std::string name = function_ + "()";
  bool source_given = false;
  if (args.size() > 1) {
    throw py::type_error(name +
                         " takes 1 positional argument (the program: a path or its bytes) "
                         "but " +
                         std::to_string(args.size()) + " were given; the options are keywords");
  }
  if (args.size() == 1) {
    source_ = args[0];
    source_given = true;
  }
  for (const auto& [key, value] : kwargs) {
    const std::string text = py::isinstance<py::str>(key) ? key.cast<std::string>() : "";
    if (text == "source") {
      if (source_given) throw py::type_error(name + " got multiple values for argument 'source'");
      source_ = py::reinterpret_borrow<py::object>(value);
      source_given = true;
      continue;
    }
    bool known = false;
    for (auto& [keyword, stored] : values_) {
      if (keyword == text) {
        stored = py::reinterpret_borrow<py::object>(value);
        known = true;
        break;
      }
    }
    if (!known) {
      throw py::type_error(name + " got an unexpected keyword argument " + Quoted(key));
    }
  }
  if (!source_given) {
    throw py::type_error(name +
                         " missing 1 required argument: 'source' (a path or the program's "
                         "bytes)");
  }
}

py::object CallArguments::operator[](const char* keyword) const {
  for (const auto& [name, value] : values_) {
    if (name == keyword) return value;
  }
  // A programming error in this module, not the caller's.
  throw std::logic_error(function_ + "(): no keyword " + keyword);
}

}  // namespace pteshare::python
