#include "tools/plot/layout_picture.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "rewriter/plan/memory_cost.h"
#include "tools/report/numbers.h"

namespace pteshare::plot {
namespace {

/// Whether `value_index` of method `method_index` is one of the chosen
/// shared buffers.
bool IsShared(const PlanResult* plan, uint32_t method_index, uint32_t value_index) {
  if (plan == nullptr) return false;
  for (const SharedBuffer& b : plan->shared.buffers) {
    if (method_index < b.value_in_method.size() && b.value_in_method[method_index] == value_index) {
      return true;
    }
  }
  return false;
}

BoxKind KindOf(const TensorValue& tensor, bool shared) {
  if (shared) return BoxKind::kSharedBuffer;
  if (tensor.is_mutable_buffer()) return BoxKind::kMutableBuffer;
  return BoxKind::kTensor;
}

/// Outlines of the groups with two or more members, from the boxes' own
/// placements (so the after panel outlines the moved group).
std::vector<GroupOutline> OutlineGroups(const std::vector<TensorBox>& boxes) {
  std::map<int32_t, GroupOutline> by_group;
  for (const TensorBox& box : boxes) {
    if (box.group < 0) continue;
    auto [it, inserted] = by_group.try_emplace(box.group);
    GroupOutline& g = it->second;
    if (inserted) {
      g.group = box.group;
      g.offset = box.placement.offset;
      g.end = box.placement.end();
      g.live = box.live;
    } else {
      g.offset = std::min(g.offset, box.placement.offset);
      g.end = std::max(g.end, box.placement.end());
      g.live.Cover(box.live);
    }
    ++g.members;
  }
  std::vector<GroupOutline> outlines;
  for (const auto& [group, outline] : by_group) {
    if (outline.members >= 2) outlines.push_back(outline);
  }
  return outlines;
}

/// After-plan placement of every planned tensor of a method, by value index.
std::map<uint32_t, Placement> PlacementsAfter(const MethodPlan& method) {
  std::map<uint32_t, Placement> after;
  for (const TensorMove& move : method.moves) after[move.value_index] = move.after;
  return after;
}

/// Whether `method` is drawn.
bool Drawn(const std::string& method, const std::string& only_method) {
  return only_method.empty() || method == only_method;
}

/// The methods' mutable buffers as `pteshare inspect` lists them.
MethodBuffers BuffersOf(const MethodView& method) {
  MethodBuffers buffers{method.name};
  for (const TensorValue& t : method.tensors) {
    if (!t.is_mutable_buffer()) continue;
    ++buffers.count;
    buffers.bytes += t.nbytes;
  }
  return buffers;
}

/// The backend id of every delegate of `method` ("?" where it has none).
std::vector<std::string> DelegateIds(const MethodView& method) {
  std::vector<std::string> ids;
  for (const std::optional<std::string_view>& id : method.delegate_ids) {
    ids.push_back(id ? std::string(*id) : "?");
  }
  return ids;
}

}  // namespace

LayoutPicture BuildLayoutPicture(const std::string& file, const ProgramView& view,
                                 const PlanResult* plan, PlanPanels panels,
                                 const std::string& only_method) {
  LayoutPicture picture;
  picture.file = file;
  picture.title = std::filesystem::path(file).filename().string();
  if (picture.title.empty()) picture.title = file;
  if (plan != nullptr && panels == PlanPanels::kBeforeAndAfter) {
    picture.strategy = StrategyName(plan->plan.strategy);
  }

  for (const MethodView& method : view.methods) {
    if (!Drawn(method.name, only_method)) continue;
    picture.mutable_buffers.push_back(BuffersOf(method));
    const std::vector<FirstWrite> writers = FirstWriters(method);
    // Shared buffers are live throughout, as the planner and verifier see them.
    const std::vector<uint32_t> always_live =
        plan != nullptr ? SharedValues(method, plan->shared) : std::vector<uint32_t>{};
    const MethodLifetimes lifetimes = ComputeLifetimes(method, always_live);
    const MethodPlan* method_plan = picture.has_plan() && method.index < plan->plan.methods.size()
                                        ? &plan->plan.methods[method.index]
                                        : nullptr;
    const size_t rows_before = picture.rows.size();
    const std::map<uint32_t, Placement> after =
        method_plan != nullptr ? PlacementsAfter(*method_plan) : std::map<uint32_t, Placement>{};

    for (const Arena& arena : method.arenas) {
      ArenaRow row;
      row.method = method.name;
      row.memory_id = arena.memory_id;
      row.device = cli::DeviceName(static_cast<int8_t>(arena.device), arena.device_index);
      row.instruction_count = lifetimes.instruction_count;
      const size_t arena_slot = arena.memory_id - 1;
      row.lower_bound =
          arena_slot < lifetimes.lower_bound.size() ? lifetimes.lower_bound[arena_slot] : 0;
      row.before.arena_size = arena.size;

      for (const TensorValue& tensor : method.tensors) {
        // Zero-byte tensors take no memory and get no live range.
        if (!tensor.planned || tensor.nbytes == 0) continue;
        if (tensor.placement.memory_id != arena.memory_id) continue;
        if (tensor.value_index >= lifetimes.group_of.size()) continue;
        TensorBox box;
        box.value_index = tensor.value_index;
        box.name = std::string(tensor.name);
        box.shape = tensor.Shape();
        box.first_write = writers[tensor.value_index];
        box.kind = KindOf(tensor, IsShared(plan, method.index, tensor.value_index));
        box.placement = tensor.placement;
        box.input_placement = tensor.placement;
        box.live = lifetimes.live[tensor.value_index];
        box.group = lifetimes.group_of[tensor.value_index];
        row.before.boxes.push_back(std::move(box));
      }
      row.before.groups = OutlineGroups(row.before.boxes);

      if (method_plan != nullptr) {
        ArenaPanel panel;
        panel.after_plan = true;
        panel.arena_size = arena_slot < method_plan->arena_sizes_after.size()
                               ? method_plan->arena_sizes_after[arena_slot]
                               : arena.size;
        if (const FrontRegion* front = plan->plan.front(arena.memory_id)) {
          panel.front_size = front->size;
        }
        for (const TensorBox& before : row.before.boxes) {
          TensorBox box = before;
          auto it = after.find(before.value_index);
          if (it != after.end()) box.placement = it->second;
          // As TensorMove::moved() counts it (a plan keeps every arena).
          box.moved = box.placement.offset != box.input_placement.offset;
          panel.boxes.push_back(std::move(box));
        }
        // The before panel marks the same tensors: the ones in the way.
        for (size_t i = 0; i < panel.boxes.size(); ++i) {
          row.before.boxes[i].moved = panel.boxes[i].moved;
        }
        panel.groups = OutlineGroups(panel.boxes);
        row.after = std::move(panel);
      }

      const bool empty = row.before.arena_size == 0 && row.before.boxes.empty() &&
                         (!row.after || row.after->arena_size == 0);
      if (!empty) picture.rows.push_back(std::move(row));
    }
    if (picture.rows.size() == rows_before) {
      picture.unplanned.push_back(
          UnplannedMethod{method.name, DelegateIds(method), method.instruction_count});
    }
  }
  return picture;
}

PlanSummary SummarizePlan(const Plan& plan, const std::string& only_method) {
  PlanSummary summary;
  summary.planned = true;
  for (const MethodPlan& m : plan.methods) {
    if (!Drawn(m.name, only_method)) continue;
    summary.moved_tensors += m.moved_count();
    summary.changes = summary.changes || m.arena_sizes_after != m.arena_sizes_before;
  }
  summary.changes = summary.changes || summary.moved_tensors > 0;
  summary.shares_state = !plan.fronts.empty();
  // What the arenas cost is the program's, as `plan` prints it, whatever
  // is drawn.
  const ArenaCost total = ComputeMemoryCost(plan).total;
  summary.arena_bytes_before = total.one_set_before;
  summary.arena_bytes_after = total.one_set_after;
  summary.separate_bytes_before = total.separate_before;
  return summary;
}

void MarkArenaLimits(const std::map<uint32_t, uint64_t>& limits, LayoutPicture* picture) {
  for (ArenaRow& row : picture->rows) {
    auto it = limits.find(row.memory_id);
    if (it != limits.end()) row.arena_limit = it->second;
  }
}

}  // namespace pteshare::plot
