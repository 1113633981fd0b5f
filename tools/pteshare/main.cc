// pteshare: share mutable state across the methods of a compiled ExecuTorch
// program. Subcommands register themselves (command_registry.h).
#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

#include "tools/pteshare/command_registry.h"
#include "tools/pteshare/json_document.h"
#include "tools/pteshare/output.h"

namespace pteshare::cli {
namespace {
std::vector<CommandSpec>& Registry() {
  static std::vector<CommandSpec> commands;
  return commands;
}
}  // namespace

bool RegisterCommand(CommandSpec spec) {
  Registry().push_back(std::move(spec));
  return true;
}

}  // namespace pteshare::cli

int main(int argc, char** argv) {
  using namespace pteshare::cli;
  CLI::App app{
      "pteshare: make the methods of a compiled ExecuTorch program (.pte) share mutable\n"
      "state (KV caches and other named buffers) at identical arena offsets, without\n"
      "re-exporting the model, and check that the sharing holds.\n\n"
      "Exit status: 0 done; 1 a check failed or no valid plan exists; 2 bad usage or\n"
      "unreadable / invalid input.",
      "pteshare"};
  app.set_version_flag("--version", std::string("pteshare ") + PTESHARE_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  std::vector<CommandSpec> commands = pteshare::cli::Registry();
  std::stable_sort(commands.begin(), commands.end(),
                   [](const CommandSpec& a, const CommandSpec& b) { return a.order < b.order; });
  int exit_status = kExitOk;
  for (const CommandSpec& command : commands) command.add(app, exit_status);

  // Known before parsing, so that a usage error gets its JSON document too.
  const bool json = std::any_of(argv + 1, argv + argc,
                                [](const char* arg) { return std::string_view(arg) == "--json"; });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 answers --help/--version with 0; every usage error is our 2,
    // printed as one line like every other error.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    PrintError(std::string(e.what()) + " (see pteshare --help)");
    FinishJsonRun(json, kExitBadInput);
    return kExitBadInput;
  }
  FinishJsonRun(json, exit_status);
  return exit_status;
}
