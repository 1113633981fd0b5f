// The top of a `pteshare plot` picture: a heading, a legend of everything
// the panels highlight (wrapped to the picture's width), one line on how
// to read a panel, and notes: the memory the arenas cost, why a plan
// failed, which methods have nothing to draw.
#pragma once

#include <string>
#include <vector>

#include "tools/plot/svg_writer.h"

namespace pteshare::plot {

/// A line of text under the legend (wrapped when too wide).
struct HeaderNote {
  std::string text;
  const char* colour = "#333333";
  bool bold = false;
  /// The text's class: "memory", "failure", "unplanned".
  const char* css_class = "note";
};

struct PlotHeader {
  /// Wrapped onto more lines when wider than the picture.
  std::string heading;
  /// The legend and the how-to-read line (not for a picture with no panel).
  bool legend = true;
  /// The front region and "moved by the plan" entries.
  bool has_plan = false;
  /// The --arena-limit entry.
  bool has_limit = false;
  /// The zoom-window entry.
  bool has_zoom = false;
  std::vector<HeaderNote> notes;
};

/// Height the header takes in a picture `width` pixels wide (the legend
/// and the notes wrap onto more lines in a narrow picture).
double PlotHeaderHeight(const PlotHeader& header, double width);

/// Draws the header at the top of `svg`.
void DrawPlotHeader(SvgWriter& svg, const PlotHeader& header, double width);

/// `text` broken at spaces into lines of at most `width` pixels at
/// `font_size` (a word longer than a line gets a line of its own).
std::vector<std::string> WrapText(const std::string& text, double font_size, double width);

}  // namespace pteshare::plot
