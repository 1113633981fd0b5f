// The arguments of one call, read as a Python signature
// `f(source, *, keyword=default, ...)` would read them. The module's
// functions take (*args, **kwargs) and read them here because pybind11's own
// message for a call that matches no signature quotes every argument: an
// unknown keyword next to a 6 MB program gave a TypeError of 18.8 million
// characters. These messages name the function and the keyword, never a
// value.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

namespace pteshare::python {

/// A function's keyword-only parameters and their defaults, in order.
using KeywordDefaults = std::vector<std::pair<std::string, pybind11::object>>;

class CallArguments {
 public:
  /// TypeError for anything but one source (positional or source=) and
  /// `keywords`, each at most once.
  CallArguments(const char* function, const pybind11::args& args, const pybind11::kwargs& kwargs,
                const KeywordDefaults& keywords);

  const pybind11::object& source() const { return source_; }
  /// The keyword's value, given or default. `keyword` must be one of those
  /// the constructor was given.
  pybind11::object operator[](const char* keyword) const;

 private:
  std::string function_;
  pybind11::object source_;
  KeywordDefaults values_;
};

}  // namespace pteshare::python
