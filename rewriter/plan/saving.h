// The answer a user runs pteshare for: how much memory the application
// allocates after the plan against what it needed before, and, when the
// plan cannot share anything, why. Computed once here, as plain facts, for
// every front end: the first line of `plan` and `rewrite`, a batch's
// totals, the "saving" object of the JSON documents, the Python module.
//
// Which two numbers are compared depends on what the plan does:
//   - it shares state: one set of arenas for every method after (the only
//     way to share) against a set per method before (what sharing state
//     needed until now, since each method's state sat elsewhere);
//   - it only replans: one set before against one set after (methods with
//     no shared state could already be given one set);
//   - the state is already shared: one set, unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rewriter/plan/memory_cost.h"
#include "rewriter/plan/plan.h"
#include "rewriter/plan/planner.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare {

/// What the plan does for the user.
enum class SavingKind : uint8_t {
  /// Shared buffers change placement: the methods can now use one set.
  kShared,
  /// There are shared buffers and they already sit at one placement in
  /// every method, with nothing else to change ("already planned").
  kAlreadyShared,
  /// Nothing shared (see NoShareReason); replanning changes the arenas.
  kReplanned,
  /// Nothing shared and nothing to change.
  kUnchanged,
};

/// Why a plan shares nothing (kNone when it shares something).
enum class NoShareReason : uint8_t {
  kNone,
  /// Sharing was not asked for (no --share, no --share-auto), and two or
  /// more methods have mutable state: asking is what would share it.
  kNotAsked,
  /// At most one method runs (or plans memory): nothing to share with.
  kOneMethod,
  /// No method has a mutable buffer outside delegates, and some method
  /// calls a delegate: any state (a KV cache) is the delegate's own memory,
  /// which the program does not show and pteshare cannot share.
  kStateInDelegate,
  /// No method has a mutable buffer and none calls a delegate.
  kNoState,
  /// Exactly one method has mutable state.
  kStateInOneMethod,
};

/// A backend that methods call (BackendDelegate.id): it plans its own
/// memory, which is not in the program's arenas.
struct DelegateUse {
  std::string backend;               // "QnnBackend"; "?" where the id is missing
  std::vector<std::string> methods;  // in program order
  uint32_t delegates = 0;            // delegate entries with this backend, over all methods
};

struct PlanSaving {
  SavingKind kind = SavingKind::kUnchanged;
  NoShareReason reason = NoShareReason::kNone;
  /// The two sizes compared (bytes over all arenas), see the file comment.
  uint64_t before = 0;
  uint64_t after = 0;
  /// True when `before` is a set per method (kShared), false when it is
  /// one set for every method.
  bool before_is_separate_sets = false;
  /// Methods that plan memory (not the exporter's constant methods).
  std::vector<std::string> planning_methods;
  /// Methods that run: instructions or planned memory (a method whose
  /// work is all in a delegate plans nothing but runs).
  std::vector<std::string> running_methods;
  /// The one method with mutable state (kStateInOneMethod).
  std::string method_with_state;
  size_t shared_buffers = 0;  // shared across methods (private state not counted)
  /// Whether buffers were asked for (--share, --share-auto).
  bool share_asked = false;
  std::vector<DelegateUse> delegates;

  /// Something pteshare can share: kShared or kAlreadyShared.
  bool shares() const { return kind == SavingKind::kShared || kind == SavingKind::kAlreadyShared; }
  uint64_t saved() const { return before > after ? before - after : 0; }
  /// after relative to before, in percent (-47.0 is 47% less); 0 when
  /// before is 0.
  double change_percent() const;
};

/// Every backend the methods call, in order of first use.
std::vector<DelegateUse> DelegateUses(const ProgramView& view);

/// Whether the plan changes any placement or arena size of the program.
bool PlanChangesProgram(const Plan& plan);

/// The saving of `planned` on `view`. `changes_program`: whether writing it
/// changes the file (a rewrite knows from its patch; a dry run from
/// PlanChangesProgram). `share_asked`: whether buffers were asked for.
PlanSaving DescribeSaving(const ProgramView& view, const PlanResult& planned, bool changes_program,
                          bool share_asked);

}  // namespace pteshare
