// How a `pteshare plot` panel maps bytes and instructions to pixels: the
// plot area's place, the byte window it shows (the whole arena, or a zoom)
// and the rectangle of a tensor in it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "rewriter/plan/lifetimes.h"
#include "tools/plot/label_placer.h"
#include "tools/plot/svg_panel.h"

namespace pteshare::plot {

struct PanelFrame {
  double left = 0;  // plot area, SVG pixels
  double top = 0;
  ByteWindow bytes;
  int64_t instructions = 1;

  double X(int64_t instruction) const {
    return left + static_cast<double>(instruction) * kPlotWidth / static_cast<double>(instructions);
  }
  /// Offsets below the window map below the plot area (and are clipped).
  double Y(uint64_t offset) const {
    const double above_low = static_cast<double>(offset) - static_cast<double>(bytes.low);
    return top + kPlotHeight - above_low * kPlotHeight / static_cast<double>(bytes.size());
  }
  bool Shows(uint64_t offset) const { return offset >= bytes.low && offset <= bytes.high; }
  LabelBox Area() const { return LabelBox{left, top, kPlotWidth, kPlotHeight}; }
};

/// A tensor's rectangle in pixels.
struct PixelRect {
  double x = 0, y = 0, w = 0, h = 0;
};

inline PixelRect RectOf(const PanelFrame& f, uint64_t offset, uint64_t end, const LiveRange& live) {
  PixelRect r;
  r.x = f.X(live.first);
  r.w = f.X(live.last + 1) - r.x;
  r.y = f.Y(end);
  r.h = f.Y(offset) - r.y;
  return r;
}

/// `r` cut to the plot area (what is seen of it in a zoom panel).
inline PixelRect Visible(const PanelFrame& f, PixelRect r) {
  const double top = std::max(r.y, f.top);
  const double bottom = std::min(r.y + r.h, f.top + kPlotHeight);
  r.y = top;
  r.h = std::max(bottom - top, 0.0);
  return r;
}

}  // namespace pteshare::plot
