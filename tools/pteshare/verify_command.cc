// `pteshare verify FILE [--share NAME...] [--share-auto] [--name M:V=N] [--json]`:
// runs runtime_check's program-level check on the placements in the file:
// every shared buffer has one placement in every method, nothing else
// overlaps it, everything fits its arena. Without --share options every
// named buffer found in two or more methods is checked.
//
// Exit status: 0 clean (warnings allowed), 1 findings, 2 bad input.
//
// --json prints the document tools/report/verify_report.h describes.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "rewriter/program/pte_file.h"
#include "runtime_check/alias_check.h"
#include "tools/pteshare/commands.h"
#include "tools/pteshare/exit_codes.h"
#include "tools/pteshare/json_document.h"
#include "tools/pteshare/open_input.h"
#include "tools/pteshare/option_flags.h"
#include "tools/pteshare/output.h"
#include "tools/pteshare/plan_report.h"
#include "tools/report/bundle_report.h"
#include "tools/report/saving_text.h"
#include "tools/report/verify_report.h"

namespace pteshare::cli {
namespace {

namespace rc = runtime_check;

struct VerifyArgs {
  std::string file;
  ShareFlags share;
  bool json = false;
};

// " (position 0 of the unnamed state; no name in the program)" for the
// checker's paired_state.K: its name is made up, and says so.
std::string PositionNote(const std::string& name) {
  std::string position = name.substr(std::min(name.size(), kPairedStatePrefix.size()));
  position.erase(0, std::min(position.find_first_not_of('0'), position.size() - 1));
  return " (position " + position + " of the unnamed state; no name in the program)";
}

// `note`: what the report cannot see (a delegate's own memory), or empty.
void PrintText(const std::string& path, const rc::Report& report, const std::string& note) {
  std::printf("%s: %zu method%s, %zu shared buffer%s\n", path.c_str(), report.methods.size(),
              report.methods.size() == 1 ? "" : "s", report.shared.size(),
              report.shared.size() == 1 ? "" : "s");
  if (!note.empty()) std::printf("  note: %s\n", note.c_str());
  for (const rc::SharedBuffer& shared : report.shared) {
    std::string methods;
    for (const std::string& m : shared.methods) methods += (methods.empty() ? "" : ", ") + m;
    std::printf("  %s: arena %u offset %s, %s bytes, in %s%s\n", shared.name.c_str(),
                shared.placement.memory_id, Grouped(shared.placement.offset).c_str(),
                Grouped(shared.placement.nbytes).c_str(), methods.c_str(),
                shared.paired ? PositionNote(shared.name).c_str() : "");
  }
  for (const rc::Finding& finding : report.findings) {
    if (finding.severity == rc::Severity::kError) {
      std::printf("  error: %s\n", finding.message.c_str());
    }
  }
  // Warnings of one kind say the same thing for every buffer (a 32-layer
  // model has 64 caches): print the first, then count the rest.
  std::map<rc::FindingKind, std::vector<const rc::Finding*>> warnings;
  for (const rc::Finding& finding : report.findings) {
    if (finding.severity != rc::Severity::kError) warnings[finding.kind].push_back(&finding);
  }
  for (const auto& [kind, alike] : warnings) {
    std::printf("  warning: %s\n", alike.front()->message.c_str());
    if (alike.size() > 1) {
      std::printf("           and %zu more like it (%s%s)\n", alike.size() - 1,
                  alike[1]->name.c_str(), alike.size() > 2 ? ", ..." : "");
    }
  }
  std::printf("%s: %s\n", path.c_str(), report.Summary().c_str());
}

int RunVerify(const VerifyArgs& args) {
  Result<ShareRequest> share = args.share.ToRequest();
  if (!share.ok()) {
    PrintError(share.error().message);
    return ExitStatusFor(share.error().kind);
  }
  std::optional<OpenedProgram> opened = OpenInput(args.file);
  if (!opened) return kExitBadInput;
  const PteFile* file = &opened->file;
  Result<rc::Report> report = CheckForVerify(*opened, *share);
  if (!report.ok()) {
    PrintFileError(args.file, report.error());
    return kExitBadInput;
  }
  if (args.json) {
    PrintJsonDocument(VerifyJson(args.file, *file, *report));
  } else {
    std::fputs(BundleLine(args.file, *file).c_str(), stdout);
    PrintText(args.file, *report, DelegateMemoryNote(DelegateUses(opened->view)));
  }
  return report->ok() ? kExitOk : kExitFindings;
}

}  // namespace

void AddVerify(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<VerifyArgs>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Check that shared buffers have one placement (arena, offset, size) in every method, that "
      "no other tensor of any method overlaps them, and that every tensor fits its arena. "
      "Without --share/--share-auto, every named buffer in two or more methods is checked, and "
      "unnamed state paired by position (paired_state.K). A tensor inside a shared buffer passes "
      "only as an alias the program shows (never written, or written only by instructions that "
      "take the buffer). Exit 0 clean (warnings allowed), 1 findings, 2 unreadable input.\n"
      "Example: pteshare verify llm-shared.pte\n"
      "         pteshare verify llm.pte --name prefill:22=k0 --name decode:22=k0 --share k0 "
      "--json");
  cmd->add_option("FILE", args->file, "The .pte file, or a .bpte bundle (its program is checked)")
      ->required()
      ->type_name("");
  args->share.AddTo(cmd);
  cmd->add_flag("--json", args->json, "Print the report as JSON (shape in the README)");
  cmd->callback([args, &exit_status] { exit_status = RunVerify(*args); });
}

}  // namespace pteshare::cli
