#include "tools/plot/svg_panel.h"

#include <algorithm>
#include <string>
#include <vector>

#include "tools/plot/panel_frame.h"
#include "tools/plot/panel_labels.h"
#include "tools/plot/pixel_density.h"
#include "tools/plot/plot_labels.h"
#include "tools/plot/plot_palette.h"
#include "tools/report/numbers.h"

namespace pteshare::plot {
namespace {

// Smaller than this in either direction, a tensor is aggregated.
constexpr double kMinTensorPixels = 1.0;
constexpr double kDensityCell = 3;
constexpr int kDensityLevels = 6;

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

std::string ClassOf(const TensorBox& box) {
  std::string css = "tensor";
  if (box.kind == BoxKind::kSharedBuffer) css += " shared";
  if (box.kind == BoxKind::kMutableBuffer) css += " mutable";
  if (box.moved) css += " moved";
  return css;
}

class PanelDrawer {
 public:
  PanelDrawer(SvgWriter& svg, const ArenaRow& row, const ArenaPanel& panel, const PanelPlace& place,
              const SvgLayoutOptions& options, SvgLayoutStats* stats)
      : svg_(svg),
        row_(row),
        panel_(panel),
        place_(place),
        options_(options),
        stats_(*stats),
        frame_(MakeFrame(row, place)),
        labels_(svg, frame_.Area()) {}

  void Draw() {
    ++(place_.zoom ? stats_.zoom_panels : stats_.panels);
    std::string css = panel_.after_plan ? "panel after" : "panel before";
    if (place_.zoom) css += " zoom";
    svg_.Open("g", {{"class", css}});
    svg_.Raw("\n");
    DrawTitles();
    const std::string clip = "plot-area-" + std::to_string(place_.id);
    svg_.Open("clipPath", {{"id", clip}});
    svg_.Empty("rect", {{"x", SvgNumber(frame_.left)},
                        {"y", SvgNumber(frame_.top)},
                        {"width", SvgNumber(kPlotWidth)},
                        {"height", SvgNumber(kPlotHeight)}});
    svg_.Close("clipPath");
    svg_.Empty("rect", {{"class", "plot"},
                        {"x", SvgNumber(frame_.left)},
                        {"y", SvgNumber(frame_.top)},
                        {"width", SvgNumber(kPlotWidth)},
                        {"height", SvgNumber(kPlotHeight)},
                        {"fill", "#f7f7f7"},
                        {"stroke", "#bbbbbb"}});
    svg_.Open("g", {{"clip-path", "url(#" + clip + ")"}});
    svg_.Raw("\n");
    if (panel_.front_size > 0) DrawFrontRegion();
    DrawTensors();
    DrawGroups();
    // Over the tensors: the buffers there would hide it.
    if (row_.arena_limit > 0 && panel_.arena_size > row_.arena_limit) DrawOverLimit();
    if (place_.zoomed) DrawZoomWindow(*place_.zoomed);
    svg_.Close("g");
    DrawLevelLines();
    LabelBuffers(labels_, frame_, panel_, rects_, drawn_);
    if (place_.zoomed) LabelZoomWindow(*place_.zoomed);
    DrawAxes();
    svg_.Close("g");
  }

 private:
  static PanelFrame MakeFrame(const ArenaRow& row, const PanelPlace& place) {
    PanelFrame f;
    f.left = place.x + kMarginLeft;
    f.top = place.y + kMarginTop;
    f.bytes = place.bytes;
    if (f.bytes.high <= f.bytes.low) f.bytes.high = f.bytes.low + 1;
    f.instructions = std::max<int64_t>(row.instruction_count, 1);
    return f;
  }

  void DrawTitles() {
    std::string title = row_.method + " - arena " + std::to_string(row_.memory_id) + " (" +
                        row_.device + ") - " + (panel_.after_plan ? "after" : "before");
    std::string subtitle;
    if (place_.zoom) {
      title += ", zoomed";
      subtitle = "offsets " + cli::Grouped(place_.bytes.low) + " to " +
                 cli::Grouped(place_.bytes.high) + ": the tensors outside the buffers, " +
                 std::to_string(place_.magnification) + "x the scale above";
    } else {
      subtitle = cli::Grouped(panel_.arena_size) + " bytes";
      if (panel_.after_plan && panel_.arena_size != row_.before.arena_size) {
        subtitle += " (was " + cli::Grouped(row_.before.arena_size) + ")";
      }
      subtitle += ", " + std::to_string(panel_.boxes.size()) + " tensors, " +
                  std::to_string(row_.instruction_count) + " instructions";
      if (panel_.front_size > 0) subtitle += ", front region " + ShortBytes(panel_.front_size);
      const size_t moved = static_cast<size_t>(std::count_if(
          panel_.boxes.begin(), panel_.boxes.end(), [](const TensorBox& b) { return b.moved; }));
      if (moved > 0) subtitle += ", " + std::to_string(moved) + " moved by the plan";
    }
    svg_.Element("text",
                 {{"class", "title"},
                  {"x", SvgNumber(place_.x + 12)},
                  {"y", SvgNumber(place_.y + 16)},
                  {"font-size", "13"},
                  {"font-weight", "bold"}},
                 title);
    svg_.Element("text",
                 {{"class", "subtitle"},
                  {"x", SvgNumber(place_.x + 12)},
                  {"y", SvgNumber(place_.y + 31)},
                  {"fill", "#444444"}},
                 subtitle);
  }

