// What `pteshare plot` and `pteshare.plot()` make: the picture of a program
// (and of its verified plan, when there is one) as one SVG or HTML
// document, and how it is written. The CLI and the Python module call the
// same function, so the two give the same bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "rewriter/base/result.h"
#include "rewriter/program/program_view.h"
#include "rewriter/rewrite.h"
#include "tools/plot/svg_layout.h"

namespace pteshare::plot {

enum class PictureFormat { kSvg, kHtml };

/// The format an output name asks for by its extension (.svg, .html or
/// .htm, any case); `html_flag` (the CLI's old --html) must agree.
Result<PictureFormat> PictureFormatOf(const std::string& output, bool html_flag);

struct PlotInput {
  /// The name the picture's title shows.
  std::string file;
  const ProgramView* view = nullptr;
  /// The verified plan, or null: only "before" is drawn. A plan that
  /// misses an arena limit draws the input with the limits marked.
  const VerifiedPlan* plan = nullptr;
  /// The limits asked for, marked on the panels.
  std::map<uint32_t, uint64_t> arena_limits;
  /// Only this method, or every one when empty.
  std::string method;
  PictureFormat format = PictureFormat::kSvg;
};

struct PlotDocument {
  std::string text;
  SvgLayoutStats stats;
  /// The memory the pictured layouts cost (after when the plan fits).
  MemoryCost cost;
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
