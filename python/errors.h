// The module's exceptions: pteshare.Error and one subclass per ErrorKind
// (rewriter/base/result.h), so a script can tell bad input from a plan that does
// not fit from a failed write, as the CLI's exit status does.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "rewriter/base/result.h"

namespace pteshare::python {

/// Finds pteshare.Error, BadInputError, NoValidPlanError and IoError
/// (pteshare/_errors.py) and adds them to `module` too.
void AddExceptions(pybind11::module_& module);

/// Raises the class for `error.kind` with the CLI's line, `file: message`
/// (just the message when `file` is empty: bytes in memory), its flags
/// named as keywords (keyword_message.h).
[[noreturn]] void Raise(const std::string& file, const Error& error);

}  // namespace pteshare::python
