#include "tools/plot/pixel_density.h"

#include <algorithm>
#include <cmath>

namespace pteshare::plot {

PixelDensity::PixelDensity(double width, double height, double cell)
    : cell_(cell),
      columns_(static_cast<size_t>(std::ceil(std::max(width, 0.0) / cell))),
      rows_(static_cast<size_t>(std::ceil(std::max(height, 0.0) / cell))),
      coverage_(columns_ * rows_, 0.0) {}

void PixelDensity::Add(double x, double y, double w, double h) {
  ++added_;
  const double x1 = std::min(x + w, static_cast<double>(columns_) * cell_);
  const double y1 = std::min(y + h, static_cast<double>(rows_) * cell_);
  x = std::max(x, 0.0);
  y = std::max(y, 0.0);
  if (x1 <= x || y1 <= y) return;
  const size_t c0 = static_cast<size_t>(x / cell_);
  const size_t r0 = static_cast<size_t>(y / cell_);
  const size_t c1 = std::min(columns_ - 1, static_cast<size_t>((x1 - 1e-9) / cell_));
  const size_t r1 = std::min(rows_ - 1, static_cast<size_t>((y1 - 1e-9) / cell_));
  const double cell_area = cell_ * cell_;
  for (size_t r = r0; r <= r1; ++r) {
    const double top = static_cast<double>(r) * cell_;
    const double dy = std::min(y1, top + cell_) - std::max(y, top);
    for (size_t c = c0; c <= c1; ++c) {
      const double left = static_cast<double>(c) * cell_;
      const double dx = std::min(x1, left + cell_) - std::max(x, left);
      if (dx > 0 && dy > 0) coverage_[r * columns_ + c] += dx * dy / cell_area;
    }
  }
}

std::vector<DensityRun> PixelDensity::Runs(int levels) const {
  std::vector<DensityRun> runs;
  auto level_of = [&](double coverage) {
    if (coverage <= 0) return 0;
    return std::clamp(static_cast<int>(std::ceil(coverage * levels)), 1, levels);
  };
  for (size_t r = 0; r < rows_; ++r) {
    size_t c = 0;
    while (c < columns_) {
      const int level = level_of(coverage_[r * columns_ + c]);
      size_t end = c + 1;
      while (end < columns_ && level_of(coverage_[r * columns_ + end]) == level) ++end;
      if (level > 0) {
        runs.push_back(DensityRun{static_cast<double>(c) * cell_, static_cast<double>(r) * cell_,
                                  static_cast<double>(end - c) * cell_, cell_, level});
      }
      c = end;
    }
  }
  return runs;
}

}  // namespace pteshare::plot
