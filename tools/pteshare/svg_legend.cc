#include "tools/pteshare/svg_legend.h"

#include <cstring>
#include <string>
#include <vector>

#include "tools/pteshare/plot_palette.h"

namespace pteshare::cli {
namespace {

/// One legend entry: a swatch (or a dashed line) and its label.
struct LegendEntry {
  const char* fill;
  const char* stroke;
  const char* dash;
  const char* label;
  bool line = false;
  double x = 0, y = 0;  // placed by LayOutLegend
};

/// The entries the picture needs, placed left to right, wrapping at
/// `width`. Returns the header height they leave for the panels.
double LayOutLegend(bool has_plan, double width, std::vector<LegendEntry>* entries) {
  std::vector<LegendEntry> all = {
      {kGroupFills[0], "none", "none", "tensor (colour: alias group)"},
      {"none", "#222222", "3 2", "alias group"},
      {kSharedFill, kSharedStroke, "none", "shared buffer"},
      {kMutableFill, "none", "none", "other mutable buffer"},
      {kFrontFill, kFrontStroke, "4 2", "front region"},
      {"none", kBoundStroke, "5 3", "lower bound", /*line=*/true},
      {kDensityFill, "none", "none", "tensors under a pixel (shade: density)"},
  };
  constexpr double kCharWidth = 6.2;  // font-size 11, roughly
  double x = 12;
  double y = 32;
  for (LegendEntry& entry : all) {
    if (!has_plan && entry.fill == kFrontFill) continue;
    const double advance = 24 + kCharWidth * static_cast<double>(std::strlen(entry.label));
    if (x > 12 && x + advance > width - 12) {
      x = 12;
      y += 16;
    }
    entry.x = x;
    entry.y = y;
    x += advance;
    entries->push_back(entry);
  }
  return y + 42;
}

}  // namespace

double PlotHeaderHeight(bool has_plan, double width) {
  std::vector<LegendEntry> entries;
  return LayOutLegend(has_plan, width, &entries);
}

void DrawPlotHeader(SvgWriter& svg, std::string_view heading, bool has_plan, double width) {
  svg.Element("text",
              {{"class", "heading"},
               {"x", "12"},
               {"y", "22"},
               {"font-size", "14"},
               {"font-weight", "bold"}},
              heading);
  std::vector<LegendEntry> entries;
  const double height = LayOutLegend(has_plan, width, &entries);
  for (const LegendEntry& e : entries) {
    if (e.line) {
      svg.Empty("line", {{"x1", SvgNumber(e.x)},
                         {"y1", SvgNumber(e.y + 5)},
                         {"x2", SvgNumber(e.x + 14)},
                         {"y2", SvgNumber(e.y + 5)},
                         {"stroke", e.stroke},
                         {"stroke-width", "1.5"},
                         {"stroke-dasharray", e.dash}});
    } else {
      svg.Empty("rect", {{"x", SvgNumber(e.x)},
                         {"y", SvgNumber(e.y)},
                         {"width", "14"},
                         {"height", "10"},
                         {"fill", e.fill},
                         {"stroke", e.stroke},
                         {"stroke-dasharray", e.dash}});
    }
    svg.Element("text", {{"x", SvgNumber(e.x + 18)}, {"y", SvgNumber(e.y + 9)}}, e.label);
  }
  svg.Element("text", {{"x", "12"}, {"y", SvgNumber(height - 12)}, {"fill", "#555555"}},
              "time (instruction index) across, arena offset up; hover a rectangle for its "
              "value, name, bytes and live range");
}

}  // namespace pteshare::cli
