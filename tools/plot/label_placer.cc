#include "tools/plot/label_placer.h"

#include <cctype>

namespace pteshare::plot {
namespace {

/// Advance of one character in em, rounded up from DejaVu Sans's metrics
/// (digits 0.636, most lower case 0.55 to 0.63, upper case up to 0.79).
double Advance(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  if (c == ' ') return 0.32;
  if (c == 'i' || c == 'j' || c == 'l' || c == '.' || c == ',' || c == ':' || c == ';' ||
      c == '\'' || c == '|' || c == '!') {
    return 0.34;
  }
  if (c == 'f' || c == 't' || c == 'r' || c == '(' || c == ')' || c == '[' || c == ']' ||
      c == '-') {
    return 0.45;
  }
  if (c == 'm' || c == 'w' || c == 'M' || c == 'W') return 0.99;
  if (std::isupper(u)) return 0.76;
  if (u >= 0x80) return 0.5;  // part of a UTF-8 sequence; a few bytes draw one glyph
  return 0.65;
}

}  // namespace

bool LabelBox::Overlaps(const LabelBox& other) const {
  return x < other.x + other.width && other.x < x + width && y < other.y + other.height &&
         other.y < y + height;
}

bool LabelBox::Inside(const LabelBox& bounds) const {
  return x >= bounds.x && y >= bounds.y && x + width <= bounds.x + bounds.width &&
         y + height <= bounds.y + bounds.height;
}

double TextWidth(std::string_view text, double font_size) {
  double em = 0;
  for (char c : text) em += Advance(c);
  return em * font_size;
}

LabelBox TextBox(std::string_view text, double font_size, double x, double baseline_y,
                 bool anchor_end) {
  LabelBox box;
  box.width = TextWidth(text, font_size);
  box.height = TextHeight(font_size);
  box.x = anchor_end ? x - box.width : x;
  // The ascent is about 0.93 em above the baseline, the descent 0.24 below.
  box.y = baseline_y - font_size * 0.95;
  return box;
}

std::optional<size_t> LabelPlacer::Place(const std::vector<LabelBox>& candidates) {
  for (size_t i = 0; i < candidates.size(); ++i) {
    const LabelBox& box = candidates[i];
    if (!box.Inside(bounds_)) continue;
    bool free = true;
    for (const LabelBox& used : placed_) {
      if (box.Overlaps(used)) {
        free = false;
        break;
      }
    }
    if (!free) continue;
    placed_.push_back(box);
    return i;
  }
  return std::nullopt;
}

}  // namespace pteshare::plot
