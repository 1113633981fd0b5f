#include "tools/plot/svg_layout.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "tools/plot/label_placer.h"
#include "tools/plot/plot_labels.h"
#include "tools/plot/plot_palette.h"
#include "tools/plot/svg_legend.h"
#include "tools/plot/svg_panel.h"
#include "tools/plot/svg_writer.h"

namespace pteshare::plot {
namespace {

// A panel whose ordinary tensors span at most this share of its byte scale
// draws them a few pixels tall (the rest is buffers): it gets a zoom panel.
constexpr double kZoomWhenSpanBelow = 0.25;
// The zoom window's margin around the tensors, as a share of their span.
constexpr double kZoomMargin = 0.04;

constexpr double kMessageFont = 13;

uint64_t HighestEnd(const ArenaPanel& panel) {
  uint64_t end = panel.front_size;
  for (const TensorBox& box : panel.boxes) end = std::max(end, box.placement.end());
  return end;
}

/// The bytes the panel's ordinary tensors take, or none: not the buffers,
/// nor the tensors aliasing them (a cache update's output is the cache).
std::optional<ByteWindow> OrdinarySpan(const ArenaPanel& panel) {
  std::set<int32_t> buffer_groups;
  for (const TensorBox& box : panel.boxes) {
    if (box.kind != BoxKind::kTensor && box.group >= 0) buffer_groups.insert(box.group);
  }
  std::optional<ByteWindow> span;
  for (const TensorBox& box : panel.boxes) {
    if (box.kind != BoxKind::kTensor || buffer_groups.count(box.group) > 0) continue;
    if (!span) span = ByteWindow{box.placement.offset, box.placement.end()};
    span->low = std::min(span->low, box.placement.offset);
    span->high = std::max(span->high, box.placement.end());
  }
  return span;
}

/// How a row is drawn: its byte scale, and its zoom windows when its
/// ordinary tensors would be slivers.
struct RowPlan {
  uint64_t scale = 1;
  std::optional<ByteWindow> zoom_before;
  std::optional<ByteWindow> zoom_after;
  uint64_t magnification = 1;

  bool zoomed() const { return zoom_before || zoom_after; }
};

RowPlan PlanRow(const ArenaRow& row) {
  RowPlan plan;
  // Before and after share one byte scale, so that growth shows.
  plan.scale =
      std::max({row.before.arena_size, HighestEnd(row.before), row.arena_limit, uint64_t{1}});
  if (row.after) plan.scale = std::max({plan.scale, row.after->arena_size, HighestEnd(*row.after)});
  const std::optional<ByteWindow> before = OrdinarySpan(row.before);
  const std::optional<ByteWindow> after =
      row.after ? OrdinarySpan(*row.after) : std::optional<ByteWindow>{};
  const double limit = kZoomWhenSpanBelow * static_cast<double>(plan.scale);
  auto small = [&](const std::optional<ByteWindow>& span) {
    return span && static_cast<double>(span->size()) <= limit;
  };
  // Only the panels whose tensors are slivers get a zoom; when both do,
  // they share one span, so that before and after stay on one scale.
  const std::optional<ByteWindow> zoom_before = small(before) ? before : std::nullopt;
  const std::optional<ByteWindow> zoom_after = small(after) ? after : std::nullopt;
  if (!zoom_before && !zoom_after) return plan;
  uint64_t span =
      std::max(zoom_before ? zoom_before->size() : 0, zoom_after ? zoom_after->size() : 0);
  const uint64_t margin =
      std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(span) * kZoomMargin));
  span += 2 * margin;
  auto window = [&](const std::optional<ByteWindow>& tensors) -> std::optional<ByteWindow> {
    if (!tensors) return std::nullopt;
    const uint64_t low = tensors->low > margin ? tensors->low - margin : 0;
    return ByteWindow{low, low + span};
  };
  plan.zoom_before = window(zoom_before);
  plan.zoom_after = window(zoom_after);
  plan.magnification = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::llround(static_cast<double>(plan.scale) / span)));
  return plan;
}

/// "a, b, c": the names of `methods`.
std::string NameList(const std::vector<const UnplannedMethod*>& methods) {
  std::string names;
  for (const UnplannedMethod* m : methods) names += (names.empty() ? "" : ", ") + m->name;
  return names;
}

