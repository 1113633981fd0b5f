#include "python/keywords.h"

#include <map>
#include <optional>

#include "python/errors.h"
#include "tools/options/names_file.h"
#include "tools/options/option_text.h"

namespace pteshare::python {
namespace {

namespace py = pybind11;
using options::OptionRow;
using options::OptionValue;
using options::ValueKind;

std::string TypeName(const py::handle& value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

// `value` as a T, or TypeError saying what `what` must be and the type it
// got, never its value (pybind11's own cast error is a RuntimeError).
template <typename T>
T Cast(const py::handle& value, const std::string& what) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(what + ", not " + TypeName(value));
  }
}

// A str keyword: bytes would cast to std::string too, but the CLI's flags
// are text.
std::string StrOnly(const py::handle& value, const std::string& keyword) {
  if (!py::isinstance<py::str>(value)) {
    throw py::type_error(keyword + ": a str, not " + TypeName(value));
  }
  return Cast<std::string>(value, keyword + ": a str");
}

// The default a row's keyword takes: its default as the Python value (a
// word as a str, a number as an int), else nothing given (None, False).
py::object DefaultOf(const OptionRow& row) {
  switch (row.kind) {
    case ValueKind::kWord:
      return py::str(row.default_text);
    case ValueKind::kUnsigned:
      return py::int_(options::ReadUnsigned(row.default_text).value());
    case ValueKind::kSwitch:
      return py::bool_(false);
    case ValueKind::kArenaLimits:
    case ValueKind::kNameList:
    case ValueKind::kValueNamings:
    case ValueKind::kNamesFile:
      break;
  }
  return py::none();
}

// "prefill:22" -> {prefill, 22}, read as --name reads it.
ValueNaming NamingFromText(const std::string& file, const std::string& keyword,
                           const std::string& key) {
  if (std::optional<ValueNaming> naming = ParseValuePosition(key)) return *naming;
  Raise(file, Error{keyword + " key '" + key +
                    "': expected 'METHOD:VALUE_INDEX' or (METHOD, VALUE_INDEX), e.g. "
                    "'prefill:22', or 'paired_state.K' for pair K of the unnamed state"});
}

ValueNaming NamingFromKey(const std::string& file, const std::string& keyword,
                          const py::handle& key) {
  if (py::isinstance<py::str>(key)) {
    return NamingFromText(file, keyword, Cast<std::string>(key, "a str"));
  }
  if (py::isinstance<py::tuple>(key) && py::len(key) == 2) {
    const py::tuple pair = py::reinterpret_borrow<py::tuple>(key);
    return ValueNaming{Cast<std::string>(pair[0], keyword + ": a key's method is a str"),
                       Cast<uint32_t>(pair[1], keyword + ": a key's value index is an int >= 0"),
                       ""};
  }
  throw py::type_error(keyword + ": a key is 'METHOD:VALUE_INDEX' or (METHOD, VALUE_INDEX)");
}

// None, a name or an iterable of names (--share NAME...).
std::vector<std::string> NamesFrom(const std::string& keyword, const py::object& value) {
  std::vector<std::string> names;
  if (py::isinstance<py::str>(value)) {
    names.push_back(value.cast<std::string>());
  } else if (!value.is_none()) {
    for (const py::handle name : value) {
      names.push_back(Cast<std::string>(name, keyword + ": a name is a str"));
    }
  }
  return names;
}

// None or a dict whose keys are "METHOD:VALUE_INDEX" or (METHOD,
// VALUE_INDEX) and whose values are the names (--name).
std::vector<ValueNaming> NamingsFrom(const std::string& file, const std::string& keyword,
                                     const py::object& value) {
  std::vector<ValueNaming> namings;
  if (value.is_none()) return namings;
  for (const auto& [key, name] : Cast<py::dict>(value, keyword + ": a dict")) {
    ValueNaming naming = NamingFromKey(file, keyword, key);
    naming.name = Cast<std::string>(name, keyword + ": a name is a str");
    namings.push_back(std::move(naming));
  }
  return namings;
}

// None or the path of a names file, a str or an os.PathLike
// (--names-from FILE); its namings, or the file's error.
std::vector<ValueNaming> NamesFileFrom(const std::string& file, const std::string& keyword,
                                       const py::object& value) {
  if (value.is_none()) return {};
  py::object path = value;
  if (!py::isinstance<py::str>(value)) {
    if (!py::hasattr(value, "__fspath__")) {
      throw py::type_error(keyword + ": a path (str or os.PathLike), not " + TypeName(value));
    }
    path = value.attr("__fspath__")();
  }
  Result<std::vector<ValueNaming>> namings =
      options::ReadNamesFile(StrOnly(path, keyword + ": a path"));
  if (!namings.ok()) Raise(file, namings.error());
  return std::move(namings).value();
}

// None or {memory_id: bytes} (--arena-limit ID=BYTES).
std::map<uint32_t, uint64_t> LimitsFrom(const std::string& file, const std::string& keyword,
                                        const py::object& value) {
  std::map<uint32_t, uint64_t> limits;
  if (value.is_none()) return limits;
  for (const auto& [key, limit] : Cast<py::dict>(value, keyword + ": a dict")) {
    const uint32_t id = Cast<uint32_t>(key, keyword + ": an arena id is an int >= 1");
    if (Status valid = options::CheckArenaId(id); !valid.ok()) {
      Raise(file, Error{keyword + ": " + valid.error().message});
    }
    const uint64_t bytes = Cast<uint64_t>(limit, keyword + ": a limit is an int >= 0");
    if (Status added = options::AddArenaLimit(limits, id, bytes); !added.ok()) {
      Raise(file, Error{keyword + ": " + added.error().message});
    }
  }
  return limits;
}

// One row's keyword as the value the row stores.
OptionValue ValueFrom(const std::string& file, const OptionRow& row, const py::object& value) {
  const std::string keyword = row.keyword;
  switch (row.kind) {
    case ValueKind::kWord: {
      Result<int> word = options::ReadWord(row, StrOnly(value, keyword));
      if (!word.ok()) Raise(file, Error{keyword + " " + word.error().message});
      return OptionValue(*word);
    }
    case ValueKind::kUnsigned:
      if (py::isinstance<py::bool_>(value)) {
        throw py::type_error(keyword + ": an int >= 0, not bool");
      }
      return OptionValue(Cast<uint64_t>(value, keyword + ": an int >= 0"));
    case ValueKind::kArenaLimits:
      return OptionValue(LimitsFrom(file, keyword, value));
    case ValueKind::kNameList:
      return OptionValue(NamesFrom(keyword, value));
    case ValueKind::kValueNamings:
      return OptionValue(NamingsFrom(file, keyword, value));
    case ValueKind::kNamesFile:
      return OptionValue(NamesFileFrom(file, keyword, value));
    case ValueKind::kSwitch:
      break;
  }
  return OptionValue(BoolKeyword(value, row.keyword));
}

}  // namespace

FunctionKeywords::FunctionKeywords(std::initializer_list<OwnKeyword> before,
                                   std::initializer_list<options::OptionGroup> groups,
                                   std::initializer_list<OwnKeyword> after)
    : rows_(options::RowsOf(groups)) {
  for (const auto& [keyword, fallback] : before) defaults_.emplace_back(keyword, fallback);
  for (const OptionRow* row : rows_) defaults_.emplace_back(row->keyword, DefaultOf(*row));
  for (const auto& [keyword, fallback] : after) defaults_.emplace_back(keyword, fallback);
}

options::OptionSettings FunctionKeywords::Read(const std::string& file,
                                               const CallArguments& call) const {
  options::OptionSettings settings;
  for (const OptionRow* row : rows_) {
    row->set(settings, ValueFrom(file, *row, call[row->keyword]));
  }
  return settings;
}

bool BoolKeyword(const py::object& value, const char* keyword) {
  if (!py::isinstance<py::bool_>(value)) {
    throw py::type_error(std::string(keyword) + ": a bool, not " + TypeName(value));
  }
  return value.cast<bool>();
}

}  // namespace pteshare::python
