// The CLI's options as keyword arguments, turned into what the library
// takes. Wrong types raise TypeError naming the keyword and the type given,
// never the value (pybind11's own mismatch message quotes every argument,
// a whole program's bytes included, so every keyword is taken as an object
// and converted here); wrong values raise BadInputError naming the file, as
// the CLI does for its flags.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "rewriter/plan/planner.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare::python {

/// share: None, a name or an iterable of names (--share); share_auto
/// (--share-auto); names: None or a dict whose keys are "METHOD:VALUE_INDEX"
/// or (METHOD, VALUE_INDEX) and whose values are the names (--name).
ShareRequest ShareFrom(const std::string& file, const pybind11::object& share,
                       const pybind11::object& share_auto, const pybind11::object& names);

/// strategy: "relocate", "replan" or "best" (--strategy); layout: "front"
/// or "arena" (--layout); alignment: 0 to detect (--alignment);
/// arena_limits: None or {memory_id: bytes} (--arena-limit).
PlanOptions PlanOptionsFrom(const std::string& file, const pybind11::object& strategy,
                            const pybind11::object& layout, const pybind11::object& alignment,
                            const pybind11::object& arena_limits);

/// A keyword that must be True or False; TypeError "KEYWORD: a bool, not T".
bool BoolKeyword(const pybind11::object& value, const char* keyword);

}  // namespace pteshare::python
