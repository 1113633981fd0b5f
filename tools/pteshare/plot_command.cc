// `pteshare plot FILE [--method M] [--share ... | --share-auto] (-o OUT.svg|.html|.json
// | --trace OUT.json)`: a picture of every arena of every method, time
// across and offset up, one rectangle per planned tensor, and the plan
// `pteshare plan` makes with the same options next to it (before | after)
// wherever it changes a placement or an arena size; or the same layouts as
// a Chrome / Perfetto trace. A plan that misses an --arena-limit draws the
// input with the limit marked, and still fails.
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

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
  std::string trace;
  bool html = false;
};

/// The plan to draw, as `pteshare plan FILE` with the same options makes
/// it. With buffers chosen (or named) that is PlanForCommand, whose errors
/// are plot's. Without, the default plan; a program the planner refuses is
/// then drawn as it stands (`not_planned` says why in the picture), since
/// a picture of a broken plan is how one looks into it.
struct PlotPlan {
  PlanOutcome outcome;
  std::string not_planned;
};

std::optional<PlotPlan> PlanForPlot(const PlotArgs& args, const ProgramView& view) {
  PlotPlan plot_plan;
  Result<ShareRequest> request = args.share.ToRequest();
  Result<PlanOptions> options = args.planning.ToPlanOptions();
  if (!request.ok() || !options.ok()) {
    PrintFileError(args.file, request.ok() ? options.error() : request.error());
    return std::nullopt;
  }
  if (request->chooses_buffers() || !request->namings.empty()) {
    plot_plan.outcome = PlanForCommand(args.file, view, args.share, args.planning);
    return plot_plan;
  }
  plot::PicturePlan default_plan = plot::DefaultPlan(view, *options);
  plot_plan.not_planned = default_plan.not_planned;
  if (default_plan.plan) {
    const VerifiedPlan& plan = *default_plan.plan;
    if (!plan.fits() || !plan.verified()) {
      PrintFileError(args.file,
                     plan.fits() ? RefusedPlan(plan.violations) : LimitMisses(plan.planned.plan));
      plot_plan.outcome.exit_status = kExitFindings;
    }
    plot_plan.outcome.plan = std::move(default_plan.plan);
  }
  return plot_plan;
}

/// "(2 panels, 136 tensor rectangles, 60 smaller tensors drawn as density)"
/// or "(trace: 4 processes, 348 tensor events)".
std::string WhatWasWritten(const plot::PlotDocument& document, bool trace) {
  if (trace) {
    const plot::TraceStats& t = document.trace_stats;
    return "(trace: " + std::to_string(t.processes) + " process" + (t.processes == 1 ? "" : "es") +
           ", " + Grouped(t.events) + " tensor events)";
  }
  const plot::SvgLayoutStats& stats = document.stats;
  std::string text = "(" + std::to_string(stats.panels) + " panel" +
                     (stats.panels == 1 ? "" : "s") + ", " + std::to_string(stats.tensor_rects) +
                     " tensor rectangles";
  if (stats.aggregated_tensors > 0) {
    text += ", " + std::to_string(stats.aggregated_tensors) + " smaller tensors drawn as density";
  }
  return text + ")";
}

