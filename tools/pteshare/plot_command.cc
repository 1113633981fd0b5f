// `pteshare plot FILE [--method M] [--share ... | --share-auto] -o layout.svg|.html`:
// a picture of every arena of every method, time across and offset up, one
// rectangle per planned tensor. With shared buffers chosen, the verified
// plan's "after" is drawn next to "before", so a user sees where the front
// region went and what moved out of its way. A plan that misses an
// --arena-limit draws the input with the limit marked, and still fails.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "rewriter/io/file_io.h"
#include "rewriter/write/new_file.h"
#include "tools/plot/layout_html.h"
#include "tools/plot/layout_picture.h"
#include "tools/plot/svg_layout.h"
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

enum class PictureFormat { kSvg, kHtml };

/// The format `-o` names by its extension (.svg, .html or .htm, any
/// case); `--html` is kept for old scripts and must agree with it.
Result<PictureFormat> FormatOf(const std::string& output, bool html_flag) {
  std::string extension = std::filesystem::path(output).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  PictureFormat format;
  if (extension == ".svg") {
    format = PictureFormat::kSvg;
  } else if (extension == ".html" || extension == ".htm") {
    format = PictureFormat::kHtml;
  } else {
    return Error{(extension.empty() ? std::string("no extension")
                                    : "unknown extension '" + extension + "'") +
                 ": the picture is written as .svg or .html, name the output so"};
  }
  if (html_flag && format != PictureFormat::kHtml) {
    return Error{"--html asks for HTML but the name ends in " + extension +
                 "; name the output .html (the extension decides)"};
  }
  return format;
}

/// MemoryText's lines with their column padding collapsed: the picture
/// sets them in a proportional font.
std::vector<std::string> MemoryLines(const ProgramView& view, const MemoryCost& cost) {
  std::vector<std::string> lines(1);
  for (char c : MemoryText(view, cost, "")) {
    if (c == '\n') {
      lines.emplace_back();
    } else if (c != ' ' || (!lines.back().empty() && lines.back().back() != ' ')) {
      lines.back() += c;
    }
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

/// "prefill, decode": what a user could have meant by --method.
std::string MethodNames(const ProgramView& view) {
  std::string names;
  for (const MethodView& m : view.methods) names += (names.empty() ? "" : ", ") + m.name;
  return names.empty() ? "none" : names;
}

/// Writes the picture as every file pteshare writes (new_file.h): built
/// without a name, checked, then linked as `path` or renamed over it, with
/// the same refusals as `rewrite -o` (devices, FIFOs, /dev/stdout, files
/// with several names) and nothing left behind by a kill.
Status WritePicture(const std::filesystem::path& path, const std::string& text) {
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  NewFileSteps steps;
  steps.fill = [&](int fd) { return WriteAt(fd, 0, bytes); };
  steps.check = [&](int fd) -> Status {
    std::vector<uint8_t> back(bytes.size());
    Status read = ReadAt(fd, 0, back);
    if (!read.ok()) return read;
    Result<uint64_t> size = FileSize(fd);
    if (!size.ok()) return size.error();
    if (*size != bytes.size() || !std::equal(back.begin(), back.end(), bytes.begin())) {
      return Error{"the picture read back differs from what was written"};
    }
    return Status::Ok();
  };
  return WriteNewFileWithMode(path, DefaultNewFileMode(), steps);
}

int RunPlot(const PlotArgs& args) {
  Result<PictureFormat> format = FormatOf(args.output, args.html);
  if (!format.ok()) {
    PrintFileError(args.output, format.error());
    return kExitBadInput;
  }
  std::optional<OpenedProgram> opened = OpenInput(args.file);
  if (!opened) return kExitBadInput;
  const ProgramView& view = opened->view;
  if (!args.method.empty() && view.method(args.method) == nullptr) {
    PrintFileError(args.file, Error{"no method '" + args.method +
                                    "' (the program has: " + MethodNames(view) + ")"});
    return kExitBadInput;
  }

  // Without shared buffers there is nothing to plan: only "before" is drawn.
  PlanOutcome outcome;
  if (!args.share.empty()) {
    outcome = PlanForCommand(args.file, view, args.share, args.planning);
    if (!outcome.plan) return outcome.exit_status;
  }
  // A plan that failed its verifier is still drawn: the picture is how one
  // sees what went wrong. One that missed an --arena-limit has no "after"
  // to draw; the input is drawn with the limit. The exit status still says
  // it failed.
  const bool has_after = outcome.plan && outcome.plan->fits();
  plot::LayoutPicture picture = plot::BuildLayoutPicture(
      args.file, view, outcome.plan ? &outcome.plan->planned : nullptr,
      has_after ? plot::PlanPanels::kBeforeAndAfter : plot::PlanPanels::kBeforeOnly, args.method);
  picture.plan_verified = !outcome.plan || outcome.plan->verified();
  if (outcome.plan && !has_after) picture.limit_misses = outcome.plan->planned.plan.limit_misses;
  if (Result<PlanOptions> options = args.planning.ToPlanOptions(); options.ok()) {
    MarkArenaLimits(options->arena_limits, &picture);
  }
  // The memory the pictured layouts cost, as `plan` reports it.
  const MemoryCost cost = has_after ? ComputeMemoryCost(outcome.plan->planned.plan)
                                    : ComputeMemoryCost(ArenaSizes(view));
  picture.memory_lines = MemoryLines(view, cost);

  plot::SvgLayoutStats stats;
  std::string svg = plot::RenderLayoutSvg(picture, plot::SvgLayoutOptions{}, &stats);
  std::string document = *format == PictureFormat::kHtml
                             ? plot::WrapSvgInHtml("pteshare plot: " + picture.title, svg)
                             : std::move(svg);
  if (Status written = WritePicture(args.output, document); !written.ok()) {
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
      ->required();
  cmd->add_option("--method", args->method, "Draw only this method");
  args->share.AddTo(cmd);
  args->planning.AddTo(cmd);
  cmd->add_option("-o,--output", args->output,
                  "The picture to write: NAME.svg, or NAME.html for one self-contained page with "
                  "the SVG inline and hover tooltips (value, name, bytes, live range)")
      ->required();
  cmd->add_flag("--html", args->html, "Kept for old scripts: the output must then be named .html");
  cmd->callback([args, &exit_status] { exit_status = RunPlot(*args); });
}

}  // namespace pteshare::cli
