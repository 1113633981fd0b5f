// OpenInput: how every command opens its input file. Rolls back an
// interrupted rewrite first (and says so), prints a refusal as one line
// naming the file.
#pragma once

#include <optional>
#include <string>

#include "rewriter/open_program.h"

namespace pteshare::cli {

/// The opened program, or nullopt after printing why not (the caller exits
/// with kExitBadInput).
std::optional<OpenedProgram> OpenInput(const std::string& file);

}  // namespace pteshare::cli
