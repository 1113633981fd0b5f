// One panel of a `pteshare plot` picture: one arena of one method, before
// or after the plan, over a window of its bytes (the whole arena, or the
// zoom on the bytes outside the buffers). Tensors are rectangles, the
// smallest a density shade; the front region, the lower bound, the arena
// size and an --arena-limit are level lines; labels are placed so that
// none covers another (label_placer.h).
#pragma once

#include <cstdint>
#include <optional>

#include "tools/plot/layout_picture.h"
#include "tools/plot/svg_layout.h"
#include "tools/plot/svg_writer.h"

namespace pteshare::plot {

// Panel geometry in SVG pixels. The plot area is wide enough for a few
// hundred instructions at a pixel or more each, and tall enough that a
// tensor of 1/200 of the arena is still a visible bar.
inline constexpr double kPlotWidth = 540;
inline constexpr double kPlotHeight = 240;
inline constexpr double kMarginLeft = 70;
inline constexpr double kMarginRight = 24;
inline constexpr double kMarginTop = 44;
inline constexpr double kMarginBottom = 36;
inline constexpr double kPanelWidth = kMarginLeft + kPlotWidth + kMarginRight;
inline constexpr double kPanelHeight = kMarginTop + kPlotHeight + kMarginBottom;

/// Bytes [low, high) of an arena.
struct ByteWindow {
  uint64_t low = 0;
  uint64_t high = 1;
  uint64_t size() const { return high - low; }
};

/// Where a panel goes and what of the arena it shows.
struct PanelPlace {
  double x = 0;  // top-left corner of the panel
  double y = 0;
  ByteWindow bytes;
  /// A zoom panel: only the tensors that meet `bytes` are drawn.
  bool zoom = false;
  /// In a zoom panel: how many times larger than in the full panel.
  uint64_t magnification = 1;
  /// In a full panel with a zoom panel under it: the window the zoom shows.
  std::optional<ByteWindow> zoomed;
  /// Unique in the picture: names the panel's clip path.
  size_t id = 0;
};

/// Draws the panel into `svg`; counts what it drew into `stats`.
void DrawArenaPanel(SvgWriter& svg, const ArenaRow& row, const ArenaPanel& panel,
                    const PanelPlace& place, const SvgLayoutOptions& options,
                    SvgLayoutStats* stats);

}  // namespace pteshare::plot
