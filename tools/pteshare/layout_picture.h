// LayoutPicture: what `pteshare plot` draws, in program terms and before any
// pixel. Per method and arena, every planned tensor is a box in instruction
// time x arena bytes, before the plan and, when there is a plan, after it.
// Kept apart from the SVG so that the drawing only has to draw, and so that
// the facts (which tensors, which live ranges, which groups) are decided in
// one place.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rewriter/lifetimes.h"
#include "rewriter/planner.h"
#include "rewriter/program_view.h"

namespace pteshare::cli {

enum class BoxKind {
  kTensor,         // an activation or any other planned tensor
  kMutableBuffer,  // state that survives executions, not chosen for sharing
  kSharedBuffer,   // chosen for sharing: one placement in every method
};

/// One planned, non-empty tensor: bytes [placement.offset, placement.end())
/// over the instructions [live.first, live.last].
struct TensorBox {
  uint32_t value_index = 0;
  std::string name;  // fully qualified name, or empty
  BoxKind kind = BoxKind::kTensor;
  Placement placement;
  /// Where it was before the plan (equal to `placement` in a before panel).
  Placement input_placement;
  LiveRange live;
  /// Its alias group's index in the method's MethodLifetimes: members of one
  /// group share a colour, in the before and the after panel alike.
  int32_t group = -1;
};

/// An alias group of two or more tensors, outlined around its members: its
/// bytes [offset, end) in this panel over the union of the members' ranges.
struct GroupOutline {
  int32_t group = -1;
  uint64_t offset = 0;
  uint64_t end = 0;
  LiveRange live;
  size_t members = 0;
};

/// One arena of one method, before or after the plan.
struct ArenaPanel {
  bool after_plan = false;
  uint64_t arena_size = 0;
  /// After a plan: [0, front_size) is the front region (0: none).
  uint64_t front_size = 0;
  /// In value-index order.
  std::vector<TensorBox> boxes;
  std::vector<GroupOutline> groups;
};

/// One arena of one method: the before panel, and the after panel when a
/// plan was given. Both are drawn on the same scale.
struct ArenaRow {
  std::string method;
  uint32_t memory_id = 0;
  std::string device;  // "CPU", "CUDA:0"
  /// Time runs over instructions [0, instruction_count).
  int64_t instruction_count = 0;
  /// Bytes no plan of these alias groups can go below (rewriter/lifetimes.h).
  uint64_t lower_bound = 0;
  ArenaPanel before;
  std::optional<ArenaPanel> after;
};

struct LayoutPicture {
  std::string file;
  /// The plan's strategy, or empty when there is no plan.
  std::string strategy;
  /// False when the plan failed its verifier (the picture is then a
  /// diagnosis, not a result).
  bool plan_verified = true;
  std::vector<ArenaRow> rows;
};

/// The picture of `view`: every method, or only `only_method` when it is not
/// empty (the caller checks that it exists). `plan` may be null. Arenas
/// with no size and no tensor are left out.
LayoutPicture BuildLayoutPicture(const std::string& file, const ProgramView& view,
                                 const PlanInput* plan, const std::string& only_method);

}  // namespace pteshare::cli
