#include "rewriter/plan/planner.h"

#include <algorithm>
#include <map>
#include <optional>

#include "loader_facts.h"

#include "rewriter/base/grouped.h"
#include "rewriter/plan/front_region.h"
#include "rewriter/plan/input_lifetimes.h"
#include "rewriter/plan/lifetimes.h"
#include "rewriter/plan/relocate.h"
#include "rewriter/plan/replan.h"
#include "rewriter/plan/state_arena.h"

namespace pteshare {
namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

// "a, b, c and 61 more": enough names to recognise, short enough to read.
std::string FewNames(const std::vector<std::string>& names) {
  constexpr size_t kShown = 3;
  std::vector<std::string> shown(
      names.begin(), names.begin() + static_cast<ptrdiff_t>(std::min(kShown, names.size())));
  std::string text = JoinNames(shown);
  if (names.size() > kShown) text += " and " + std::to_string(names.size() - kShown) + " more";
  return text;
}

// ExecuTorch's Module(share_memory_arenas=true) gives every method the same
// memory for memory_id 1 and 2 only, any higher one a buffer per method, and
// refuses to share at all when a method has an arena off the CPU. Where a
// state arena falls outside that, say what the loader must do instead.
std::vector<std::string> StateArenaWarnings(const std::vector<FrontRegion>& fronts) {
  std::vector<std::string> warnings;
  for (const FrontRegion& f : fronts) {
    if (!f.state_arena) continue;
    const std::string id = std::to_string(f.memory_id);
    const std::string what = "the state arena " + id + " (" + std::to_string(f.slots.size()) +
                             " shared buffer(s), " + std::to_string(f.size) + " bytes)";
    const std::string instead = "the loader must allocate arena " + id +
                                " once and hand that same span, as memory_id " + id +
                                " of the HierarchicalAllocator, to every method it loads";
    if (f.device != DeviceType::kCpu) {
      warnings.push_back(what + " is on " + DeviceText(f.device, f.device_index) +
                         ": ExecuTorch's Module(share_memory_arenas=true) refuses methods with "
                         "arenas off the CPU, so " +
                         instead);
    } else if (f.memory_id > 2) {
      warnings.push_back(what +
                         ": ExecuTorch's Module(share_memory_arenas=true) shares only "
                         "arenas 1 and 2 and gives arena " +
                         id + " a buffer per method, so " + instead);
    }
  }
  return warnings;
}

// One warning per kind and per set of methods, not one per buffer: a
// 32-layer model has 64 caches that all say the same thing. The arena
// warning is about where the buffers stay (Layout::kFront).
std::vector<std::string> Warnings(const ProgramView& view, const SharedBufferSet& shared,
                                  Layout layout) {
  std::map<std::vector<std::string>, std::vector<std::string>> recopied;  // methods -> buffers
  std::map<uint32_t, std::vector<std::string>> high_arena;                // arena -> buffers
  std::map<uint32_t, std::vector<std::string>> device_arena;              // arena -> buffers
  std::map<uint32_t, std::string> device_of;                              // arena -> "CUDA:0"
  for (const SharedBuffer& b : shared.buffers) {
    if (loader::StateRecopiedOnLoad(b.methods_with_initial_state.size()))
      recopied[b.methods_with_initial_state].push_back(b.name);
    if (layout != Layout::kFront) continue;
    if (loader::ModuleLeavesArenaUnshared(b.memory_id)) high_arena[b.memory_id].push_back(b.name);
    for (const MethodView& method : view.methods) {
      const Arena* arena = b.value_in_method[method.index] ? method.arena(b.memory_id) : nullptr;
      if (arena != nullptr && arena->device != DeviceType::kCpu) {
        device_arena[b.memory_id].push_back(b.name);
        device_of[b.memory_id] = DeviceText(arena->device, arena->device_index);
        break;
      }
    }
  }
  std::vector<std::string> warnings;
  if (!shared.left_out.empty()) {
    // Most likely a name forgotten in --share: say what it costs.
    warnings.push_back(std::to_string(shared.left_out.size()) + " mutable buffer(s) (" +
                       FewNames(shared.left_out) +
                       ") are in several methods but not shared: each method keeps its own "
                       "copy in a slot no other method touches (" +
                       std::to_string(shared.left_out_bytes) +
                       " bytes in all); --share them to share them");
  }
  for (const auto& [methods, names] : recopied) {
    warnings.push_back(std::to_string(names.size()) + " shared buffer(s) (" + FewNames(names) +
                       ") have an initial state in methods " + JoinNames(methods) + ": " +
                       loader::kStateRecopiedOnLoad);
  }
  for (const auto& [memory_id, names] : device_arena) {
    warnings.push_back(std::to_string(names.size()) + " shared buffer(s) (" + FewNames(names) +
                       ") are in arena " + std::to_string(memory_id) + " on " +
                       device_of[memory_id] +
                       ": ExecuTorch's Module(share_memory_arenas=true) refuses methods with "
                       "arenas off the CPU; bind this arena to the same memory in every method "
                       "yourself");
  }
  for (const auto& [memory_id, names] : high_arena) {
    warnings.push_back(std::to_string(names.size()) + " shared buffer(s) (" + FewNames(names) +
                       ") are in arena " + std::to_string(memory_id) + ": " +
                       loader::kModuleSharesArenasOneAndTwo +
                       "; bind this arena to the same memory in every method yourself");
  }
  // Module refuses a method with any arena off the CPU, even where the
  // shared buffers are on the CPU: said once, in every layout.
  if (device_arena.empty() && !shared.buffers.empty()) {
    for (const MethodView& method : view.methods) {
      auto off_cpu = std::find_if(method.arenas.begin(), method.arenas.end(),
                                  [](const Arena& a) { return a.device != DeviceType::kCpu; });
      if (off_cpu == method.arenas.end()) continue;
      warnings.push_back("method " + method.name + " has arena " +
                         std::to_string(off_cpu->memory_id) + " on " +
                         DeviceText(off_cpu->device, off_cpu->device_index) +
                         ": ExecuTorch's Module(share_memory_arenas=true) refuses methods with "
                         "arenas off the CPU, so under it no method would share the buffers; "
                         "bind every arena to the same memory in every method yourself");
      break;
    }
  }
  return warnings;
}

// Which layout arena `i` of a method takes, and whether it fits its limit.
struct ArenaChoice {
  bool replan = false;
  std::optional<std::string> miss;
};

// Whether relocate leaves arena `i` as the input has it: the input has the
// arena (--layout arena adds some), no tensor in it moves and its size stays.
bool RelocateKeepsArena(const MethodPlan& relocated, size_t i) {
  if (i >= relocated.arena_sizes_before.size() ||
      relocated.arena_sizes_after[i] != relocated.arena_sizes_before[i]) {
    return false;
  }
  const uint32_t memory_id = static_cast<uint32_t>(i + 1);
  return std::none_of(relocated.moves.begin(), relocated.moves.end(), [&](const TensorMove& m) {
    return m.before.memory_id == memory_id && (m.moved() || m.after.memory_id != memory_id);
  });
}

ArenaChoice ChooseArena(Strategy strategy, const PlanOptions& options, const MethodPlan& relocated,
                        const ArenaReplan* replanned, const std::string& method, size_t i) {
  const uint64_t r = relocated.arena_sizes_after[i];
  const bool can_replan = strategy != Strategy::kRelocate && replanned && replanned->replanned;
  const uint64_t p = can_replan ? replanned->size : 0;
  ArenaChoice choice;
  // replan takes its own layout at equal size too, except over an arena
  // that already is a plan that good (relocate keeps it as it is): the
  // search may find another layout of the same size from other input
  // offsets, and a second rewrite of its own output must change nothing
  // (I7). best keeps relocate's at equal size anyway.
  const bool replan_on_ties = strategy == Strategy::kReplan && !RelocateKeepsArena(relocated, i);
  choice.replan = can_replan && (replan_on_ties ? p <= r : p < r);
  auto limit = options.arena_limits.find(static_cast<uint32_t>(i + 1));
  if (limit == options.arena_limits.end()) return choice;
  const uint64_t bytes = limit->second;
  if ((choice.replan ? p : r) <= bytes) return choice;
  if (can_replan && p <= bytes) {
    choice.replan = true;
  } else if (r <= bytes) {
    choice.replan = false;
  } else {
    const uint64_t best = can_replan ? std::min(p, r) : r;
    std::string sizes = "relocate " + Grouped(r);
    if (can_replan) sizes += ", replan " + Grouped(p);
    std::string miss = "method " + method + ": arena " + std::to_string(i + 1) + " needs " +
                       Grouped(best) + " bytes (" + sizes + "), " + Grouped(best - bytes) +
                       " over its limit of " + Grouped(bytes);
    if (can_replan && replanned->limit_miss) miss += ": " + *replanned->limit_miss;
    choice.miss = miss;
  }
  return choice;
}

// The method's final plan: per arena, relocate's or replan's placements.
MethodPlan Combine(const PlanOptions& options, const MethodPlan& relocated,
                   const MethodReplan* replanned, const std::vector<uint64_t>& lower_bounds,
                   Plan* plan) {
  MethodPlan m = relocated;
  m.arena_sizes_relocate = relocated.arena_sizes_after;
  for (size_t i = 0; i < m.arena_sizes_after.size(); ++i) {
    const ArenaReplan* arena = replanned ? &replanned->arenas[i] : nullptr;
    ArenaChoice choice = ChooseArena(options.strategy, options, relocated, arena, m.name, i);
    if (choice.miss) plan->limit_misses.push_back(*choice.miss);
    if (arena != nullptr) {
      m.arena_sizes_replan.push_back(arena->replanned ? std::optional(arena->size) : std::nullopt);
      m.arena_lower_bounds.push_back(i < lower_bounds.size() ? lower_bounds[i] : 0);
      if (arena->refused && options.strategy != Strategy::kRelocate) {
        plan->warnings.push_back("method " + m.name + ": arena " + std::to_string(i + 1) +
                                 " keeps relocate's layout: " + arena->why_not);
      }
    }
    m.arena_strategies.push_back(choice.replan ? Strategy::kReplan : Strategy::kRelocate);
    if (!choice.replan) continue;
    m.arena_sizes_after[i] = arena->size;
    const uint32_t memory_id = static_cast<uint32_t>(i + 1);
    for (size_t k = 0; k < m.moves.size(); ++k) {
      if (m.moves[k].before.memory_id == memory_id) m.moves[k] = replanned->plan.moves[k];
    }
  }
  return m;
}

// The printed lower bound of each arena: the input's own (lifetimes.h),
// never above a valid input arena; where the arena holds a front, the front
// plus what is live at one moment besides the shared buffers and their
// groups. Not the block planner's bound: its blocks round groups out to the
// alignment.
//
// Each arena's bound is swept once, over the tensors it counts: an arena
// with a front or that buffers leave counts what is live besides the
// buffers' groups, any other all of its tensors (the lifetimes' own bound,
// which the lifetimes are therefore asked without).
std::vector<uint64_t> LowerBounds(const MethodView& method, const MethodLifetimes& lifetimes,
                                  const SharedBufferSet& shared,
                                  const std::vector<FrontRegion>& fronts) {
  const size_t arenas = method.arenas.size();
  std::vector<bool> in_front(lifetimes.groups.size(), false);
  for (uint32_t v : SharedValues(method, shared)) {
    if (v < lifetimes.group_of.size() && lifetimes.group_of[v] >= 0) {
      in_front[static_cast<size_t>(lifetimes.group_of[v])] = true;
    }
  }
  std::vector<bool> left(arenas, false);   // an arena the buffers leave (Layout::kArena)
  std::vector<bool> front(arenas, false);  // an arena with a front the method uses
  for (const FrontRegion& f : fronts) {
    for (const FrontSlot& s : f.slots) {
      const size_t i = s.source_memory_id - 1;
      if (s.source_memory_id != f.memory_id && i < arenas) left[i] = true;
    }
    const size_t i = f.memory_id - 1;
    if (i < arenas && UsesArena(method, f.memory_id)) front[i] = true;
  }
  std::vector<bool> counts_besides(arenas), counts_all(arenas);
  for (size_t i = 0; i < arenas; ++i) {
    counts_besides[i] = left[i] || front[i];
    counts_all[i] = !counts_besides[i];
  }
  const std::vector<uint64_t> all = PeakLiveBytesPerArena(method, lifetimes, {}, counts_all);
  const std::vector<uint64_t> besides =
      PeakLiveBytesPerArena(method, lifetimes, in_front, counts_besides);
  std::vector<uint64_t> bounds(arenas, 0);
  for (size_t i = 0; i < arenas; ++i) {
    bounds[i] = counts_all[i] ? all[i] : besides[i];
  }
  for (const FrontRegion& f : fronts) {
    const size_t i = f.memory_id - 1;
    if (i < arenas && front[i]) bounds[i] = f.size + besides[i];
  }
  // A new state arena holds its front; the empty arenas before it nothing.
  bounds.resize(ArenaCountAfter(method, fronts), 0);
  for (const FrontRegion& f : fronts) {
    if (f.state_arena && f.memory_id > method.arenas.size() && f.memory_id <= bounds.size()) {
      bounds[f.memory_id - 1] = f.size;
    }
  }
  return bounds;
}

// A --alignment below the input's must not lower any tensor's alignment:
// each moved tensor's new offset must keep what its old one had, up to the
// input's alignment. Judged per moved tensor, not by the detected value
// alone, so the same options on the rewritten file (where every offset may
// be 0 and detect as 4096) still plan: nothing moves there, nothing is
// judged.
Status KeepsInputAlignment(const Plan& plan, uint64_t given, uint64_t input_alignment) {
  for (const MethodPlan& method : plan.methods) {
    for (const TensorMove& move : method.moves) {
      if (!move.moved() || move.after.nbytes == 0) continue;
      const uint64_t had = std::min(input_alignment, OffsetAlignment(move.before.offset));
      if (move.after.offset % had == 0) continue;
      return Error{"--alignment " + std::to_string(given) + " is below the input's alignment (" +
                   std::to_string(input_alignment) + ") and would move " +
                   ValueLabel(method.name, move.value_index) + " from offset " +
                   Grouped(move.before.offset) + " to " + Grouped(move.after.offset) +
                   ", lowering its alignment from " + std::to_string(had) +
                   " bytes; refused: leave --alignment out or give " +
                   std::to_string(input_alignment) + " or more"};
    }
  }
  return Status::Ok();
}

// Per memory_id (index memory_id, 0 unused): the arena holds a front
// region, or shared buffers leave it (Layout::kArena), so relocate moves
// its other tensors by whole slots. A table, as every tensor asks.
std::vector<bool> ArenasMovedAroundShared(const Plan& plan) {
  std::vector<bool> moved;
  auto mark = [&](uint32_t memory_id) {
    if (moved.size() <= memory_id) moved.resize(memory_id + 1, false);
    moved[memory_id] = true;
  };
  for (const FrontRegion& f : plan.fronts) {
    mark(f.memory_id);
    for (const FrontSlot& s : f.slots) mark(s.source_memory_id);
  }
  return moved;
}

}  // namespace