int RunPlot(const PlotArgs& args) {
  if (args.output.empty() && args.trace.empty()) {
    PrintFileError(args.file, Error{"nothing to write: give -o OUT.svg, OUT.html or OUT.json, "
                                    "or --trace OUT.json"});
    return kExitBadInput;
  }
  plot::PictureFormat format = plot::PictureFormat::kTrace;
  if (!args.output.empty()) {
    Result<plot::PictureFormat> named = plot::PictureFormatOf(args.output, args.html);
    if (!named.ok()) {
      PrintFileError(args.output, named.error());
      return kExitBadInput;
    }
    format = *named;
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

  // A plan that failed its verifier or missed an --arena-limit is drawn
  // too (plot_document.h); the exit status still says it failed.
  std::optional<PlotPlan> planned = PlanForPlot(args, view);
  if (!planned) return kExitBadInput;
  const PlanOutcome& outcome = planned->outcome;
  if (!outcome.plan && planned->not_planned.empty()) return outcome.exit_status;
  plot::PlotInput input;
  input.file = args.file;
  input.view = &view;
  input.plan = outcome.plan ? &*outcome.plan : nullptr;
  input.not_planned = planned->not_planned;
  if (Result<PlanOptions> options = args.planning.ToPlanOptions(); options.ok()) {
    input.arena_limits = options->arena_limits;
  }
  input.method = args.method;
  input.format = format;
  input.trace = !args.trace.empty();
  const plot::PlotDocument document = plot::RenderPlot(input);
  using Output = std::pair<const std::string*, const std::string*>;
  for (const auto& [path, text] :
       {Output{&args.output, &document.text}, Output{&args.trace, &document.trace}}) {
    if (path->empty()) continue;
    if (Status written = plot::WritePicture(*path, *text); !written.ok()) {
      PrintFileError(*path, written.error());
      return kExitBadInput;
    }
  }
  // The answer first, as `plan` and `rewrite` give it.
  if (outcome.plan && outcome.plan->fits()) {
    std::fputs(PlanHeadline(args.file, *outcome.plan).c_str(), stdout);
  }
  std::fputs(BundleLine(args.file, opened->file).c_str(), stdout);
  if (!args.output.empty()) {
    std::printf("%s: wrote %s %s\n", args.file.c_str(), args.output.c_str(),
                WhatWasWritten(document, format == plot::PictureFormat::kTrace).c_str());
  }
  if (!args.trace.empty()) {
    std::printf("%s: wrote %s %s\n", args.file.c_str(), args.trace.c_str(),
                WhatWasWritten(document, true).c_str());
  }
  const plot::SvgLayoutStats& stats = document.stats;
  if (stats.zoom_panels > 0) {
    std::printf("%s: %zu zoomed panel%s of the bytes outside the buffers\n", args.file.c_str(),
                stats.zoom_panels, stats.zoom_panels == 1 ? "" : "s");
  }
  if (!document.caption.empty()) {
    std::printf("%s: %s\n", args.file.c_str(), EscapeControl(document.caption).c_str());
  }
  std::printf("%s", MemoryText(view, document.cost, "  ").c_str());
  return outcome.exit_status;
}

}  // namespace

void AddPlot(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<PlotArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plot",
      "Draw the memory layout of every arena of every method as a picture: instruction "
      "index across, arena offset up, one rectangle per planned tensor (colour: alias group), "
      "shared buffers and the front region highlighted, the lower bound as a dashed line. The "
      "plan `pteshare plan` makes with the same options is drawn next to the input (before | "
      "after, the tensors it moves outlined) wherever it changes a placement or an arena "
      "size; the caption says by how much the arenas shrink, or that the plan changes "
      "nothing. With --share or --share-auto that plan shares the buffers; a plan that misses "
      "--arena-limit draws the input with the limit marked (and exits 1). "
      "Tensors smaller than a pixel are drawn as a density shade; where buffers fill most of an "
      "arena, a zoomed panel shows the rest. The output's extension picks the format: .svg, "
      ".html for one page with hover tooltips, or .json for the layouts as a Chrome / Perfetto "
      "trace (as --trace).\n"
      "Example: pteshare plot model.pte -o layout.html --trace layout.json");
  cmd->add_option("FILE", args->file, "The .pte file, or a .bpte bundle (its program is drawn)")
      ->required()
      ->type_name("");
  cmd->add_option("--method", args->method, "Draw only this method")->type_name("METHOD");
  args->share.AddTo(cmd);
  args->planning.AddTo(cmd);
  cmd->add_option("-o,--output", args->output,
                  "What to write: NAME.svg, NAME.html (one self-contained page with the SVG "
                  "inline and hover tooltips: value, name, dtype and shape, the operator that "
                  "writes it first, bytes, offset, live range), or NAME.json (the trace, as "
                  "--trace)")
      ->type_name("OUT.svg|OUT.html|OUT.json");
  cmd->add_option("--trace", args->trace,
                  "Also write the layouts (before, and after where the plan changes them) as a "
                  "Chrome / Perfetto trace in ExecuTorch's memory-trace vocabulary: one event per "
                  "planned tensor, its live range as the time span (1 us = one instruction), one "
                  "track per offset; open it in ui.perfetto.dev or chrome://tracing")
      ->type_name("OUT.json");
  cmd->add_flag("--html", args->html, "Kept for old scripts: the output must then be named .html");
  cmd->callback([args, &exit_status] { exit_status = RunPlot(*args); });
}

}  // namespace pteshare::cli
