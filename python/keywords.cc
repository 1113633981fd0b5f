#include "python/keywords.h"

#include <optional>

#include "python/errors.h"

namespace pteshare::python {
namespace {

namespace py = pybind11;

std::string TypeName(const py::handle& value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

// `value` as a T, or TypeError saying what `what` must be and the type it
// got, never its value (pybind11's own cast error is a RuntimeError).
template <typename T>
T Cast(const py::handle& value, const char* what) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(what) + ", not " + TypeName(value));
  }
}

// A str keyword: bytes would cast to std::string too, but the CLI's flags
// are text.
const py::handle& StrOnly(const py::handle& value, const char* keyword) {
  if (!py::isinstance<py::str>(value)) {
    throw py::type_error(std::string(keyword) + ": a str, not " + TypeName(value));
  }
  return value;
}

// "prefill:22" -> {prefill, 22}, read as --name reads it.
ValueNaming NamingFromText(const std::string& file, const std::string& key) {
  if (std::optional<ValueNaming> naming = ParseValuePosition(key)) return *naming;
  Raise(file, Error{"names key '" + key +
                    "': expected 'METHOD:VALUE_INDEX' or (METHOD, VALUE_INDEX), e.g. "
                    "'prefill:22'"});
}

ValueNaming NamingFromKey(const std::string& file, const py::handle& key) {
  if (py::isinstance<py::str>(key)) return NamingFromText(file, Cast<std::string>(key, "a str"));
  if (py::isinstance<py::tuple>(key) && py::len(key) == 2) {
    const py::tuple pair = py::reinterpret_borrow<py::tuple>(key);
    return ValueNaming{Cast<std::string>(pair[0], "names: a key's method is a str"),
                       Cast<uint32_t>(pair[1], "names: a key's value index is an int >= 0"), ""};
  }
  throw py::type_error("names: a key is 'METHOD:VALUE_INDEX' or (METHOD, VALUE_INDEX)");
}

}  // namespace

bool BoolKeyword(const py::object& value, const char* keyword) {
  if (!py::isinstance<py::bool_>(value)) {
    throw py::type_error(std::string(keyword) + ": a bool, not " + TypeName(value));
  }
  return value.cast<bool>();
}

ShareRequest ShareFrom(const std::string& file, const py::object& share,
                       const py::object& share_auto, const py::object& names) {
  ShareRequest request;
  request.share_auto = BoolKeyword(share_auto, "share_auto");
  if (py::isinstance<py::str>(share)) {
    request.names.push_back(share.cast<std::string>());
  } else if (!share.is_none()) {
    for (const py::handle name : share) {
      request.names.push_back(Cast<std::string>(name, "share: a name is a str"));
    }
  }
  if (!names.is_none()) {
    for (const auto& [key, value] : Cast<py::dict>(names, "names: a dict")) {
      ValueNaming naming = NamingFromKey(file, key);
      naming.name = Cast<std::string>(value, "names: a name is a str");
      request.namings.push_back(std::move(naming));
    }
  }
  return request;
}

PlanOptions PlanOptionsFrom(const std::string& file, const py::object& strategy_object,
                            const py::object& layout_object, const py::object& alignment,
                            const py::object& arena_limits) {
  PlanOptions options;
  const std::string strategy =
      Cast<std::string>(StrOnly(strategy_object, "strategy"), "strategy: a str");
  const std::string layout = Cast<std::string>(StrOnly(layout_object, "layout"), "layout: a str");
  const std::optional<Strategy> parsed_strategy = ParseStrategy(strategy);
  if (!parsed_strategy) {
    Raise(file, Error{"strategy '" + strategy + "': expected relocate, replan or best"});
  }
  options.strategy = *parsed_strategy;
  const std::optional<Layout> parsed_layout = ParseLayout(layout);
  if (!parsed_layout) Raise(file, Error{"layout '" + layout + "': expected front or arena"});
  options.layout = *parsed_layout;
  if (py::isinstance<py::bool_>(alignment)) {
    throw py::type_error("alignment: an int >= 0, not bool");
  }
  options.alignment = Cast<uint64_t>(alignment, "alignment: an int >= 0");
  if (!arena_limits.is_none()) {
    for (const auto& [key, value] : Cast<py::dict>(arena_limits, "arena_limits: a dict")) {
      const uint32_t id = Cast<uint32_t>(key, "arena_limits: an arena id is an int >= 1");
      if (id == 0) {
        Raise(file, Error{"arena_limits: arena ids start at 1"});
      }
      options.arena_limits[id] = Cast<uint64_t>(value, "arena_limits: a limit is an int >= 0");
    }
  }
  return options;
}

}  // namespace pteshare::python
