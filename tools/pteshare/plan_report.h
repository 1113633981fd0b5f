// The planning step every planning command shares (plan, rewrite, plot):
// open, choose the shared buffers, make the plan, verify it; and the plan
// report in text or JSON.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rewriter/memory_cost.h"
#include "rewriter/open_program.h"
#include "rewriter/plan_verifier.h"
#include "rewriter/planner.h"
#include "tools/pteshare/json_writer.h"
#include "tools/pteshare/share_options.h"

namespace pteshare::cli {

/// --strategy, --alignment and --arena-limit, shared by the planning
/// commands.
struct PlanningOptions {
  std::string strategy = "best";
  uint64_t alignment = 0;
  std::vector<std::string> arena_limits;  // --arena-limit ID=BYTES, raw text
  /// Also run the strategy not chosen, so the report shows both sizes
  /// (`pteshare plan` does; rewrite need not pay for it).
  bool compare_strategies = false;

  void AddTo(CLI::App* command);
  /// Parses --strategy and every --arena-limit; an error names the bad one.
  Result<PlanOptions> ToPlanOptions() const;
};

/// A plan with its verification, or why there is none.
struct PlanOutcome {
  int exit_status = 0;  // kExitOk, kExitFindings (violations), kExitBadInput
  std::optional<PlanInput> input;
  std::vector<PlanViolation> violations;
  /// The plan that missed an --arena-limit (exit 1, `input` empty): its
  /// shared buffers and limit_misses, for `plot` to draw the input with.
  std::optional<PlanInput> missed_limit;
};

/// Plans `program` and verifies the plan; prints input errors, arena-limit
/// misses (exit 1, no plan) and violations on stderr naming `file`. With
/// replan or best, choosing no shared buffer is allowed (the arenas are
/// just replanned).
PlanOutcome PlanAndVerify(const std::string& file, const ProgramView& view,
                          const ShareOptions& share, const PlanningOptions& planning);

/// Human-readable report of a plan.
void PrintPlanText(const std::string& file, const ProgramView& view, const PlanOutcome& outcome);
/// The same as JSON members of an already open object.
void WritePlanJson(JsonWriter& json, const ProgramView& view, const PlanOutcome& outcome);

/// "prefill:22 <-> decode:22  FLOAT[1,8,128,64]  arena 1", one per pair
/// --share-auto made of unnamed state.
std::vector<std::string> PairingLines(const ProgramView& view, const SharedBufferSet& shared);

/// The memory lines (memory_cost.h): per arena and in total, one shared set
/// of arenas vs separate sets, before -> after. Each line starts with
/// `indent`.
std::string MemoryText(const ProgramView& view, const MemoryCost& cost, const std::string& indent);
/// `"memory": {...}` as a member of an open object.
void WriteMemoryJson(JsonWriter& json, const MemoryCost& cost);

}  // namespace pteshare::cli
