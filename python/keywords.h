// The option table's options (tools/options/option_table.h) as keyword
// arguments: each function's keywords, their defaults and its docstring's
// signature come from the table, and the values given are read into what
// the library takes. Wrong types raise TypeError naming the keyword and the
// type given, never the value (pybind11's own mismatch message quotes every
// argument, a whole program's bytes included, so every keyword is taken as
// an object and converted here); wrong values raise BadInputError naming
// the file, as the CLI does for its flags.
#pragma once

#include <pybind11/pybind11.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "python/call_arguments.h"
#include "tools/options/option_table.h"

namespace pteshare::python {

/// A keyword of one function only, not an option of the table (rewrite's
/// output=, in_place=, write_names=, as the CLI's -o, --in-place and
/// --write-names are rewrite's own flags), and its default.
using OwnKeyword = std::pair<const char*, pybind11::object>;

/// One function's keyword-only parameters, in order: its own `before`, the
/// table's rows of its groups, its own `after`.
class FunctionKeywords {
 public:
  FunctionKeywords(std::initializer_list<OwnKeyword> before,
                   std::initializer_list<options::OptionGroup> groups,
                   std::initializer_list<OwnKeyword> after = {});

  /// Every keyword with its default, for CallArguments.
  const KeywordDefaults& defaults() const { return defaults_; }
  /// The table's options from the call (defaults where not given).
  options::OptionSettings Read(const std::string& file, const CallArguments& call) const;

 private:
  std::vector<const options::OptionRow*> rows_;
  KeywordDefaults defaults_;
};

/// A keyword that must be True or False; TypeError "KEYWORD: a bool, not T".
bool BoolKeyword(const pybind11::object& value, const char* keyword);

}  // namespace pteshare::python
