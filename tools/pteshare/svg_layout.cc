#include "tools/pteshare/svg_layout.h"

#include <algorithm>
#include <cmath>

#include "tools/pteshare/output.h"
#include "tools/pteshare/pixel_density.h"
#include "tools/pteshare/plot_labels.h"
#include "tools/pteshare/plot_palette.h"
#include "tools/pteshare/svg_legend.h"
#include "tools/pteshare/svg_writer.h"

namespace pteshare::cli {
namespace {

// Panel geometry in SVG pixels. The plot area is wide enough for a few
// hundred instructions at a pixel or more each, and tall enough that a
// tensor of 1/200 of the arena is still a visible bar.
constexpr double kPlotWidth = 540;
constexpr double kPlotHeight = 240;
constexpr double kMarginLeft = 70;
constexpr double kMarginRight = 24;
constexpr double kMarginTop = 44;
constexpr double kMarginBottom = 36;
constexpr double kPanelWidth = kMarginLeft + kPlotWidth + kMarginRight;
constexpr double kPanelHeight = kMarginTop + kPlotHeight + kMarginBottom;
// Smaller than this in either direction, a tensor is aggregated.
constexpr double kMinTensorPixels = 1.0;
constexpr double kDensityCell = 3;
constexpr int kDensityLevels = 6;

/// Where a panel's plot area is and how bytes and instructions map to it.
struct PanelFrame {
  double left = 0;  // plot area, SVG pixels
  double top = 0;
  double bytes_scale = 1;  // bytes at the top of the plot area
  int64_t instructions = 1;

  double X(int64_t instruction) const {
    return left + static_cast<double>(instruction) * kPlotWidth / static_cast<double>(instructions);
  }
  double Y(uint64_t offset) const {
    return top + kPlotHeight - static_cast<double>(offset) * kPlotHeight / bytes_scale;
  }
};

/// A tensor's rectangle in pixels.
struct PixelRect {
  double x = 0, y = 0, w = 0, h = 0;
};

PixelRect RectOf(const PanelFrame& f, const Placement& p, const LiveRange& live) {
  PixelRect r;
  r.x = f.X(live.first);
  r.w = f.X(live.last + 1) - r.x;
  r.y = f.Y(p.end());
  r.h = f.Y(p.offset) - r.y;
  return r;
}

const char* FillOf(const TensorBox& box) {
  switch (box.kind) {
    case BoxKind::kSharedBuffer:
      return kSharedFill;
    case BoxKind::kMutableBuffer:
      return kMutableFill;
    case BoxKind::kTensor:
      break;
  }
  if (box.group < 0) return "#999999";
  return kGroupFills[static_cast<size_t>(box.group) % std::size(kGroupFills)];
}

const char* ClassOf(const TensorBox& box) {
  switch (box.kind) {
    case BoxKind::kSharedBuffer:
      return "tensor shared";
    case BoxKind::kMutableBuffer:
      return "tensor mutable";
    case BoxKind::kTensor:
      break;
  }
  return "tensor";
}

class LayoutRenderer {
 public:
  LayoutRenderer(const LayoutPicture& picture, const SvgLayoutOptions& options)
      : picture_(picture), options_(options) {}

