#include "tools/plot/panel_labels.h"

#include <algorithm>
#include <optional>

#include "tools/plot/plot_labels.h"

namespace pteshare::plot {
namespace {

std::string BoxAttribute(const LabelBox& b) {
  return SvgNumber(b.x) + " " + SvgNumber(b.y) + " " + SvgNumber(b.width) + " " +
         SvgNumber(b.height);
}

/// One label for a run of buffers none of which could be named:
/// "64 shared buffers, 2 MiB" at its middle, where it fits.
void LabelBufferRun(PanelLabels& labels, const PanelFrame& frame, const ArenaPanel& panel,
                    const std::vector<size_t>& run, const std::vector<bool>& named) {
  if (run.size() < 2) return;
  uint64_t bytes = 0;
  uint64_t low = panel.boxes[run.front()].placement.offset;
  uint64_t high = 0;
  size_t shared = 0;
  for (size_t i : run) {
    if (named[i]) return;  // its members speak for themselves
    const TensorBox& box = panel.boxes[i];
    bytes += box.placement.nbytes;
    low = std::min(low, box.placement.offset);
    high = std::max(high, box.placement.end());
    shared += box.kind == BoxKind::kSharedBuffer ? 1 : 0;
  }
  const PixelRect r = Visible(frame, RectOf(frame, low, high, {0, 0}));
  if (r.h < TextHeight(kLevelFont) + 4) return;
  const char* what = shared == run.size() ? " shared buffers, "
                     : shared == 0        ? " mutable buffers, "
                                          : " buffers, ";
  // A run is the buffers packed together, not all of them: "2 of 4" where
  // the panel has more of the kind (a gap of alignment padding apart).
  auto same_kind = [&](const TensorBox& box) {
    if (box.kind == BoxKind::kTensor) return false;
    if (shared == run.size()) return box.kind == BoxKind::kSharedBuffer;
    if (shared == 0) return box.kind == BoxKind::kMutableBuffer;
    return true;
  };
  const size_t of_kind =
      static_cast<size_t>(std::count_if(panel.boxes.begin(), panel.boxes.end(), same_kind));
  std::string text = std::to_string(run.size());
  if (of_kind > run.size()) text += " of " + std::to_string(of_kind);
  text += what + ShortBytes(bytes);
  const double x = frame.left + (kPlotWidth - TextWidth(text, kLevelFont)) / 2;
  const double middle = r.y + r.h / 2 + 3.5;
  labels.Write(text, "#222222", "buffer-run",
               {{x, middle, false}, {x, middle + 12, false}, {x, middle - 12, false}}, kLevelFont);
}

}  // namespace

bool PanelLabels::Write(const std::string& text, const char* colour, const char* css_class,
                        const std::vector<LabelSpot>& spots, double font_size, bool halo) {
  std::vector<LabelBox> boxes;
  for (const LabelSpot& s : spots) {
    boxes.push_back(TextBox(text, font_size, s.x, s.baseline, s.anchor_end));
  }
  const std::optional<size_t> chosen = placer_.Place(boxes);
  if (!chosen) return false;
  const LabelSpot& s = spots[*chosen];
  svg_.Element("text",
               {{"class", std::string("label ") + css_class},
                {"x", SvgNumber(s.x)},
                {"y", SvgNumber(s.baseline)},
                {"text-anchor", s.anchor_end ? "end" : "start"},
                {"fill", colour},
                {"font-size", SvgNumber(font_size)},
                {"stroke", halo ? "#ffffff" : "none"},
                {"stroke-width", halo ? "2.5" : "0"},
                {"paint-order", "stroke"},
                {"pointer-events", "none"},
                {"data-box", BoxAttribute(boxes[*chosen])}},
               text);
  return true;
}

void LabelBuffers(PanelLabels& labels, const PanelFrame& frame, const ArenaPanel& panel,
                  const std::vector<PixelRect>& rects, const std::vector<bool>& drawn) {
  // A buffer's name inside its rectangle, where it fits and no other label
  // is: with a few buffers this is what makes the picture read without
  // hovering.
  std::vector<bool> named(panel.boxes.size(), false);
  std::vector<size_t> buffers;
  for (size_t i = 0; i < panel.boxes.size(); ++i) {
    const TensorBox& box = panel.boxes[i];
    if (!drawn[i] || box.kind == BoxKind::kTensor) continue;
    buffers.push_back(i);
    const PixelRect r = Visible(frame, rects[i]);
    if (box.name.empty() || r.h < TextHeight(kBufferFont) || r.w < 40) continue;
    // Keep the end of the name: "...layers.3.attention.kv_cache.v_cache".
    std::string label = box.name;
    for (size_t cut = 1; TextWidth(label, kBufferFont) > r.w - 8 && cut + 3 < box.name.size();
         ++cut) {
      label = "..." + box.name.substr(cut);
    }
    if (TextWidth(label, kBufferFont) > r.w - 8) continue;
    named[i] = labels.Write(label, "#ffffff", "buffer-name", {{r.x + 4, r.y + r.h / 2 + 3, false}},
                            kBufferFont, /*halo=*/false);
  }
  // Buffers packed one above the other (the front region, a stack of KV
  // caches): runs, where gaps under two pixels (alignment padding) do not
  // break one.
  std::stable_sort(buffers.begin(), buffers.end(), [&](size_t a, size_t b) {
    return panel.boxes[a].placement.offset < panel.boxes[b].placement.offset;
  });
  const double bytes_per_pixel = static_cast<double>(frame.bytes.size()) / kPlotHeight;
  size_t start = 0;
  while (start < buffers.size()) {
    size_t end = start + 1;
    uint64_t run_end = panel.boxes[buffers[start]].placement.end();
    while (end < buffers.size() &&
           static_cast<double>(panel.boxes[buffers[end]].placement.offset) <=
               static_cast<double>(run_end) + 2 * bytes_per_pixel) {
      run_end = std::max(run_end, panel.boxes[buffers[end]].placement.end());
      ++end;
    }
    LabelBufferRun(labels, frame, panel,
                   std::vector<size_t>(buffers.begin() + start, buffers.begin() + end), named);
    start = end;
  }
}

}  // namespace pteshare::plot
