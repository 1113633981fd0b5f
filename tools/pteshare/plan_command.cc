// `pteshare plan FILE [--share ...] [--strategy relocate|replan|best]
// [--arena-limit ID=BYTES] [--json]`: a dry run. Shows where every shared
// buffer goes and what happens to each arena (its lower bound, input size,
// and the sizes relocate and replan give), after the plan verifier has
// passed it. Writes nothing.
#include <cstdio>

#include "tools/pteshare/commands.h"
#include "tools/pteshare/exit_codes.h"
#include "tools/pteshare/json_document.h"
#include "tools/pteshare/open_input.h"
#include "tools/pteshare/output.h"
#include "tools/pteshare/plan_report.h"

namespace pteshare::cli {
namespace {

struct PlanArgs {
  std::string file;
  ShareFlags share;
  PlanFlags planning;
  bool json = false;
  bool summary = false;
  bool verbose = false;
};

int RunPlan(const PlanArgs& args) {
  if (Status flags = CheckFlags(args.share, &args.planning); !flags.ok()) {
    PrintError(flags.error().message);
    return ExitStatusFor(flags.error().kind);
  }
  std::optional<OpenedProgram> opened = OpenInput(args.file);
  if (!opened) return kExitBadInput;
  PlanOutcome outcome = PlanForCommand(args.file, opened->view, args.share, args.planning);
  if (!outcome.plan || !outcome.plan->fits()) return outcome.exit_status;
  if (args.json) {
    PrintJsonDocument(PlanJson(args.file, opened->file, opened->view, *outcome.plan));
  } else if (args.summary) {
    std::fputs(PlanHeadline(args.file, *outcome.plan).c_str(), stdout);
  } else {
    PrintPlanText(args.file, opened->file, opened->view, *outcome.plan, args.verbose);
  }
  return outcome.exit_status;
}

}  // namespace

void AddPlan(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Dry run: choose the shared buffers, pack them at the front of their arenas (same offset "
      "in every method), make room for them, verify the plan, and show per method and arena the "
      "size before -> after, the lower bound, what relocate and replan give, and where each "
      "shared buffer goes. Writes nothing. With replan or best (the default) sharing nothing "
      "is allowed: the arenas are just replanned.\n"
      "Example: pteshare plan model.pte --share-auto");
  cmd->add_option("FILE", args->file, "The .pte file, or a .bpte bundle (its program is planned)")
      ->required()
      ->type_name("");
  args->share.AddTo(cmd);
  args->planning.AddTo(cmd);
  args->planning.compare_strategies = true;
  args->planning.compare_layouts = true;
  cmd->add_flag("--json", args->json, "Print the plan as JSON (shape in the README)");
  cmd->add_flag("--summary", args->summary,
                "Print only the first line: the memory saved, or why nothing can be shared");
  cmd->add_flag("-v,--verbose", args->verbose,
                "List every pair, slot and shared buffer (the first 4 of each otherwise)");
  cmd->callback([args, &exit_status] { exit_status = RunPlan(*args); });
}

}  // namespace pteshare::cli
