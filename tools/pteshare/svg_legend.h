// The top of a `pteshare plot` picture: a heading, a legend of everything
// the panels highlight (wrapped to the picture's width), and one line on
// how to read a panel.
#pragma once

#include <string_view>

#include "tools/pteshare/svg_writer.h"

namespace pteshare::cli {

/// Height the header takes in a picture `width` pixels wide (the legend
/// wraps onto more lines in a narrow, single-column picture).
double PlotHeaderHeight(bool has_plan, double width);

/// Draws the header at the top of `svg`. The front-region entry is there
/// only with a plan.
void DrawPlotHeader(SvgWriter& svg, std::string_view heading, bool has_plan, double width);

}  // namespace pteshare::cli
