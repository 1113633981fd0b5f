#include "tools/pteshare/plan_report.h"

#include <algorithm>
#include <cstdio>

#include "rewriter/plan/state_arena.h"
#include "tools/pteshare/exit_codes.h"
#include "tools/pteshare/output.h"
#include "tools/report/bundle_report.h"
#include "tools/report/numbers.h"
#include "tools/report/runtime_terms.h"
#include "tools/report/saving_text.h"

namespace pteshare::cli {
namespace {

// "; LB 900, relocate 1,234, replan 1,000 -> replan": what each strategy
// gives the arena, when replan ran.
// "2 shared buffers" or "2 shared buffers, 4 private state buffers".
std::string SlotCounts(const FrontRegion& f) {
  const size_t kept = f.private_slots();
  const size_t shared = f.slots.size() - kept;
  std::string text = std::to_string(shared) + " shared buffer" + (shared == 1 ? "" : "s");
  if (kept > 0) {
    text += ", " + std::to_string(kept) + " private state buffer" + (kept == 1 ? "" : "s");
  }
  return text;
}

std::string StrategySizes(const MethodPlan& m, size_t i) {
  if (i >= m.arena_lower_bounds.size() || i >= m.arena_sizes_replan.size()) return "";
  std::string text = "; LB " + Grouped(m.arena_lower_bounds[i]) + ", relocate " +
                     Grouped(m.arena_sizes_relocate[i]) + ", replan ";
  text += m.arena_sizes_replan[i] ? Grouped(*m.arena_sizes_replan[i]) : "-";
  if (i < m.arena_strategies.size())
    text += std::string(" -> ") + StrategyName(m.arena_strategies[i]);
  return text;
}

// Per layout: one set (each arena as large as its largest method) and
// separate sets (the sum), per arena and in total; or why it cannot be had.
std::string LayoutCostText(const ProgramView& view, const VerifiedPlan& verified,
                           const std::string& indent) {
  std::string text = indent +
                     "what each layout costs (--layout; per arena: one set for every method / a "
                     "set per method):\n";
  for (const LayoutCost& c : verified.layouts) {
    const bool chosen = c.layout == verified.planned.plan.layout;
    text += indent + "  " + LayoutName(c.layout) + (chosen ? " (this plan)" : "") + ": ";
    if (!c.memory) {
      text += "not possible: " + c.refused + "\n";
      continue;
    }
    text += "one set " + Grouped(c.memory->total.one_set_after) + ", separate sets " +
            Grouped(c.memory->total.separate_after) + " bytes\n";
    for (const ArenaCost& a : c.memory->arenas) {
      const FrontRegion* state = nullptr;
      for (const FrontRegion& f : c.state_arenas) {
        if (f.memory_id == a.memory_id) state = &f;
      }
      std::string device = "-";
      for (const MethodView& m : view.methods) {
        if (m.arena(a.memory_id) != nullptr) {
          device = ArenaDevice(m, state, a.memory_id);
          break;
        }
      }
      if (device == "-" && state != nullptr)
        device = ArenaDevice(view.methods[0], state, a.memory_id);
      text += indent + "    arena " + std::to_string(a.memory_id) + " " + device +
              (state != nullptr ? " (state)" : "") + ": " + Grouped(a.one_set_after) + " / " +
              Grouped(a.separate_after) + "\n";
    }
  }
  return text;
}
}  // namespace

PlanOutcome PlanForCommand(const std::string& file, const ProgramView& view,
                           const ShareFlags& share, const PlanFlags& planning) {
  PlanOutcome outcome;
  Result<ShareRequest> request = share.ToRequest();
  Result<PlanOptions> options = planning.ToPlanOptions();
  if (!request.ok() || !options.ok()) {
    PrintFileError(file, request.ok() ? options.error() : request.error());
    outcome.exit_status = kExitBadInput;
    return outcome;
  }
  Result<VerifiedPlan> verified = PlanAndVerify(view, *request, *options);
  if (!verified.ok()) {
    PrintFileError(file, verified.error());
    outcome.exit_status = ExitStatusFor(verified.error().kind);
    return outcome;
  }
  if (!verified->fits()) {
    PrintFileError(file, LimitMisses(verified->planned.plan));
    outcome.exit_status = kExitFindings;
    outcome.plan = std::move(verified).value();
    return outcome;
  }
  // Why nothing is shared is the first line of the report (saving_text.h),
  // and the exit status says it to a script.
  outcome.exit_status = ExitStatusFor(verified->saving);
  if (!verified->verified()) {
    for (const PlanViolation& v : verified->violations) {
      PrintFileError(file, Error{"plan violates " + InvariantName(v.invariant) + ": " + v.message});
    }
    PrintFileError(file, RefusedPlan(verified->violations));
    outcome.exit_status = kExitFindings;
  }
  outcome.plan = std::move(verified).value();
  return outcome;
}

std::vector<std::string> PairingLines(const ProgramView& view, const SharedBufferSet& shared) {
  std::vector<std::string> lines;
  for (const StatePairing& pairing : shared.pairings) {
    std::string line;
    for (const auto& [method, value] : pairing.values) {
      line +=
          (line.empty() ? "" : " <-> ") + view.methods[method].name + ":" + std::to_string(value);
    }
    lines.push_back(line + "  " + pairing.shape + "  arena " + std::to_string(pairing.memory_id) +
                    "  (" + PairingLabel(view, pairing) + ")");
  }
  return lines;
}

std::string PairingHeader(const SharedBufferSet& shared) {
  const size_t count = shared.pairings.size();
  const bool made_up = std::any_of(shared.pairings.begin(), shared.pairings.end(),
                                   [](const StatePairing& p) { return p.position_name; });
  return "paired " + Grouped(count) + " unnamed mutable buffer" + (count == 1 ? "" : "s") +
         " by position" + (made_up ? " (paired_state.K: position K, no name in the program)" : "");
}

std::string CappedLines(const std::vector<std::string>& lines, const std::string& indent,
                        bool verbose) {
  const size_t shown = verbose ? lines.size() : std::min<size_t>(lines.size(), kLinesShown);
  std::string text;
  for (size_t i = 0; i < shown; ++i) text += indent + lines[i] + "\n";
  if (shown < lines.size()) {
    text += indent + "... and " + Grouped(lines.size() - shown) + " more (all with -v)\n";
  }
  return text;
}

std::string PlanHeadline(const std::string& file, const VerifiedPlan& verified) {
  return file + ": " + SavingLine(verified.saving) + "\n";
}

void PrintPlanText(const std::string& file, const PteFile& pte, const ProgramView& view,
                   const VerifiedPlan& verified, bool verbose) {
  const Plan& plan = verified.planned.plan;
  const SharedBufferSet& shared = verified.planned.shared;
  const bool several = verified.saving.planning_methods.size() > 1;
  std::fputs(PlanHeadline(file, verified).c_str(), stdout);
  std::fputs(BundleLine(file, pte).c_str(), stdout);
  std::printf("  plan: strategy %s, layout %s, alignment %s\n", StrategyName(plan.strategy),
              LayoutName(plan.layout), Grouped(plan.alignment).c_str());
  const std::vector<std::string> pairs = PairingLines(view, shared);
  if (!pairs.empty()) {
    std::printf("  %s:\n", PairingHeader(shared).c_str());
    std::fputs(CappedLines(pairs, "    ", verbose).c_str(), stdout);
  }
  for (const FrontRegion& f : plan.fronts) {
    if (f.state_arena) {
      std::printf(
          "  state arena %u %s%s: [0, %s) bytes, %s\n", f.memory_id,
          DeviceName(static_cast<int8_t>(f.device), f.device_index).c_str(),
          view.methods.empty() || f.memory_id > view.methods[0].arenas.size() ? " (new)" : "",
          Grouped(f.size).c_str(), SlotCounts(f).c_str());
    } else {
      std::printf("  front region of arena %u: [0, %s) bytes, %s\n", f.memory_id,
                  Grouped(f.size).c_str(), SlotCounts(f).c_str());
    }
    std::vector<std::string> slots;
    for (const FrontSlot& s : f.slots) {
      char line[512];
      std::snprintf(line, sizeof line, "%-48s offset %s, %s bytes", s.name.c_str(),
                    Grouped(s.offset).c_str(), Grouped(s.nbytes).c_str());
      slots.push_back(line);
    }
    std::fputs(CappedLines(slots, "    ", verbose).c_str(), stdout);
  }
  // Methods that plan nothing (the exporter's constant methods) in one
  // line: a block each would say eight times that nothing changes.
  std::string constant_methods;
  for (const MethodPlan& m : plan.methods) {
    if (PlansNothing(view.methods[m.method_index])) {
      constant_methods += (constant_methods.empty() ? "" : ", ") + m.name;
      continue;
    }
    std::printf("\n  method %s: %s of %s planned tensors move\n", m.name.c_str(),
                Grouped(m.moved_count()).c_str(), Grouped(m.moves.size()).c_str());
    for (size_t i = 0; i < m.arena_sizes_after.size(); ++i) {
      const uint32_t id = static_cast<uint32_t>(i + 1);
      const FrontRegion* f = plan.front(id);
      const uint64_t before = i < m.arena_sizes_before.size() ? m.arena_sizes_before[i] : 0;
      const uint64_t after = m.arena_sizes_after[i];
      std::string change = i >= m.arena_sizes_before.size() ? "new"
                           : before == after
                               ? "unchanged"
                               : (after > before ? "+" : "-") +
                                     Grouped(after > before ? after - before : before - after);
      std::printf(
          "    arena %u %-7s %s -> %s bytes (%s)%s%s\n", id,
          ArenaDevice(view.methods[m.method_index], f, id).c_str(), Grouped(before).c_str(),
          Grouped(after).c_str(), change.c_str(),
          f ? ((f->state_arena ? ", state arena " : ", front ") + Grouped(f->size)).c_str() : "",
          StrategySizes(m, i).c_str());
    }
    std::vector<std::string> buffers;
    for (const SharedBuffer& b : shared.buffers) {
      char line[512];
      const auto& value = b.value_in_method[m.method_index];
      if (!value) {
        std::snprintf(line, sizeof line, "%-48s (not in this method; its slot stays reserved)",
                      b.name.c_str());
        buffers.push_back(line);
        continue;
      }
      if (const TensorMove* move = m.Find(*value)) {
        std::snprintf(line, sizeof line, "%-48s value %u: offset %s -> %s%s", b.name.c_str(),
                      *value, Grouped(move->before.offset).c_str(),
                      Grouped(move->after.offset).c_str(),
                      b.private_state ? " (private state, a slot of its own)" : "");
        buffers.push_back(line);
      }
    }
    std::fputs(CappedLines(buffers, "    ", verbose).c_str(), stdout);
  }
  if (!constant_methods.empty()) {
    std::printf("\n  methods that plan nothing (unchanged): %s\n", constant_methods.c_str());
  }
  std::printf("\n%s", MemoryText(view, ComputeMemoryCost(plan), "  ", plan.fronts).c_str());
  if (!plan.methods.empty()) std::printf("\n%s", RuntimeTermsText(view, plan, "  ").c_str());
  if (several && !verified.layouts.empty()) {
    std::printf("\n%s", LayoutCostText(view, verified, "  ").c_str());
  }
  for (const std::string& w : plan.warnings) std::printf("\n  warning: %s", w.c_str());
  if (!plan.warnings.empty()) std::printf("\n");
  if (verified.verified()) {
    std::printf("\n  verified: I1 I2 I3 I4 I5 I6 hold\n");
  }
}

}  // namespace pteshare::cli