  std::string Render(SvgLayoutStats* stats) {
    const bool has_plan = !picture_.strategy.empty();
    const double width = kPanelWidth * (has_plan ? 2 : 1);
    const double header = PlotHeaderHeight(has_plan, width);
    const double height = header + kPanelHeight * static_cast<double>(picture_.rows.size());
    svg_.Open("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
                      {"width", SvgNumber(width)},
                      {"height", SvgNumber(height)},
                      {"viewBox", "0 0 " + SvgNumber(width) + " " + SvgNumber(height)},
                      {"font-family", "DejaVu Sans, Helvetica, Arial, sans-serif"},
                      {"font-size", "11"}});
    svg_.Raw("\n");
    svg_.Element("title", {}, "pteshare plot: " + picture_.file);
    svg_.Empty("rect",
               {{"width", SvgNumber(width)}, {"height", SvgNumber(height)}, {"fill", "#ffffff"}});
    DrawHeader(has_plan, width);
    for (size_t i = 0; i < picture_.rows.size(); ++i) {
      const ArenaRow& row = picture_.rows[i];
      const double top = header + kPanelHeight * static_cast<double>(i);
      // Before and after share one byte scale, so that growth shows.
      uint64_t scale = std::max<uint64_t>(row.before.arena_size, 1);
      scale = std::max(scale, HighestEnd(row.before));
      if (row.after) scale = std::max({scale, row.after->arena_size, HighestEnd(*row.after)});
      DrawPanel(row, row.before, 0, top, scale);
      if (row.after) DrawPanel(row, *row.after, kPanelWidth, top, scale);
    }
    svg_.Close("svg");
    if (stats != nullptr) *stats = stats_;
    return svg_.str();
  }

 private:
  static uint64_t HighestEnd(const ArenaPanel& panel) {
    uint64_t end = panel.front_size;
    for (const TensorBox& box : panel.boxes) end = std::max(end, box.placement.end());
    return end;
  }

  /// The heading over the legend.
  void DrawHeader(bool has_plan, double width) {
    std::string heading = picture_.file + ": memory layout";
    if (has_plan) heading += " before and after the plan (strategy " + picture_.strategy + ")";
    if (!picture_.plan_verified) heading += " - the plan FAILED verification, shown to diagnose";
    DrawPlotHeader(svg_, heading, has_plan, width);
  }

  void DrawPanel(const ArenaRow& row, const ArenaPanel& panel, double x0, double y0,
                 uint64_t scale) {
    ++stats_.panels;
    label_rows_.clear();
    PanelFrame f;
    f.left = x0 + kMarginLeft;
    f.top = y0 + kMarginTop;
    f.bytes_scale = static_cast<double>(scale);
    f.instructions = std::max<int64_t>(row.instruction_count, 1);

    svg_.Open("g", {{"class", panel.after_plan ? "panel after" : "panel before"}});
    svg_.Raw("\n");
    std::string title = row.method + " - arena " + std::to_string(row.memory_id) + " (" +
                        row.device + ") - " + (panel.after_plan ? "after" : "before");
    svg_.Element("text",
                 {{"class", "title"},
                  {"x", SvgNumber(x0 + 12)},
                  {"y", SvgNumber(y0 + 16)},
                  {"font-size", "13"},
                  {"font-weight", "bold"}},
                 title);
    std::string subtitle = Grouped(panel.arena_size) + " bytes, " +
                           std::to_string(panel.boxes.size()) + " tensors, " +
                           std::to_string(row.instruction_count) + " instructions";
    if (panel.front_size > 0) subtitle += ", front region " + ShortBytes(panel.front_size);
    svg_.Element("text",
                 {{"class", "subtitle"},
                  {"x", SvgNumber(x0 + 12)},
                  {"y", SvgNumber(y0 + 31)},
                  {"fill", "#444444"}},
                 subtitle);
    svg_.Empty("rect", {{"class", "plot"},
                        {"x", SvgNumber(f.left)},
                        {"y", SvgNumber(f.top)},
                        {"width", SvgNumber(kPlotWidth)},
                        {"height", SvgNumber(kPlotHeight)},
                        {"fill", "#f7f7f7"},
                        {"stroke", "#bbbbbb"}});
    if (panel.front_size > 0) DrawFrontRegion(f, panel.front_size);
    DrawTensors(f, row, panel);
    DrawGroups(f, panel);
    if (panel.front_size > 0) {
      // Its edge again on top: the buffers inside usually hide the region.
      DrawLevelLine(f, panel.front_size, "front region " + ShortBytes(panel.front_size),
                    kFrontStroke, "6 3", "front-edge", /*label_right=*/true, /*below=*/true);
    }
    DrawLevelLine(f, panel.arena_size, "arena " + ShortBytes(panel.arena_size), "#222222", "none",
                  "arena-size", /*label_right=*/false, /*below=*/false);
    if (row.lower_bound > 0) {
      DrawLevelLine(f, row.lower_bound, "lower bound " + ShortBytes(row.lower_bound), kBoundStroke,
                    "5 3", "bound", /*label_right=*/true, /*below=*/false);
    }
    DrawAxes(f, row.instruction_count);
    svg_.Close("g");
  }

