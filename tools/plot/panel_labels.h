// The labels of a `pteshare plot` panel, written where the label placer
// (label_placer.h) finds room: level-line labels, buffer names, and one
// label for a run of buffers too thin to name one by one. Each text
// carries the box it was given (data-box="x y w h"), so tests check the
// placement on the bytes.
#pragma once

#include <string>
#include <vector>

#include "tools/plot/label_placer.h"
#include "tools/plot/layout_picture.h"
#include "tools/plot/panel_frame.h"
#include "tools/plot/svg_writer.h"

namespace pteshare::plot {

inline constexpr double kLevelFont = 10;
inline constexpr double kBufferFont = 9;

/// Where a label could go: its anchor x, its baseline, and whether the
/// text ends at x (else starts there).
struct LabelSpot {
  double x;
  double baseline;
  bool anchor_end;
};

class PanelLabels {
 public:
  /// Labels stay inside `area` (the plot area).
  PanelLabels(SvgWriter& svg, const LabelBox& area) : svg_(svg), placer_(area) {}

  /// Writes `text` at the first spot free of other labels; false (nothing
  /// written) when none is. A halo (white outline) keeps text legible
  /// over lines and tensors.
  bool Write(const std::string& text, const char* colour, const char* css_class,
             const std::vector<LabelSpot>& spots, double font_size, bool halo = true);

 private:
  SvgWriter& svg_;
  LabelPlacer placer_;
};

/// Names the drawn buffers of `panel` inside their rectangles where they
/// fit; runs of buffers too thin for names get "64 shared buffers, 2 MiB"
/// ("2 of 4 mutable buffers, 64 B" where the panel has more of the kind).
/// `rects[i]` is box i's rectangle, `drawn[i]` whether it was drawn.
void LabelBuffers(PanelLabels& labels, const PanelFrame& frame, const ArenaPanel& panel,
                  const std::vector<PixelRect>& rects, const std::vector<bool>& drawn);

}  // namespace pteshare::plot
