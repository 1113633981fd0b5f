// LabelPlacer: where `pteshare plot` may write a label without covering
// another one. Each label offers the places it would like, best first; the
// placer takes the first that stays inside the panel and overlaps no label
// already placed, or none (the label is then left out: a missing label
// reads better than two on top of each other). Text is measured with a
// per-character estimate of DejaVu Sans, the font the SVG asks for, erring
// wide.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace pteshare::plot {

/// A label's box in SVG pixels: top-left corner and size.
struct LabelBox {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;

  bool Overlaps(const LabelBox& other) const;
  bool Inside(const LabelBox& bounds) const;
};

/// Width of `text` at `font_size` pixels, a little more than DejaVu Sans
/// draws it (so boxes that do not overlap here do not overlap on screen).
double TextWidth(std::string_view text, double font_size);

/// How much wider DejaVu Sans Bold sets a text than the regular weight
/// (rounded up): measure bold text at font_size * kBoldWidth.
inline constexpr double kBoldWidth = 1.14;

/// Height of a text box at `font_size`: ascent plus descent.
inline double TextHeight(double font_size) { return font_size * 1.2; }

/// The box of `text` drawn at baseline `baseline_y`, starting at `x` (or
/// ending there when `anchor_end`).
LabelBox TextBox(std::string_view text, double font_size, double x, double baseline_y,
                 bool anchor_end);

class LabelPlacer {
 public:
  /// Labels must stay inside `bounds`.
  explicit LabelPlacer(const LabelBox& bounds) : bounds_(bounds) {}

  /// The first candidate inside the bounds that overlaps no placed label;
  /// it is then placed. None when every candidate collides.
  std::optional<size_t> Place(const std::vector<LabelBox>& candidates);

  const std::vector<LabelBox>& placed() const { return placed_; }

 private:
  LabelBox bounds_;
  std::vector<LabelBox> placed_;
};

}  // namespace pteshare::plot
