// `pteshare plot FILE [--method M] [--share ... | --share-auto] -o layout.svg|.html`:
// a picture of every arena of every method, time across and offset up, one
// rectangle per planned tensor. With shared buffers chosen, the verified
// plan's "after" is drawn next to "before", so a user sees where the front
// region went and what moved out of its way. A plan that misses an
// --arena-limit draws the input with the limit marked, and still fails.
#include <cstdio>
#include <memory>

#include "tools/plot/plot_document.h"
#include "tools/pteshare/commands.h"
#include "tools/pteshare/exit_codes.h"
#include "tools/pteshare/open_input.h"
#include "tools/pteshare/output.h"
#include "tools/pteshare/plan_report.h"
#include "tools/report/bundle_report.h"

namespace pteshare::cli {
namespace {

struct PlotArgs {
  std::string file;
  std::string method;
  ShareFlags share;
  PlanFlags planning;
  std::string output;
  bool html = false;
};

int RunPlot(const PlotArgs& args) {
  Result<plot::PictureFormat> format = plot::PictureFormatOf(args.output, args.html);
  if (!format.ok()) {
    PrintFileError(args.output, format.error());
    return kExitBadInput;
  }
  if (Status flags = CheckFlags(args.share, &args.planning); !flags.ok()) {
    PrintError(flags.error().message);
    return ExitStatusFor(flags.error().kind);
  }
  std::optional<OpenedProgram> opened = OpenInput(args.file);
  if (!opened) return kExitBadInput;
  const ProgramView& view = opened->view;
  if (Status method = plot::CheckPlotMethod(view, args.method); !method.ok()) {
    PrintFileError(args.file, method.error());
    return kExitBadInput;
  }

  // Without shared buffers there is nothing to plan: only "before" is drawn.
  // A plan that failed its verifier or missed an --arena-limit is drawn
  // too (plot_document.h); the exit status still says it failed.
  PlanOutcome outcome;
  if (!args.share.empty()) {
    outcome = PlanForCommand(args.file, view, args.share, args.planning);
    if (!outcome.plan) return outcome.exit_status;
  }
  plot::PlotInput input;
  input.file = args.file;
  input.view = &view;
  input.plan = outcome.plan ? &*outcome.plan : nullptr;
  if (Result<PlanOptions> options = args.planning.ToPlanOptions(); options.ok()) {
    input.arena_limits = options->arena_limits;
  }
  input.method = args.method;
  input.format = *format;
  const plot::PlotDocument document = plot::RenderPlot(input);
  const plot::SvgLayoutStats& stats = document.stats;
  const MemoryCost& cost = document.cost;
  if (Status written = plot::WritePicture(args.output, document.text); !written.ok()) {
    PrintFileError(args.output, written.error());
    return kExitBadInput;
  }
  std::fputs(BundleLine(args.file, opened->file).c_str(), stdout);
  std::printf("%s: wrote %s (%zu panel%s, %zu tensor rectangles", args.file.c_str(),
              args.output.c_str(), stats.panels, stats.panels == 1 ? "" : "s", stats.tensor_rects);
  if (stats.aggregated_tensors > 0) {
    std::printf(", %zu smaller tensors drawn as density", stats.aggregated_tensors);
  }
  std::printf(")\n");
  if (stats.zoom_panels > 0) {
    std::printf("%s: %zu zoomed panel%s of the bytes outside the buffers\n", args.file.c_str(),
                stats.zoom_panels, stats.zoom_panels == 1 ? "" : "s");
  }
  std::printf("%s", MemoryText(view, cost, "  ").c_str());
  return outcome.exit_status;
}

}  // namespace

void AddPlot(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<PlotArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plot",
      "Draw the memory layout of every arena of every method as a picture: instruction "
      "index across, arena offset up, one rectangle per planned tensor (colour: alias group), "
      "shared buffers and the front region highlighted, the lower bound as a dashed line. With "
      "--share or --share-auto, the verified plan is drawn next to the input (before | after), "
      "the tensors it moves outlined; a plan that misses --arena-limit draws the input with the "
      "limit marked (and exits 1). "
      "Tensors smaller than a pixel are drawn as a density shade; where buffers fill most of an "
      "arena, a zoomed panel shows the rest. The output's extension picks the format: .svg, or "
      ".html for one page with hover tooltips.\n"
      "Example: pteshare plot model.pte --share-auto -o layout.svg");
  cmd->add_option("FILE", args->file, "The .pte file, or a .bpte bundle (its program is drawn)")
      ->required()
      ->type_name("");
  cmd->add_option("--method", args->method, "Draw only this method")->type_name("METHOD");
  args->share.AddTo(cmd);
  args->planning.AddTo(cmd);
  cmd->add_option("-o,--output", args->output,
                  "The picture to write: NAME.svg, or NAME.html for one self-contained page with "
                  "the SVG inline and hover tooltips (value, name, bytes, live range)")
      ->type_name("OUT.svg|OUT.html")
      ->required();
  cmd->add_flag("--html", args->html, "Kept for old scripts: the output must then be named .html");
  cmd->callback([args, &exit_status] { exit_status = RunPlot(*args); });
}

}  // namespace pteshare::cli