/// What the methods without a panel have instead: one line for those whose
/// work is inside delegates (by backend), one for those with no
/// instruction (a getter returning a stored value), one for the rest.
std::vector<std::string> UnplannedLines(const std::vector<UnplannedMethod>& unplanned) {
  std::vector<std::pair<std::string, std::vector<const UnplannedMethod*>>> by_backends;
  std::vector<const UnplannedMethod*> getters;
  std::vector<const UnplannedMethod*> others;
  for (const UnplannedMethod& m : unplanned) {
    if (m.delegates.empty()) {
      (m.instructions == 0 ? getters : others).push_back(&m);
      continue;
    }
    std::vector<std::string> backends = m.delegates;
    std::sort(backends.begin(), backends.end());
    backends.erase(std::unique(backends.begin(), backends.end()), backends.end());
    std::string key;
    for (const std::string& b : backends) key += (key.empty() ? "" : ", ") + b;
    auto it = std::find_if(by_backends.begin(), by_backends.end(),
                           [&](const auto& entry) { return entry.first == key; });
    if (it == by_backends.end()) it = by_backends.insert(by_backends.end(), {key, {}});
    it->second.push_back(&m);
  }
  auto count = [](const std::vector<const UnplannedMethod*>& methods) {
    return methods.size() < 3 ? std::string() : " (" + std::to_string(methods.size()) + " methods)";
  };
  std::vector<std::string> lines;
  for (const auto& [backends, methods] : by_backends) {
    lines.push_back(NameList(methods) + count(methods) +
                    ": no tensor is memory-planned; the work runs inside the " + backends +
                    " delegate, which plans its own memory.");
  }
  if (!getters.empty()) {
    lines.push_back(NameList(getters) + count(getters) +
                    ": no instruction and no planned tensor; each returns a value stored in the "
                    "program.");
  }
  if (!others.empty()) {
    lines.push_back(NameList(others) + count(others) + ": no planned tensor and no delegate.");
  }
  return lines;
}

class LayoutRenderer {
 public:
  LayoutRenderer(const LayoutPicture& picture, const SvgLayoutOptions& options)
      : picture_(picture), options_(options) {
    for (const ArenaRow& row : picture_.rows) row_plans_.push_back(PlanRow(row));
  }

  std::string Render(SvgLayoutStats* stats) {
    const double width = kPanelWidth * (picture_.has_plan() ? 2 : 1);
    const PlotHeader header = MakeHeader();
    const double header_height = PlotHeaderHeight(header, width);
    double height = header_height;
    for (const RowPlan& plan : row_plans_) height += kPanelHeight * (plan.zoomed() ? 2 : 1);
    const std::vector<std::string> message = EmptyMessage(width);
    if (picture_.rows.empty()) height += 40 + 18 * static_cast<double>(message.size());

    svg_.Open("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
                      {"width", SvgNumber(width)},
                      {"height", SvgNumber(height)},
                      {"viewBox", "0 0 " + SvgNumber(width) + " " + SvgNumber(height)},
                      {"font-family", "DejaVu Sans, Helvetica, Arial, sans-serif"},
                      {"font-size", "11"}});
    svg_.Raw("\n");
    svg_.Element("title", {}, "pteshare plot: " + picture_.title);
    svg_.Empty("rect",
               {{"width", SvgNumber(width)}, {"height", SvgNumber(height)}, {"fill", "#ffffff"}});
    DrawPlotHeader(svg_, header, width);
    if (picture_.rows.empty()) DrawEmptyMessage(message, header_height, width);

