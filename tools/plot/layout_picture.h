// LayoutPicture: what `pteshare plot` draws, in program terms and before any
// pixel. Per method and arena, every planned tensor is a box in instruction
// time x arena bytes, before the plan and, when there is a plan, after it.
// Kept apart from the SVG so that the drawing only has to draw, and so that
// the facts (which tensors, which live ranges, which groups) are decided in
// one place.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rewriter/plan/lifetimes.h"
#include "rewriter/plan/planner.h"
#include "rewriter/program/program_view.h"
#include "tools/plot/first_writer.h"

namespace pteshare::plot {

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
  /// "FLOAT[1,8,128,64]": dtype and sizes (TensorValue::Shape()).
  std::string shape;
  /// What puts its bytes there first (first_writer.h).
  FirstWrite first_write;
  BoxKind kind = BoxKind::kTensor;
  Placement placement;
  /// Where it was before the plan (equal to `placement` in a before panel).
  Placement input_placement;
  LiveRange live;
  /// Its alias group's index in the method's MethodLifetimes: members of one
  /// group share a colour, in the before and the after panel alike.
  int32_t group = -1;
  /// Whether the plan gives it another place (false without a plan).
  bool moved = false;
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
  /// Bytes no plan of these alias groups can go below (rewriter/plan/lifetimes.h).
  uint64_t lower_bound = 0;
  /// The --arena-limit asked for this arena, or 0 for none.
  uint64_t arena_limit = 0;
  ArenaPanel before;
  std::optional<ArenaPanel> after;
};

/// A method with no planned tensor, so no panel: what it has instead.
struct UnplannedMethod {
  std::string name;
  /// Backend id of each of its delegates ("QnnBackend"), in program order.
  std::vector<std::string> delegates;
  uint32_t instructions = 0;
};

/// Whether a plan's "after" is drawn: not when the plan missed an
/// --arena-limit (there is no plan to show, only the input it could not
/// fit), nor when it changes nothing (after would repeat before).
enum class PlanPanels { kBeforeAndAfter, kBeforeOnly };

/// What a plan does to the methods drawn, for the picture's caption.
struct PlanSummary {
  /// False when there is no plan (the picture then says `not_planned`).
  bool planned = false;
  /// Some drawn tensor gets another offset or some drawn arena another size.
  bool changes = false;
  /// Tensors of the drawn methods with a new offset (TensorMove::moved()).
  size_t moved_tensors = 0;
  /// The program's arenas as one set (each memory_id as large as its
  /// largest method), summed, before and after the plan: `plan`'s "one
  /// set" total, whichever methods are drawn.
  uint64_t arena_bytes_before = 0;
  uint64_t arena_bytes_after = 0;
  /// The plan shares state (it has front regions or state arenas): the
  /// input then needs a set of arenas per method, this many bytes.
  bool shares_state = false;
  uint64_t separate_bytes_before = 0;
  /// Why there is no plan (the planner refused the program), or empty.
  std::string not_planned;
};

/// A method's mutable buffers as `pteshare inspect` lists them
/// (TensorValue::is_mutable_buffer()): how many and their bytes.
struct MethodBuffers {
  std::string method;
  size_t count = 0;
  uint64_t bytes = 0;
};

struct LayoutPicture {
  std::string file;
  /// The file's base name: what the picture is titled.
  std::string title;
  /// The plan's strategy, or empty when there is no plan.
  std::string strategy;
  /// False when the plan failed its verifier (the picture is then a
  /// diagnosis, not a result).
  bool plan_verified = true;
  /// Why no plan fits the --arena-limit values, one line per miss (empty
  /// when there was no miss).
  std::vector<std::string> limit_misses;
  /// What the arenas cost one set vs separate sets (memory_cost.h), one
  /// line each, as `plan` prints them.
  std::vector<std::string> memory_lines;
  /// What the plan does (set by the caller, who knows whether there is one).
  PlanSummary plan_summary;
  /// Every drawn method's mutable buffers, in program order.
  std::vector<MethodBuffers> mutable_buffers;
  std::vector<ArenaRow> rows;
  /// Methods left out for having no planned tensor, in program order.
  std::vector<UnplannedMethod> unplanned;

  bool has_plan() const { return !strategy.empty(); }
};

/// The picture of `view`: every method, or only `only_method` when it is not
/// empty (the caller checks that it exists). `plan` may be null; with one,
/// its shared buffers are marked, and with kBeforeAndAfter its placements
/// drawn. Arenas with no size and no tensor are left out; methods with no
/// arena drawn are listed in `unplanned`.
LayoutPicture BuildLayoutPicture(const std::string& file, const ProgramView& view,
                                 const PlanResult* plan, PlanPanels panels,
                                 const std::string& only_method);

/// What `plan` does to `only_method` (every method when empty), and what
/// the program's arenas cost before and after it.
PlanSummary SummarizePlan(const Plan& plan, const std::string& only_method);

/// Marks each row's --arena-limit (memory_id -> bytes) on the picture.
void MarkArenaLimits(const std::map<uint32_t, uint64_t>& limits, LayoutPicture* picture);

}  // namespace pteshare::plot
