// The colours of `pteshare plot`, in one place so that the legend and the
// panels cannot disagree.
#pragma once

namespace pteshare::plot {

// Fills by alias group: calm blues, greens and browns, so that the red of
// shared buffers, the orange of other mutable buffers and the yellow of the
// front region stand out.
inline constexpr const char* kGroupFills[] = {"#4e79a7", "#a0cbe8", "#59a14f", "#8cd17d",
                                              "#76b7b2", "#b3c6d9", "#9d7660", "#bab0ac"};
inline constexpr const char* kSharedFill = "#e15759";
inline constexpr const char* kSharedStroke = "#8b1a1c";
inline constexpr const char* kMutableFill = "#f28e2b";
inline constexpr const char* kFrontFill = "#f6d55c";
inline constexpr const char* kFrontStroke = "#a8861a";
inline constexpr const char* kDensityFill = "#30343a";
inline constexpr const char* kBoundStroke = "#c0392b";
// Black outlines tensors the plan moves; purple marks --arena-limit (and
// the bytes over it), teal the window a zoom panel enlarges.
inline constexpr const char* kMovedStroke = "#000000";
inline constexpr const char* kLimitStroke = "#7b2d9b";
inline constexpr const char* kZoomStroke = "#00897b";
inline constexpr const char* kFailureColour = "#b03a2e";

}  // namespace pteshare::plot
