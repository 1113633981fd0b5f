// Drawing a LayoutPicture as one self-contained SVG: one panel per arena of
// each method, time (instruction index) across and arena offset up, one
// rectangle per planned tensor coloured by alias group, shared buffers and
// the front region highlighted, the lower bound as a dashed line; before
// and after the plan side by side. No external fonts, images or scripts;
// the same picture gives the same bytes.
#pragma once

#include <cstddef>
#include <string>

#include "tools/plot/layout_picture.h"

namespace pteshare::plot {

struct SvgLayoutOptions {
  /// Tensors drawn one by one per panel at most; the smallest of the rest
  /// are aggregated (pixel_density.h), so a 20,000-tensor arena stays a
  /// file a browser opens at once.
  size_t max_tensor_rects_per_panel = 2000;
  /// Give every tensor and group a <title> (a hover tooltip in browsers).
  bool tooltips = true;
};

/// What was drawn, for the command's summary line and for tests.
struct SvgLayoutStats {
  size_t panels = 0;
  size_t tensor_rects = 0;
  size_t aggregated_tensors = 0;
  size_t aggregate_rects = 0;
  /// Zoom panels (where buffers fill most of an arena) and the tensor
  /// rectangles in them, counted apart: they draw again what a full panel
  /// drew.
  size_t zoom_panels = 0;
  size_t zoom_tensor_rects = 0;
};

/// The picture as an SVG document (no XML declaration, so it can also be
/// inlined into HTML as is).
std::string RenderLayoutSvg(const LayoutPicture& picture, const SvgLayoutOptions& options,
                            SvgLayoutStats* stats = nullptr);

}  // namespace pteshare::plot