Status CheckInputPlacements(const ProgramView& view) {
  for (const MethodView& method : view.methods) {
    for (const TensorValue& t : method.tensors) {
      if (!t.planned) continue;
      const Placement& p = t.placement;
      const Arena* arena = method.arena(p.memory_id);
      if (arena == nullptr) {
        return Error{ValueLabel(method, t.value_index) + ": memory_id " +
                     std::to_string(p.memory_id) + " is not an arena of the method (it has " +
                     std::to_string(method.arenas.size()) + ")"};
      }
      uint64_t end = 0;
      if (__builtin_add_overflow(p.offset, p.nbytes, &end) || (t.nbytes > 0 && end > arena->size)) {
        // The label only for the message: built for every tensor, it cost
        // more than the check.
        return Error{ValueLabel(method, t.value_index) + ": offset " + Grouped(p.offset) + " + " +
                     Grouped(p.nbytes) + " bytes > arena " + std::to_string(p.memory_id) +
                     " size " + Grouped(arena->size)};
      }
    }
  }
  return Status::Ok();
}

Result<PlanResult> MakePlan(const ProgramView& view, const ShareRequest& request,
                            const PlanOptions& options, InputLifetimes* input_lifetimes) {
  Status placements = CheckInputPlacements(view);
  if (!placements.ok()) return placements.error();
  if (options.alignment != 0 && (options.alignment & (options.alignment - 1)) != 0) {
    return Error{"--alignment " + std::to_string(options.alignment) + " is not a power of two"};
  }
  // Slots are rounded up to the alignment and summed: 2^40 overflowed the
  // sums into plans that failed verification. No arena needs more.
  if (options.alignment > kMaxAlignment) {
    return Error{"--alignment " + std::to_string(options.alignment) + " is more than " +
                 std::to_string(kMaxAlignment) + " (1 GiB), the most pteshare plans with"};
  }
  const uint64_t input_alignment = DetectAlignment(view);

  size_t most_arenas = 0;
  for (const MethodView& method : view.methods) {
    most_arenas = std::max(most_arenas, method.arenas.size());
  }
  for (const auto& [memory_id, bytes] : options.arena_limits) {
    if (memory_id > most_arenas) {
      return Error{"--arena-limit " + std::to_string(memory_id) + "=" + std::to_string(bytes) +
                   ": no method has arena " + std::to_string(memory_id) + " (the most any has is " +
                   std::to_string(most_arenas) + ")"};
    }
  }
  Result<SharedBufferSet> shared = ChooseSharedBuffers(view, request);
  if (!shared.ok()) return shared.error();

  PlanResult input;
  input.shared = std::move(shared).value();
  Plan& plan = input.plan;
  plan.strategy = options.strategy;
  plan.alignment = options.alignment != 0 ? options.alignment : input_alignment;
  plan.layout = options.layout;
  if (options.layout == Layout::kArena && input.shared.buffers.empty()) {
    // Replanning alone is what --layout front does; saying "done" for a
    // state arena that was never made would be a lie.
    const std::string why = input.shared.nothing_to_share.empty()
                                ? std::string("no shared buffer was chosen")
                                : input.shared.nothing_to_share;
    return Error{"--layout arena: nothing to share (" + why +
                 "), so there is no state arena to make; --layout front replans the arenas "
                 "without sharing"};
  }
  if (options.layout == Layout::kArena) {
    Result<std::vector<FrontRegion>> arenas = LayOutStateArenas(view, input.shared, plan.alignment);
    if (!arenas.ok()) return arenas.error();
    plan.fronts = std::move(arenas).value();
  } else {
    plan.fronts = LayOutFrontRegions(input.shared, plan.alignment);
  }
  plan.warnings = Warnings(view, input.shared, options.layout);
  std::vector<std::string> module_cannot = StateArenaWarnings(plan.fronts);
  if (!module_cannot.empty() && !options.own_loader) {
    // Written, the file would run wrong under Module (each method its own
    // state) with nothing but a warning printed beside it: refuse instead.
    return Error{"--layout arena: " + module_cannot.front() +
                 "; give --own-loader if your loader does that, or use --layout front"};
  }
  for (std::string& w : module_cannot) plan.warnings.push_back(std::move(w));
  // Relocate keeps every overlap only for tensors at aligned offsets: an
  // arena that will hold a front and has a tensor off the alignment is an
  // input pteshare cannot move safely (the exporter never writes one).
  const std::vector<bool> moved_around_shared = ArenasMovedAroundShared(plan);
  for (const MethodView& method : view.methods) {
    for (const TensorValue& t : method.tensors) {
      const uint32_t id = t.placement.memory_id;
      if (!t.planned || t.nbytes == 0 || id >= moved_around_shared.size() ||
          !moved_around_shared[id]) {
        continue;
      }
      // (DetectAlignment divides every offset unless one is below 16-byte
      // alignment, its floor.)
      if (t.placement.offset % input_alignment != 0) {
        return Error{ValueLabel(method.name, t.value_index) + ": offset " +
                     Grouped(t.placement.offset) + " in arena " +
                     std::to_string(t.placement.memory_id) + " is not a multiple of " +
                     std::to_string(input_alignment) +
                     ", so the arena's tensors cannot be moved around a front region safely"};
      }
    }
  }
  plan.nothing_to_share = input.shared.nothing_to_share;
  const bool run_replan = options.strategy != Strategy::kRelocate || options.compare_strategies;
  ReplanOptions replan_options;
  replan_options.alignment = plan.alignment;
  replan_options.max_steps = options.replan_max_steps;
  replan_options.arena_limits = options.arena_limits;
  for (const MethodView& method : view.methods) {
    MethodPlan relocated = RelocateMethod(method, input.shared, plan.fronts);
    std::optional<MethodReplan> replanned;
    std::vector<uint64_t> lower_bounds;
    if (run_replan) {
      MethodLifetimes computed;
      const MethodLifetimes& lifetimes =
          LifetimesOf(input_lifetimes, method, SharedValues(method, input.shared),
                      LowerBound::kSkip, &computed);
      if (!lifetimes.too_complex.empty()) {
        return Error{"method " + method.name + ": " + lifetimes.too_complex};
      }
      replanned = ReplanMethod(method, lifetimes, input.shared, plan.fronts, replan_options);
      lower_bounds = LowerBounds(method, lifetimes, input.shared, plan.fronts);
    }
    plan.methods.push_back(
        Combine(options, relocated, replanned ? &*replanned : nullptr, lower_bounds, &plan));
  }
  if (options.alignment != 0 && options.alignment < input_alignment) {
    Status kept = KeepsInputAlignment(plan, options.alignment, input_alignment);
    if (!kept.ok()) return kept.error();
  }
  return input;
}

}  // namespace pteshare