  void DrawFrontRegion() {
    const PixelRect r = Visible(frame_, RectOf(frame_, 0, panel_.front_size, {0, 0}));
    svg_.Open("rect", {{"class", "front"},
                       {"x", SvgNumber(frame_.left)},
                       {"y", SvgNumber(r.y)},
                       {"width", SvgNumber(kPlotWidth)},
                       {"height", SvgNumber(std::max(r.h, 1.0))},
                       {"fill", kFrontFill},
                       {"fill-opacity", "0.45"},
                       {"stroke", kFrontStroke},
                       {"stroke-dasharray", "4 2"}});
    svg_.Element("title", {},
                 "front region [0, " + cli::Grouped(panel_.front_size) +
                     ") bytes: the shared buffers, at the same offsets in every method; no "
                     "other tensor may use it");
    svg_.Close("rect");
  }

  /// The bytes of the arena above its --arena-limit: shaded, with a solid
  /// bar along the right edge.
  void DrawOverLimit() {
    const PixelRect r =
        Visible(frame_, RectOf(frame_, row_.arena_limit, panel_.arena_size, {0, 0}));
    svg_.Empty("rect", {{"x", SvgNumber(frame_.left + kPlotWidth - 6)},
                        {"y", SvgNumber(r.y)},
                        {"width", "6"},
                        {"height", SvgNumber(r.h)},
                        {"fill", kLimitStroke}});
    svg_.Open("rect", {{"class", "over-limit"},
                       {"x", SvgNumber(frame_.left)},
                       {"y", SvgNumber(r.y)},
                       {"width", SvgNumber(kPlotWidth)},
                       {"height", SvgNumber(r.h)},
                       {"fill", kLimitStroke},
                       {"fill-opacity", "0.2"}});
    svg_.Element("title", {},
                 cli::Grouped(panel_.arena_size - row_.arena_limit) +
                     " bytes of the arena above its --arena-limit of " +
                     cli::Grouped(row_.arena_limit));
    svg_.Close("rect");
  }

  /// Whether box `i` is in the window at all (a zoom panel leaves out the
  /// buffers below it, rather than counting them as drawn).
  bool InWindow(const TensorBox& box) const {
    return box.placement.end() > frame_.bytes.low && box.placement.offset < frame_.bytes.high;
  }

  /// Draws the larger tensors one by one and the rest as density runs.
  void DrawTensors() {
    rects_.clear();
    drawn_.assign(panel_.boxes.size(), false);
    rects_.reserve(panel_.boxes.size());
    for (const TensorBox& box : panel_.boxes) {
      rects_.push_back(RectOf(frame_, box.placement.offset, box.placement.end(), box.live));
    }
    // Buffers are always drawn (they are few and the point of the picture);
    // ordinary tensors if they cover a pixel, largest first up to the cap.
    std::vector<size_t> candidates;
    std::vector<bool> in_window(panel_.boxes.size(), true);
    for (size_t i = 0; i < panel_.boxes.size(); ++i) {
      in_window[i] = !place_.zoom || InWindow(panel_.boxes[i]);
      if (!in_window[i]) continue;
      const PixelRect seen = Visible(frame_, rects_[i]);
      if (panel_.boxes[i].kind != BoxKind::kTensor) {
        drawn_[i] = true;
      } else if (seen.w >= kMinTensorPixels && seen.h >= kMinTensorPixels) {
        candidates.push_back(i);
      }
    }
    if (candidates.size() > options_.max_tensor_rects_per_panel) {
      std::stable_sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) {
        return rects_[a].w * rects_[a].h > rects_[b].w * rects_[b].h;
      });
      candidates.resize(options_.max_tensor_rects_per_panel);
    }
    for (size_t i : candidates) drawn_[i] = true;

    PixelDensity density(kPlotWidth, kPlotHeight, kDensityCell);
    for (size_t i = 0; i < panel_.boxes.size(); ++i) {
      if (in_window[i] && !drawn_[i]) {
        density.Add(rects_[i].x - frame_.left, rects_[i].y - frame_.top, rects_[i].w, rects_[i].h);
      }
    }
    DrawDensity(density);

