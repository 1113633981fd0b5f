#include "tools/plot/plot_document.h"

#include <algorithm>
#include <cctype>
#include <span>
#include <vector>

#include "rewriter/io/file_io.h"
#include "rewriter/write/new_file.h"
#include "tools/plot/layout_html.h"
#include "tools/plot/layout_picture.h"
#include "tools/plot/plot_labels.h"
#include "tools/plot/plot_trace.h"
#include "tools/report/memory_text.h"

namespace pteshare::plot {
namespace {

/// MemoryText's lines with their column padding collapsed: the picture
/// sets them in a proportional font.
std::vector<std::string> MemoryLines(const ProgramView& view, const MemoryCost& cost) {
  std::vector<std::string> lines(1);
  for (char c : cli::MemoryText(view, cost, "")) {
    if (c == '\n') {
      lines.emplace_back();
    } else if (c != ' ' || (!lines.back().empty() && lines.back().back() != ' ')) {
      lines.back() += c;
    }
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

}  // namespace

Result<PictureFormat> PictureFormatOf(const std::string& output, bool html_flag) {
  std::string extension = std::filesystem::path(output).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  PictureFormat format;
  if (extension == ".svg") {
    format = PictureFormat::kSvg;
  } else if (extension == ".html" || extension == ".htm") {
    format = PictureFormat::kHtml;
  } else if (extension == ".json") {
    format = PictureFormat::kTrace;
  } else {
    return Error{(extension.empty() ? std::string("no extension")
                                    : "unknown extension '" + extension + "'") +
                 ": the picture is written as .svg or .html (the trace as .json), name the "
                 "output so"};
  }
  if (html_flag && format != PictureFormat::kHtml) {
    return Error{"--html asks for HTML but the name ends in " + extension +
                 "; name the output .html (the extension decides)"};
  }
  return format;
}

Result<PictureFormat> PictureFormatNamed(const std::string& word) {
  for (PictureFormat format : {PictureFormat::kSvg, PictureFormat::kHtml, PictureFormat::kTrace}) {
    if (word == PictureFormatName(format)) return format;
  }
  return Error{"format='" + word + "': expected 'svg', 'html' or 'json'"};
}

const char* PictureFormatName(PictureFormat format) {
  switch (format) {
    case PictureFormat::kHtml:
      return "html";
    case PictureFormat::kTrace:
      return "json";
    case PictureFormat::kSvg:
      break;
  }
  return "svg";
}

PicturePlan DefaultPlan(const ProgramView& view, const PlanOptions& options) {
  PicturePlan picture_plan;
  Result<VerifiedPlan> verified = PlanAndVerify(view, ShareRequest{}, options);
  if (verified.ok()) {
    picture_plan.plan = std::move(verified).value();
  } else {
    picture_plan.not_planned = verified.error().message;
  }
  return picture_plan;
}

Status CheckPlotMethod(const ProgramView& view, const std::string& method) {
  if (method.empty() || view.method(method) != nullptr) return Status::Ok();
  std::string names;
  for (const MethodView& m : view.methods) names += (names.empty() ? "" : ", ") + m.name;
  return Error{"no method '" + method + "' (the program has: " + (names.empty() ? "none" : names) +
               ")"};
}

PlotDocument RenderPlot(const PlotInput& input) {
  const ProgramView& view = *input.view;
  const VerifiedPlan* plan = input.plan;
  PlotDocument document;
  // A plan that missed an arena limit has no "after" to draw; the input is
  // drawn with the limit. One that failed its verifier is still drawn: the
  // picture is how one sees what went wrong. One that changes nothing of
  // what is drawn would draw "after" as a copy of "before": not drawn.
  const bool fits = plan != nullptr && plan->fits();
  if (fits) {
    document.plan = SummarizePlan(plan->planned.plan, input.method);
  } else {
    document.plan.not_planned = input.not_planned;
  }
  document.after = fits && document.plan.changes;
  LayoutPicture picture = BuildLayoutPicture(
      input.file, view, plan != nullptr ? &plan->planned : nullptr,
      document.after ? PlanPanels::kBeforeAndAfter : PlanPanels::kBeforeOnly, input.method);
  picture.plan_verified = plan == nullptr || plan->verified();
  if (plan != nullptr && !fits) picture.limit_misses = plan->planned.plan.limit_misses;
  picture.plan_summary = document.plan;
  MarkArenaLimits(input.arena_limits, &picture);
  document.cost =
      document.after ? ComputeMemoryCost(plan->planned.plan) : ComputeMemoryCost(ArenaSizes(view));
  picture.memory_lines = MemoryLines(view, document.cost);
  document.caption = PlanCaption(document.plan);
  if (input.trace || input.format == PictureFormat::kTrace) {
    document.trace = RenderTrace(picture, document.caption, &document.trace_stats);
  }
  if (input.format == PictureFormat::kTrace) {
    document.text = document.trace;
    return document;
  }
  std::string svg = RenderLayoutSvg(picture, SvgLayoutOptions{}, &document.stats);
  document.text = input.format == PictureFormat::kHtml
                      ? WrapSvgInHtml("pteshare plot: " + picture.title, svg)
                      : std::move(svg);
  return document;
}

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

}  // namespace pteshare::plot