    double top = header_height;
    size_t panel_id = 0;
    for (size_t i = 0; i < picture_.rows.size(); ++i) {
      const ArenaRow& row = picture_.rows[i];
      const RowPlan& plan = row_plans_[i];
      DrawRow(row, row.before, plan, plan.zoom_before, 0, top, &panel_id);
      if (row.after) DrawRow(row, *row.after, plan, plan.zoom_after, kPanelWidth, top, &panel_id);
      top += kPanelHeight * (plan.zoomed() ? 2 : 1);
    }
    svg_.Close("svg");
    if (stats != nullptr) *stats = stats_;
    return svg_.str();
  }

 private:
  /// One panel, and its zoom panel under it.
  void DrawRow(const ArenaRow& row, const ArenaPanel& panel, const RowPlan& plan,
               const std::optional<ByteWindow>& zoom, double x, double y, size_t* panel_id) {
    PanelPlace full;
    full.x = x;
    full.y = y;
    full.bytes = ByteWindow{0, plan.scale};
    full.zoomed = zoom;
    full.id = (*panel_id)++;
    DrawArenaPanel(svg_, row, panel, full, options_, &stats_);
    if (!zoom) return;
    PanelPlace zoomed;
    zoomed.x = x;
    zoomed.y = y + kPanelHeight;
    zoomed.bytes = *zoom;
    zoomed.zoom = true;
    zoomed.magnification = plan.magnification;
    zoomed.id = (*panel_id)++;
    DrawArenaPanel(svg_, row, panel, zoomed, options_, &stats_);
  }

  PlotHeader MakeHeader() const {
    PlotHeader header;
    header.has_plan = picture_.has_plan();
    header.legend = !picture_.rows.empty();
    header.has_zoom = std::any_of(row_plans_.begin(), row_plans_.end(),
                                  [](const RowPlan& p) { return p.zoomed(); });
    header.has_limit = std::any_of(picture_.rows.begin(), picture_.rows.end(),
                                   [](const ArenaRow& r) { return r.arena_limit > 0; });
    header.heading = picture_.title + ": memory layout";
    if (header.has_plan) {
      header.heading += " before and after the plan (strategy " + picture_.strategy + ")";
    } else if (picture_.plan_summary.planned && !picture_.plan_summary.changes) {
      header.heading += " (the plan changes nothing)";
    }
    if (const std::string caption = PlanCaption(picture_.plan_summary); !caption.empty()) {
      header.notes.push_back({caption, "#000000", true, "plan-caption"});
    }
    if (!picture_.limit_misses.empty()) {
      header.heading += " of the input: no plan fits --arena-limit";
      for (const std::string& miss : picture_.limit_misses) {
        header.notes.push_back({"no plan fits: " + miss, kFailureColour, true, "failure"});
      }
    }
    if (!picture_.plan_verified) {
      header.heading += " - the plan FAILED verification, shown to diagnose";
    }
    for (const std::string& line : picture_.memory_lines) {
      header.notes.push_back({line, "#333333", false, "memory"});
    }
    if (!picture_.rows.empty()) {
      header.notes.push_back(
          {MutableBufferText(picture_.mutable_buffers), "#333333", false, "mutable-buffers"});
      for (const std::string& line : UnplannedLines(picture_.unplanned)) {
        header.notes.push_back({"not drawn: " + line, "#555555", false, "unplanned"});
      }
    }
    return header;
  }

  /// What a picture with no panel says instead, wrapped to `width`.
  std::vector<std::string> EmptyMessage(double width) {
    if (!picture_.rows.empty()) return {};
    std::vector<std::string> lines = WrapText(
        "Nothing to draw: no method of " + picture_.title + " has a memory-planned tensor.",
        kMessageFont * kBoldWidth, width - 48);
    bold_lines_ = lines.size();
    for (const std::string& line : UnplannedLines(picture_.unplanned)) {
      for (const std::string& part : WrapText(line, kMessageFont, width - 48)) {
        lines.push_back(part);
      }
    }
    return lines;
  }

  void DrawEmptyMessage(const std::vector<std::string>& lines, double top, double width) {
    svg_.Open("g", {{"class", "empty-message"}});
    svg_.Empty("rect", {{"x", "12"},
                        {"y", SvgNumber(top)},
                        {"width", SvgNumber(width - 24)},
                        {"height", SvgNumber(24 + 18 * static_cast<double>(lines.size()))},
                        {"fill", "#f7f7f7"},
                        {"stroke", "#bbbbbb"}});
    for (size_t i = 0; i < lines.size(); ++i) {
      svg_.Element("text",
                   {{"x", "24"},
                    {"y", SvgNumber(top + 24 + 18 * static_cast<double>(i))},
                    {"font-size", SvgNumber(kMessageFont)},
                    {"font-weight", i < bold_lines_ ? "bold" : "normal"}},
                   lines[i]);
    }
    svg_.Close("g");
  }

  const LayoutPicture& picture_;
  const SvgLayoutOptions& options_;
  std::vector<RowPlan> row_plans_;
  /// The empty message's first lines, in bold.
  size_t bold_lines_ = 0;
  SvgWriter svg_;
  SvgLayoutStats stats_;
};

}  // namespace

std::string RenderLayoutSvg(const LayoutPicture& picture, const SvgLayoutOptions& options,
                            SvgLayoutStats* stats) {
  return LayoutRenderer(picture, options).Render(stats);
}

}  // namespace pteshare::plot
