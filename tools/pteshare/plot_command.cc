// `pteshare plot FILE [--method M] [--share ... | --share-auto] -o layout.svg [--html]`:
// a picture of every arena of every method, time across and offset up, one
// rectangle per planned tensor. With shared buffers chosen, the verified
// plan's "after" is drawn next to "before", so a user sees where the front
// region went and what moved out of its way.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "tools/pteshare/commands.h"
#include "tools/pteshare/exit_codes.h"
#include "tools/pteshare/layout_html.h"
#include "tools/pteshare/layout_picture.h"
#include "tools/pteshare/open_input.h"
#include "tools/pteshare/output.h"
#include "tools/pteshare/plan_report.h"
#include "tools/pteshare/svg_layout.h"
#include "tools/report/bundle_report.h"

namespace pteshare::cli {
namespace {

struct PlotArgs {
  std::string file;
  std::string method;
  ShareOptions share;
  PlanningOptions planning;
  std::string output;
  bool html = false;
};

/// "prefill, decode": what a user could have meant by --method.
std::string MethodNames(const ProgramView& view) {
  std::string names;
  for (const MethodView& m : view.methods) names += (names.empty() ? "" : ", ") + m.name;
  return names.empty() ? "none" : names;
}

/// Writes `text` to a temporary file beside `path` and renames it over
/// `path`, so a failed write never leaves half a picture.
Status WriteWholeFile(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path temp = path.string() + ".pteshare-tmp";
  FILE* out = std::fopen(temp.c_str(), "wb");
  if (out == nullptr) return Error{"cannot create " + temp.string() + ": " + std::strerror(errno)};
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  const int write_errno = errno;
  const bool closed = std::fclose(out) == 0;
  if (!written || !closed) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    return Error{"cannot write " + temp.string() + ": " +
                 std::strerror(written ? errno : write_errno)};
  }
  std::error_code error;
  std::filesystem::rename(temp, path, error);
  if (error) {
    std::filesystem::remove(temp, error);
    return Error{"cannot rename " + temp.string() + " to " + path.string() + ": " +
                 error.message()};
  }
  return Status::Ok();
}

int RunPlot(const PlotArgs& args) {
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
  LayoutPicture picture = BuildLayoutPicture(
      args.file, view, outcome.plan ? &outcome.plan->planned : nullptr, args.method);
  // A plan that failed its verifier is still drawn: the picture is how one
  // sees what went wrong. The exit status still says it failed.
  picture.plan_verified = !outcome.plan || outcome.plan->verified();

  SvgLayoutStats stats;
  std::string svg = RenderLayoutSvg(picture, SvgLayoutOptions{}, &stats);
  std::string document =
      args.html ? WrapSvgInHtml("pteshare plot: " + args.file, svg) : std::move(svg);
  if (Status written = WriteWholeFile(args.output, document); !written.ok()) {
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
  // The memory the pictured layouts cost, as `plan` reports it.
  if (outcome.plan) {
    std::printf("%s",
                MemoryText(view, ComputeMemoryCost(outcome.plan->planned.plan), "  ").c_str());
  } else {
    std::printf("%s", MemoryText(view, ComputeMemoryCost(ArenaSizes(view)), "  ").c_str());
  }
  return outcome.exit_status;
}

}  // namespace

void AddPlot(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<PlotArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plot",
      "Draw the memory layout of every arena of every method as an SVG picture: instruction "
      "index across, arena offset up, one rectangle per planned tensor (colour: alias group), "
      "shared buffers and the front region highlighted, the lower bound as a dashed line. With "
      "--share or --share-auto, the verified plan is drawn next to the input (before | after). "
      "Tensors smaller than a pixel are drawn as a density shade.\n"
      "Example: pteshare plot model.pte --share-auto -o layout.svg");
  cmd->add_option("FILE", args->file, "The .pte file, or a .bpte bundle (its program is drawn)")
      ->required();
  cmd->add_option("--method", args->method, "Draw only this method");
  args->share.AddTo(cmd);
  args->planning.AddTo(cmd);
  cmd->add_option("-o,--output", args->output, "The picture to write (SVG, or HTML with --html)")
      ->required();
  cmd->add_flag("--html", args->html,
                "Write one self-contained HTML page with the SVG inline and hover tooltips "
                "(value, name, bytes, live range)");
  cmd->callback([args, &exit_status] { exit_status = RunPlot(*args); });
}

}  // namespace pteshare::cli
