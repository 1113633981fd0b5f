// The subcommands of `pteshare`, one *_command.cc each. command_line.cc lists them
// in one table (kCommands), in the order `pteshare --help` shows them.
#pragma once

#include <CLI/CLI.hpp>

namespace pteshare::cli {

/// Adds one subcommand to `app`; its callback stores its exit status
/// (exit_codes.h) in `exit_status`.
using AddCommand = void (*)(CLI::App& app, int& exit_status);

void AddInspect(CLI::App& app, int& exit_status);
void AddPlan(CLI::App& app, int& exit_status);
void AddRewrite(CLI::App& app, int& exit_status);
void AddVerify(CLI::App& app, int& exit_status);
void AddPlot(CLI::App& app, int& exit_status);
void AddPack(CLI::App& app, int& exit_status);

}  // namespace pteshare::cli
