// What `pteshare plot` and `pteshare.plot()` make: the picture of a program
// (and of its verified plan, when there is one) as one SVG or HTML
// document, and how it is written. The CLI and the Python module call the
// same function, so the two give the same bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "rewriter/base/result.h"
#include "rewriter/program/program_view.h"
#include "rewriter/rewrite.h"
#include "tools/plot/layout_picture.h"
#include "tools/plot/plot_trace.h"
#include "tools/plot/svg_layout.h"

namespace pteshare::plot {

/// What `plot` writes: a picture (SVG, or an HTML page with it inline and
/// hover tooltips), or the memory plan as a Chrome / Perfetto trace
/// (plot_trace.h).
enum class PictureFormat { kSvg, kHtml, kTrace };

/// The format an output name asks for by its extension (.svg, .html or
/// .htm, .json, any case); `html_flag` (the CLI's old --html) must agree.
Result<PictureFormat> PictureFormatOf(const std::string& output, bool html_flag);

/// The format called "svg", "html" or "json" (Python's format=).
Result<PictureFormat> PictureFormatNamed(const std::string& word);

/// "svg", "html", "json".
const char* PictureFormatName(PictureFormat format);

/// The plan `plot` draws when no buffer is chosen: the one `pteshare plan
/// FILE` makes with the same planning options (it replans every arena).
/// A program the planner refuses is still drawn as it stands: the refusal
/// is `not_planned`, not an error.
struct PicturePlan {
  std::optional<VerifiedPlan> plan;
  std::string not_planned;
};
PicturePlan DefaultPlan(const ProgramView& view, const PlanOptions& options);

struct PlotInput {
  /// The name the picture's title shows.
  std::string file;
  const ProgramView* view = nullptr;
  /// The verified plan, or null: only "before" is drawn. "After" is drawn
  /// where the plan changes a placement or an arena size of a method
  /// drawn. A plan that misses an arena limit draws the input with the
  /// limits marked.
  const VerifiedPlan* plan = nullptr;
  /// Without a plan: why (PicturePlan::not_planned), said in the picture.
  std::string not_planned;
  /// The limits asked for, marked on the panels.
  std::map<uint32_t, uint64_t> arena_limits;
  /// Only this method, or every one when empty.
  std::string method;
  PictureFormat format = PictureFormat::kSvg;
  /// Also make the trace (PlotDocument::trace), whatever `format` is.
  bool trace = false;
};

struct PlotDocument {
  /// The document in PlotInput::format.
  std::string text;
  /// The trace (plot_trace.h) when asked for, or empty.
  std::string trace;
  /// What the picture drew (zero for a trace alone) and the trace holds.
  SvgLayoutStats stats;
  TraceStats trace_stats;
  /// The memory the pictured layouts cost (after when the plan fits).
  MemoryCost cost;
  /// What the plan does to the methods drawn; `after` drawn when it
  /// changes something.
  PlanSummary plan;
  bool after = false;
  /// The picture's caption of it (PlanCaption), or empty.
  std::string caption;
};

/// An error naming the methods the program has when `method` (the one to
/// draw alone) is not one of them; Ok for an empty `method` (draw all).
Status CheckPlotMethod(const ProgramView& view, const std::string& method);

PlotDocument RenderPlot(const PlotInput& input);

/// Writes the picture as every file pteshare writes (new_file.h): built
/// without a name, read back, then linked as `path` or renamed over it,
/// with the same refusals as `rewrite -o` (devices, FIFOs, /dev/stdout,
/// files with several names) and nothing left behind by a kill.
Status WritePicture(const std::filesystem::path& path, const std::string& text);

}  // namespace pteshare::plot
