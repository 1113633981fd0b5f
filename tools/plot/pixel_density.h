// PixelDensity: how `pteshare plot` stays readable and small for programs
// with tens of thousands of tensors. Tensors smaller than a pixel are not
// drawn one by one; their areas are summed into a coarse grid of cells and
// the grid is drawn as a few shaded runs, darker where more of a cell is
// covered. The element count is then bounded by the grid, not the program.
#pragma once

#include <cstddef>
#include <vector>

namespace pteshare::plot {

/// A horizontal run of cells with the same shade, in the grid's pixel
/// coordinates (origin top-left).
struct DensityRun {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;
  /// 1..levels: how much of the run's cells is covered, rounded up (any
  /// coverage at all shows as level 1).
  int level = 0;
};

class PixelDensity {
 public:
  /// A grid over [0, width) x [0, height) pixels of square cells of side
  /// `cell` pixels.
  PixelDensity(double width, double height, double cell);

  /// Adds the rectangle [x, x + w) x [y, y + h), clipped to the grid.
  void Add(double x, double y, double w, double h);
  /// Number of Add calls (the tensors aggregated).
  size_t added() const { return added_; }

  /// Covered cells as runs, row by row, left to right; deterministic.
  std::vector<DensityRun> Runs(int levels) const;

 private:
  double cell_;
  size_t columns_;
  size_t rows_;
  /// Covered fraction of each cell (may exceed 1 where tensors overlap in
  /// time, such as aliases), row-major.
  std::vector<double> coverage_;
  size_t added_ = 0;
};

}  // namespace pteshare::plot