    std::vector<size_t> members;
    for (const GroupOutline& g : panel_.groups) {
      if (members.size() <= static_cast<size_t>(g.group)) members.resize(g.group + 1, 0);
      members[g.group] = g.members;
    }
    for (size_t i = 0; i < panel_.boxes.size(); ++i) {
      if (!drawn_[i]) continue;
      const TensorBox& box = panel_.boxes[i];
      PixelRect r = rects_[i];
      // A buffer smaller than a pixel still shows as one.
      r.w = std::max(r.w, kMinTensorPixels);
      if (r.h < kMinTensorPixels) {
        r.y -= kMinTensorPixels - r.h;
        r.h = kMinTensorPixels;
      }
      const bool buffer = box.kind == BoxKind::kSharedBuffer;
      const bool big = r.w > 3 && r.h > 3;
      const size_t group_members = box.group >= 0 && static_cast<size_t>(box.group) < members.size()
                                       ? members[box.group]
                                       : 1;
      // In an after panel, moved tensors big enough to show it get a black
      // outline (the buffers keep theirs: they all move, into the front
      // region); elsewhere a white one only separates neighbours. The
      // class marks every moved tensor, for hovering and for scripts.
      const bool outline_moved = box.moved && panel_.after_plan && !buffer && big;
      const char* stroke = outline_moved ? kMovedStroke : buffer ? kSharedStroke : "#ffffff";
      const char* stroke_width = outline_moved ? "1.2" : big ? "0.6" : "0";
      svg_.Open("rect", {{"class", ClassOf(box)},
                         {"x", SvgNumber(r.x)},
                         {"y", SvgNumber(r.y)},
                         {"width", SvgNumber(r.w)},
                         {"height", SvgNumber(r.h)},
                         {"fill", FillOf(box)},
                         {"stroke", stroke},
                         {"stroke-width", stroke_width}});
      if (options_.tooltips) {
        svg_.Element("title", {},
                     TensorTooltip(box, panel_.after_plan, row_.instruction_count, group_members));
      }
      svg_.Close("rect");
      ++(place_.zoom ? stats_.zoom_tensor_rects : stats_.tensor_rects);
    }
  }