  void DrawFrontRegion(const PanelFrame& f, uint64_t front_size) {
    const double y = f.Y(front_size);
    const double h = f.Y(0) - y;
    svg_.Open("rect", {{"class", "front"},
                       {"x", SvgNumber(f.left)},
                       {"y", SvgNumber(y)},
                       {"width", SvgNumber(kPlotWidth)},
                       {"height", SvgNumber(std::max(h, 1.0))},
                       {"fill", kFrontFill},
                       {"fill-opacity", "0.45"},
                       {"stroke", kFrontStroke},
                       {"stroke-dasharray", "4 2"}});
    svg_.Element("title", {},
                 "front region [0, " + Grouped(front_size) +
                     ") bytes: the shared buffers, at the same offsets in every method; no "
                     "other tensor may use it");
    svg_.Close("rect");
  }

  /// Draws the larger tensors one by one and the rest as density runs.
  void DrawTensors(const PanelFrame& f, const ArenaRow& row, const ArenaPanel& panel) {
    std::vector<PixelRect> rects;
    rects.reserve(panel.boxes.size());
    for (const TensorBox& box : panel.boxes) rects.push_back(RectOf(f, box.placement, box.live));

    // Buffers are always drawn (they are few and the point of the picture);
    // ordinary tensors if they cover a pixel, largest first up to the cap.
    std::vector<bool> draw(panel.boxes.size(), false);
    std::vector<size_t> candidates;
    for (size_t i = 0; i < panel.boxes.size(); ++i) {
      if (panel.boxes[i].kind != BoxKind::kTensor) {
        draw[i] = true;
      } else if (rects[i].w >= kMinTensorPixels && rects[i].h >= kMinTensorPixels) {
        candidates.push_back(i);
      }
    }
    if (candidates.size() > options_.max_tensor_rects_per_panel) {
      std::stable_sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) {
        return rects[a].w * rects[a].h > rects[b].w * rects[b].h;
      });
      candidates.resize(options_.max_tensor_rects_per_panel);
    }
    for (size_t i : candidates) draw[i] = true;

    PixelDensity density(kPlotWidth, kPlotHeight, kDensityCell);
    for (size_t i = 0; i < panel.boxes.size(); ++i) {
      if (!draw[i]) density.Add(rects[i].x - f.left, rects[i].y - f.top, rects[i].w, rects[i].h);
    }
    DrawDensity(f, density);

