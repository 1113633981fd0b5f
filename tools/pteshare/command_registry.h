// CommandRegistry: each subcommand of `pteshare` lives in its own
// *_command.cc and registers itself here at static-initialisation time, so
// main() needs no list of commands and adding one touches no other file.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pteshare::cli {

/// Exit statuses shared by every command (documented in the README).
enum ExitStatus : int {
  kExitOk = 0,        // done
  kExitFindings = 1,  // a check failed, or no valid plan exists
  kExitBadInput = 2,  // bad usage, or unreadable / invalid input
};

struct CommandSpec {
  /// Position in `pteshare --help` (lower first).
  int order;
  /// Adds the subcommand to `app`; its callback stores the exit status in
  /// `exit_status`.
  std::function<void(CLI::App& app, int& exit_status)> add;
};

/// Registers a command; returns true so it can initialise a static.
bool RegisterCommand(CommandSpec spec);

}  // namespace pteshare::cli
