#include "tools/pteshare/command_line.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>
#if defined(__GLIBC__)  // defined by <cstdio> on glibc
#include <malloc.h>
#endif

#include "tools/pteshare/commands.h"
#include "tools/pteshare/exit_codes.h"
#include "tools/pteshare/json_document.h"
#include "tools/pteshare/output.h"
#include "tools/pteshare/usage_error.h"

namespace pteshare::cli {
namespace {

// In the order `pteshare --help` lists them: look, plan, act, check, see,
// and the planner on its own.
constexpr AddCommand kCommands[] = {AddInspect, AddPlan, AddRewrite, AddVerify, AddPlot, AddPack};

}  // namespace

// A command runs once and exits, and a large program's planning allocates
// and frees many buffers of a few MiB (lifetimes, groups, the patched
// copy). By default glibc hands each back to the kernel (munmap, trim) and
// the next one faults its pages in again: on a 512-layer rewrite that was a
// third of the page faults and about a tenth of the CPU time. Keeping freed
// memory for reuse costs nothing the peak did not already take.
void KeepFreedMemoryForReuse() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

int RunCommandLine(int argc, const char* const* argv) {
  CLI::App app{
      "pteshare: make the methods of a compiled ExecuTorch program (.pte) share mutable\n"
      "state (KV caches and other named buffers) at identical arena offsets, without\n"
      "re-exporting the model, and check that the sharing holds.\n\n"
      "Exit status: 0 done; 1 a check failed or no valid plan exists; 2 bad usage or\n"
      "unreadable / invalid input; 3 sharing was asked for but the program has nothing\n"
      "pteshare can share (the first line says why).",
      "pteshare"};
  app.set_version_flag("--version", std::string("pteshare ") + PTESHARE_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  int exit_status = kExitOk;
  for (AddCommand add : kCommands) add(app, exit_status);

  // Known before parsing, so that a usage error gets its JSON document too.
  const bool json = std::any_of(argv + 1, argv + argc,
                                [](const char* arg) { return std::string_view(arg) == "--json"; });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 answers --help/--version with 0; every usage error is our 2,
    // printed as one line like every other error.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      const int status = app.exit(e);
      std::fflush(stdout);
      return status;
    }
    PrintError(UsageMessage(app, e, std::vector<std::string>(argv + 1, argv + argc)));
    FinishJsonRun(json, kExitBadInput);
    std::fflush(stdout);
    return kExitBadInput;
  }
  FinishJsonRun(json, exit_status);
  // Python's own output follows ours on the same descriptors.
  std::fflush(stdout);
  return exit_status;
}

}  // namespace pteshare::cli