  void DrawDensity(const PixelDensity& density) {
    if (!place_.zoom) stats_.aggregated_tensors += density.added();
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
      svg_.Empty("rect", {{"x", SvgNumber(frame_.left + run.x)},
                          {"y", SvgNumber(frame_.top + run.y)},
                          {"width", SvgNumber(run.width)},
                          {"height", SvgNumber(run.height)},
                          {"fill-opacity", SvgNumber(opacity)}});
      ++stats_.aggregate_rects;
    }
    svg_.Close("g");
  }

  void DrawGroups() {
    for (const GroupOutline& g : panel_.groups) {
      if (place_.zoom && (g.end <= frame_.bytes.low || g.offset >= frame_.bytes.high)) continue;
      PixelRect r = RectOf(frame_, g.offset, g.end, g.live);
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
                         "block): offset " + cli::Grouped(g.offset) + ", " +
                         cli::Grouped(g.end - g.offset) + " bytes, " +
                         LiveRangeText(g.live, frame_.instructions));
      }
      svg_.Close("rect");
    }
  }

  /// In a full panel: the bytes the zoom panel below draws larger.
  void DrawZoomWindow(const ByteWindow& window) {
    PixelRect r = RectOf(frame_, window.low, window.high, {0, 0});
    if (r.h < 2) {
      r.y -= (2 - r.h) / 2;
      r.h = 2;
    }
    svg_.Empty("rect", {{"class", "zoom-window"},
                        {"x", SvgNumber(frame_.left + 1)},
                        {"y", SvgNumber(r.y)},
                        {"width", SvgNumber(kPlotWidth - 2)},
                        {"height", SvgNumber(r.h)},
                        {"fill", "none"},
                        {"stroke", kZoomStroke},
                        {"stroke-width", "1.5"}});
  }

  void LabelZoomWindow(const ByteWindow& window) {
    const std::string text = "zoomed below: these " + ShortBytes(window.size());
    const double y = frame_.Y(window.high);
    const double y_low = frame_.Y(window.low);
    // Centred above the window, else below it, a line further off each.
    const double x = frame_.left + (kPlotWidth - TextWidth(text, kLevelFont)) / 2;
    labels_.Write(
        text, kZoomStroke, "zoom-label",
        {{x, y - 3, false}, {x, y_low + 11, false}, {x, y - 14, false}, {x, y_low + 22, false}},
        kLevelFont);
  }

  void DrawLevelLines() {
    // Most important first: the placer gives the first ones the best spots.
    if (row_.arena_limit > 0) {
      DrawLevelLine(row_.arena_limit, "--arena-limit " + ShortBytes(row_.arena_limit), kLimitStroke,
                    "8 3", "limit", /*right=*/false, /*below=*/false);
    }
    if (panel_.front_size > 0) {
      // Its edge on top of the buffers, which usually hide the region.
      DrawLevelLine(panel_.front_size, "front region " + ShortBytes(panel_.front_size),
                    kFrontStroke, "6 3", "front-edge", /*right=*/true, /*below=*/true);
    }
    DrawLevelLine(panel_.arena_size, "arena " + ShortBytes(panel_.arena_size), "#222222", "none",
                  "arena-size", /*right=*/false, /*below=*/false);
    if (row_.lower_bound > 0) {
      DrawLevelLine(row_.lower_bound, "lower bound " + ShortBytes(row_.lower_bound), kBoundStroke,
                    "5 3", "bound", /*right=*/true, /*below=*/false);
    }
  }

  /// A horizontal line at `bytes` across the plot area (when the window
  /// shows it), labelled where the placer finds room near it.
  void DrawLevelLine(uint64_t bytes, const std::string& label, const char* colour, const char* dash,
                     const char* css_class, bool right, bool below) {
    if (!frame_.Shows(bytes)) return;
    const double y = frame_.Y(bytes);
    svg_.Empty("line", {{"class", css_class},
                        {"x1", SvgNumber(frame_.left)},
                        {"y1", SvgNumber(y)},
                        {"x2", SvgNumber(frame_.left + kPlotWidth)},
                        {"y2", SvgNumber(y)},
                        {"stroke", colour},
                        {"stroke-width", "1.5"},
                        {"stroke-dasharray", dash}});
    // Just above the line (below it when asked), then further off, then
    // on the other side of the panel.
    const double x = right ? frame_.left + kPlotWidth - 4 : frame_.left + 4;
    const double x_other = right ? frame_.left + 4 : frame_.left + kPlotWidth - 4;
    const double near = below ? y + 11 : y - 3;
    const double far = below ? y - 3 : y + 11;
    std::vector<LabelSpot> spots;
    for (double step : {0.0, 11.0, 22.0}) {
      spots.push_back({x, below ? near + step : near - step, right});
      spots.push_back({x, below ? far - step : far + step, right});
    }
    spots.push_back({x_other, near, !right});
    spots.push_back({x_other, far, !right});
    labels_.Write(label, colour, css_class, spots, kLevelFont);
  }

  void DrawAxes() {
    const double bottom = frame_.top + kPlotHeight;
    const uint64_t step = ByteTickStep(frame_.bytes.size(), 5);
    const uint64_t first = (frame_.bytes.low + step - 1) / step * step;
    for (uint64_t b = first; b <= frame_.bytes.high && b >= first; b += step) {
      const double y = frame_.Y(b);
      svg_.Empty("line", {{"x1", SvgNumber(frame_.left - 4)},
                          {"y1", SvgNumber(y)},
                          {"x2", SvgNumber(frame_.left)},
                          {"y2", SvgNumber(y)},
                          {"stroke", "#666666"}});
      svg_.Element("text",
                   {{"x", SvgNumber(frame_.left - 6)},
                    {"y", SvgNumber(y + 3.5)},
                    {"text-anchor", "end"},
                    {"font-size", "10"},
                    {"fill", "#444444"}},
                   TickBytes(b, step));
    }
    const int64_t span = frame_.instructions;
    const int64_t instruction_step = InstructionTickStep(span, 10);
    for (int64_t i = 0; i <= span; i += instruction_step) {
      const double x = frame_.X(i);
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
                 {{"x", SvgNumber(frame_.left + kPlotWidth / 2)},
                  {"y", SvgNumber(bottom + 29)},
                  {"text-anchor", "middle"},
                  {"fill", "#444444"}},
                 "instruction");
  }

  SvgWriter& svg_;
  const ArenaRow& row_;
  const ArenaPanel& panel_;
  const PanelPlace& place_;
  const SvgLayoutOptions& options_;
  SvgLayoutStats& stats_;
  PanelFrame frame_;
  PanelLabels labels_;
  std::vector<PixelRect> rects_;
  std::vector<bool> drawn_;
};

}  // namespace

void DrawArenaPanel(SvgWriter& svg, const ArenaRow& row, const ArenaPanel& panel,
                    const PanelPlace& place, const SvgLayoutOptions& options,
                    SvgLayoutStats* stats) {
  PanelDrawer(svg, row, panel, place, options, stats).Draw();
}

}  // namespace pteshare::plot
