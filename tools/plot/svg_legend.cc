#include "tools/plot/svg_legend.h"

#include <cstring>

#include "tools/plot/label_placer.h"
#include "tools/plot/plot_palette.h"

namespace pteshare::plot {
namespace {

constexpr double kFont = 11;
constexpr double kHeadingFont = 14;
constexpr double kLineHeight = 16;

/// One legend entry: a swatch (or a dashed line) and its label.
struct LegendEntry {
  const char* fill;
  const char* stroke;
  const char* dash;
  const char* label;
  bool line = false;
  double stroke_width = 1;
  double x = 0, y = 0;  // placed by LayOutHeader
};

/// A line of text placed by LayOutHeader.
struct PlacedLine {
  std::string text;
  const char* colour;
  bool bold;
  const char* css_class;
  double baseline;
};

/// Everything in the header with its place, and the height it takes.
struct HeaderLayout {
  std::vector<PlacedLine> heading;
  std::vector<LegendEntry> entries;
  std::vector<PlacedLine> lines;
  double height = 0;
};

HeaderLayout LayOutHeader(const PlotHeader& header, double width) {
  HeaderLayout layout;
  std::vector<LegendEntry> all = {
      {kGroupFills[0], "none", "none", "tensor (colour: alias group)"},
      {"none", "#222222", "3 2", "alias group"},
      {kSharedFill, kSharedStroke, "none", "shared buffer"},
      {kMutableFill, "none", "none", "other mutable buffer"},
      {kFrontFill, kFrontStroke, "4 2", "front region"},
      {"#ffffff", kMovedStroke, "none", "placement changed by the plan", false, 1.4},
      {"none", kBoundStroke, "5 3", "lower bound", /*line=*/true},
      {"none", kLimitStroke, "8 3", "--arena-limit", /*line=*/true},
      {"none", kZoomStroke, "none", "bytes a zoom panel enlarges", false, 1.5},
      {kDensityFill, "none", "none", "tensors under a pixel (shade: density)"},
  };
  double y = 22;
  for (const std::string& line : WrapText(header.heading, kHeadingFont * kBoldWidth, width - 24)) {
    layout.heading.push_back({line, "#000000", true, "heading", y});
    y += 18;
  }
  y -= 8;  // the legend's top, under the heading's last baseline
  double x = 12;
  if (!header.legend) all.clear();
  for (LegendEntry& entry : all) {
    if (!header.has_plan && (entry.fill == kFrontFill || entry.stroke == kMovedStroke)) continue;
    if (!header.has_limit && entry.stroke == kLimitStroke) continue;
    if (!header.has_zoom && entry.stroke == kZoomStroke) continue;
    const double advance = 28 + TextWidth(entry.label, kFont);
    if (x > 12 && x + advance > width - 12) {
      x = 12;
      y += kLineHeight;
    }
    entry.x = x;
    entry.y = y;
    x += advance;
    layout.entries.push_back(entry);
  }
  double baseline = y + 30;
  if (header.legend) {
    layout.lines.push_back(
        {"time (instruction index) across, arena offset up; hover a rectangle "
         "for its value, name, dtype and shape, first writer, bytes and live range",
         "#555555", false, "how-to-read", baseline});
  } else {
    baseline -= 2 * kLineHeight;  // no legend above the notes
  }
  for (const HeaderNote& note : header.notes) {
    for (const std::string& line :
         WrapText(note.text, note.bold ? kFont * kBoldWidth : kFont, width - 24)) {
      baseline += kLineHeight;
      layout.lines.push_back({line, note.colour, note.bold, note.css_class, baseline});
    }
  }
  layout.height = baseline + 12;
  return layout;
}

}  // namespace

std::vector<std::string> WrapText(const std::string& text, double font_size, double width) {
  // Words split first where a word alone is wider than a line (a long file
  // name): after its last '_', '-' or '.' that fits, else anywhere.
  std::vector<std::string> words;
  for (size_t at = 0; at <= text.size();) {
    size_t space = text.find(' ', at);
    if (space == std::string::npos) space = text.size();
    std::string word = text.substr(at, space - at);
    while (TextWidth(word, font_size) > width && word.size() > 1) {
      size_t fits = 1;
      while (fits < word.size() && TextWidth(word.substr(0, fits + 1), font_size) <= width) ++fits;
      const size_t mark = word.substr(0, fits).find_last_of("_-.");
      const size_t cut = mark != std::string::npos && mark > 0 ? mark + 1 : fits;
      words.push_back(word.substr(0, cut));
      word = word.substr(cut);
    }
    words.push_back(word);
    at = space + 1;
  }
  std::vector<std::string> lines(1);
  for (const std::string& word : words) {
    const std::string joined = lines.back().empty() ? word : lines.back() + " " + word;
    if (!lines.back().empty() && TextWidth(joined, font_size) > width) {
      lines.push_back(word);
    } else {
      lines.back() = joined;
    }
  }
  return lines;
}

double PlotHeaderHeight(const PlotHeader& header, double width) {
  return LayOutHeader(header, width).height;
}

void DrawPlotHeader(SvgWriter& svg, const PlotHeader& header, double width) {
  const HeaderLayout layout = LayOutHeader(header, width);
  for (const PlacedLine& line : layout.heading) {
    svg.Element("text",
                {{"class", "heading"},
                 {"x", "12"},
                 {"y", SvgNumber(line.baseline)},
                 {"font-size", SvgNumber(kHeadingFont)},
                 {"font-weight", "bold"}},
                line.text);
  }
  for (const LegendEntry& e : layout.entries) {
    if (e.line) {
      svg.Empty("line", {{"x1", SvgNumber(e.x)},
                         {"y1", SvgNumber(e.y + 5)},
                         {"x2", SvgNumber(e.x + 18)},
                         {"y2", SvgNumber(e.y + 5)},
                         {"stroke", e.stroke},
                         {"stroke-width", "1.5"},
                         {"stroke-dasharray", e.dash}});
    } else {
      svg.Empty("rect", {{"x", SvgNumber(e.x)},
                         {"y", SvgNumber(e.y)},
                         {"width", "18"},
                         {"height", "10"},
                         {"fill", e.fill},
                         {"stroke", e.stroke},
                         {"stroke-width", SvgNumber(e.stroke_width)},
                         {"stroke-dasharray", e.dash}});
    }
    svg.Element("text", {{"x", SvgNumber(e.x + 22)}, {"y", SvgNumber(e.y + 9)}}, e.label);
  }
  for (const PlacedLine& line : layout.lines) {
    svg.Element("text",
                {{"class", line.css_class},
                 {"x", "12"},
                 {"y", SvgNumber(line.baseline)},
                 {"fill", line.colour},
                 {"font-weight", line.bold ? "bold" : "normal"}},
                line.text);
  }
}

}  // namespace pteshare::plot