    std::vector<size_t> members(0);
    for (const GroupOutline& g : panel.groups) {
      if (members.size() <= static_cast<size_t>(g.group)) members.resize(g.group + 1, 0);
      members[g.group] = g.members;
    }
    std::vector<size_t> labels;
    for (size_t i = 0; i < panel.boxes.size(); ++i) {
      if (!draw[i]) continue;
      const TensorBox& box = panel.boxes[i];
      PixelRect r = rects[i];
      // A buffer smaller than a pixel still shows as one.
      r.w = std::max(r.w, kMinTensorPixels);
      if (r.h < kMinTensorPixels) {
        r.y -= kMinTensorPixels - r.h;
        r.h = kMinTensorPixels;
      }
      const bool buffer = box.kind == BoxKind::kSharedBuffer;
      const size_t group_members = box.group >= 0 && static_cast<size_t>(box.group) < members.size()
                                       ? members[box.group]
                                       : 1;
      svg_.Open("rect", {{"class", ClassOf(box)},
                         {"x", SvgNumber(r.x)},
                         {"y", SvgNumber(r.y)},
                         {"width", SvgNumber(r.w)},
                         {"height", SvgNumber(r.h)},
                         {"fill", FillOf(box)},
                         {"stroke", buffer ? kSharedStroke : "#ffffff"},
                         {"stroke-width", r.w > 3 && r.h > 3 ? "0.6" : "0"}});
      if (options_.tooltips) {
        svg_.Element("title", {},
                     TensorTooltip(box, panel.after_plan, row.instruction_count, group_members));
      }
      svg_.Close("rect");
      ++stats_.tensor_rects;
      if (box.kind != BoxKind::kTensor) labels.push_back(i);
    }
    for (size_t i : labels) LabelBuffer(panel.boxes[i], rects[i]);
  }

  /// A buffer's name inside its rectangle, where it fits: with a few
  /// buffers this is what makes the picture read without hovering.
  void LabelBuffer(const TensorBox& box, const PixelRect& r) {
    constexpr double kCharWidth = 5.4;  // font-size 9, DejaVu Sans, roughly
    if (box.name.empty() || r.h < 10 || r.w < 40) return;
    std::string label = box.name;
    const size_t fits = static_cast<size_t>((r.w - 8) / kCharWidth);
    if (fits < 6) return;
    // Keep the end of the name: "...layers.3.attention.kv_cache.v_cache".
    if (label.size() > fits) label = "..." + label.substr(label.size() - (fits - 3));
    svg_.Element("text",
                 {{"class", "label"},
                  {"x", SvgNumber(r.x + 4)},
                  {"y", SvgNumber(r.y + r.h / 2 + 3)},
                  {"font-size", "9"},
                  {"fill", "#ffffff"},
                  {"pointer-events", "none"}},
                 label);
  }

  void DrawDensity(const PanelFrame& f, const PixelDensity& density) {
    stats_.aggregated_tensors += density.added();
    if (density.added() == 0) return;
    svg_.Open("g", {{"class", "aggregate"}, {"fill", kDensityFill}});
    if (options_.tooltips) {
      svg_.Element("title", {},
                   std::to_string(density.added()) +
                       " tensors smaller than a pixel, drawn as density (darker: more of the "
                       "area in use)");
    }
    for (const DensityRun& run : density.Runs(kDensityLevels)) {
      const double opacity = 0.15 + 0.75 * run.level / kDensityLevels;
      svg_.Empty("rect", {{"x", SvgNumber(f.left + run.x)},
                          {"y", SvgNumber(f.top + run.y)},
                          {"width", SvgNumber(run.width)},
                          {"height", SvgNumber(run.height)},
                          {"fill-opacity", SvgNumber(opacity)}});
      ++stats_.aggregate_rects;
    }
    svg_.Close("g");
  }

  void DrawGroups(const PanelFrame& f, const ArenaPanel& panel) {
    for (const GroupOutline& g : panel.groups) {
      PixelRect r = RectOf(f, Placement{0, g.offset, g.end - g.offset}, g.live);
      // An outline smaller than a few pixels would only hide its members.
      if (r.w < 3 || r.h < 3) continue;
      svg_.Open("rect", {{"class", "group"},
                         {"x", SvgNumber(r.x)},
                         {"y", SvgNumber(r.y)},
                         {"width", SvgNumber(r.w)},
                         {"height", SvgNumber(r.h)},
                         {"fill", "none"},
                         {"stroke", "#222222"},
                         {"stroke-width", "1"},
                         {"stroke-dasharray", "3 2"}});
      if (options_.tooltips) {
        svg_.Element("title", {},
                     "alias group of " + std::to_string(g.members) + " tensors (they move as one " +
                         "block): offset " + Grouped(g.offset) + ", " + Grouped(g.end - g.offset) +
                         " bytes, " + LiveRangeText(g.live, f.instructions));
      }
      svg_.Close("rect");
    }
  }

  /// A horizontal line at `bytes` across the plot area, labelled above it
  /// (or below).
  void DrawLevelLine(const PanelFrame& f, uint64_t bytes, const std::string& label,
                     const char* colour, const char* dash, const char* css_class, bool label_right,
                     bool below) {
    const double y = f.Y(bytes);
    svg_.Empty("line", {{"class", css_class},
                        {"x1", SvgNumber(f.left)},
                        {"y1", SvgNumber(y)},
                        {"x2", SvgNumber(f.left + kPlotWidth)},
                        {"y2", SvgNumber(y)},
                        {"stroke", colour},
                        {"stroke-width", "1.5"},
                        {"stroke-dasharray", dash}});
    // Labels sit just above the line (below it when the line is the top).
    double text_y = below || y - 3 < f.top + 10 ? y + 11 : y - 3;
    // Lines a few pixels apart (front region, lower bound and arena size
    // often are) would print their labels over each other: step down.
    for (int tries = 0; tries < 4; ++tries) {
      const bool taken = std::any_of(label_rows_.begin(), label_rows_.end(), [&](const auto& used) {
        return used.first == label_right && std::abs(used.second - text_y) < 11;
      });
      if (!taken) break;
      text_y += 11;
    }
    label_rows_.emplace_back(label_right, text_y);
    svg_.Element("text",
                 {{"x", SvgNumber(label_right ? f.left + kPlotWidth - 4 : f.left + 4)},
                  {"y", SvgNumber(text_y)},
                  {"text-anchor", label_right ? "end" : "start"},
                  {"fill", colour},
                  {"font-size", "10"},
                  {"stroke", "#ffffff"},
                  {"stroke-width", "2.5"},
                  {"paint-order", "stroke"}},
                 label);
  }

  void DrawAxes(const PanelFrame& f, int64_t instruction_count) {
    const double bottom = f.top + kPlotHeight;
    const uint64_t scale = static_cast<uint64_t>(f.bytes_scale);
    const uint64_t byte_step = ByteTickStep(scale, 5);
    for (uint64_t b = 0; b <= scale; b += byte_step) {
      const double y = f.Y(b);
      svg_.Empty("line", {{"x1", SvgNumber(f.left - 4)},
                          {"y1", SvgNumber(y)},
                          {"x2", SvgNumber(f.left)},
                          {"y2", SvgNumber(y)},
                          {"stroke", "#666666"}});
      svg_.Element("text",
                   {{"x", SvgNumber(f.left - 6)},
                    {"y", SvgNumber(y + 3.5)},
                    {"text-anchor", "end"},
                    {"font-size", "10"},
                    {"fill", "#444444"}},
                   ShortBytes(b));
    }
    const int64_t span = std::max<int64_t>(instruction_count, 1);
    const int64_t step = InstructionTickStep(span, 10);
    for (int64_t i = 0; i <= span; i += step) {
      const double x = f.X(i);
      svg_.Empty("line", {{"x1", SvgNumber(x)},
                          {"y1", SvgNumber(bottom)},
                          {"x2", SvgNumber(x)},
                          {"y2", SvgNumber(bottom + 4)},
                          {"stroke", "#666666"}});
      svg_.Element("text",
                   {{"x", SvgNumber(x)},
                    {"y", SvgNumber(bottom + 15)},
                    {"text-anchor", "middle"},
                    {"font-size", "10"},
                    {"fill", "#444444"}},
                   std::to_string(i));
    }
    svg_.Element("text",
                 {{"x", SvgNumber(f.left + kPlotWidth / 2)},
                  {"y", SvgNumber(bottom + 29)},
                  {"text-anchor", "middle"},
                  {"fill", "#444444"}},
                 "instruction");
  }

  const LayoutPicture& picture_;
  const SvgLayoutOptions& options_;
  /// Level-line labels of the current panel: (right-aligned, baseline y).
  std::vector<std::pair<bool, double>> label_rows_;
  SvgWriter svg_;
  SvgLayoutStats stats_;
};

}  // namespace

std::string RenderLayoutSvg(const LayoutPicture& picture, const SvgLayoutOptions& options,
                            SvgLayoutStats* stats) {
  return LayoutRenderer(picture, options).Render(stats);
}

}  // namespace pteshare::cli
