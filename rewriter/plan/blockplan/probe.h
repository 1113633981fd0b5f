// ProbeCapacity: "does every block fit under C?" asked of a CapacitySearch
// with a bounded number of steps, the way MiniMalloc schedules its search.
//
// One probe is a round robin: each preorder in turn, then (optionally) seeded
// shuffles of them, runs with a step limit that grows every round. Whichever
// order suits the instance gets to finish early. A run that ends kInfeasible has
// searched the whole tree: a proof that nothing fits.
//
// Both the whole-problem planner (planner.cc) and the windowed search
// (windows.cc) ask their questions through this one function.
#pragma once

#include <cstdint>

#include "rewriter/plan/blockplan/problem.h"
#include "rewriter/plan/blockplan/search.h"
#include "rewriter/plan/blockplan/step_budget.h"

namespace pteshare {

struct ProbeSchedule {
  /// Steps of the first, shortest runs of the round robin.
  uint64_t first_run_steps = 1'000'000;
  /// Seeds the shuffled runs (0 is as good a seed as any other).
  uint64_t shuffle_seed = 0;
  /// Whether a round adds a shuffled run of every preorder after the plain
  /// ones. The planner no longer asks for them: for the same steps, longer
  /// runs of the plain preorders did better, on the whole problem (on D, J
  /// and E of MiniMalloc's suite most placements below the greedy height
  /// take one plain preorder 20-250 M steps) and in windows alike.
  bool shuffled_runs = true;
  /// Each round's runs are this many times as long as the last round's.
  uint64_t growth = 2;
};

/// Spends at most `steps` of `budget` (a little more if a run overshoots its
/// last charge). On kFound, `found` holds the placement.
SearchOutcome ProbeCapacity(CapacitySearch& search, Bytes capacity, const ProbeSchedule& schedule,
                            uint64_t steps, StepBudget* budget, BlockSolution* found);

/// The same round robin, resumable: Continue goes on where the last call
/// stopped. A call runs whole runs (only the budget cuts one short), so how
/// a caller slices the work changes when the probe is settled, not how: the
/// runs and their outcome are the same for any slicing.
class ResumableProbe {
 public:
  ResumableProbe(Bytes capacity, const ProbeSchedule& schedule);

  /// Runs until at least `steps` more steps are spent or the probe is
  /// settled (kFound, kInfeasible); kOutOfSteps means "not yet". A probe
  /// whose runs stop spending anything (every run gives up at once) stays
  /// kOutOfSteps for good: see stalled().
  SearchOutcome Continue(CapacitySearch& search, uint64_t steps, StepBudget* budget,
                         BlockSolution* found);

  Bytes capacity() const { return capacity_; }
  uint64_t spent() const { return spent_; }
  bool stalled() const { return stalled_; }

 private:
  Bytes capacity_;
  ProbeSchedule schedule_;
  uint64_t limit_;  // step limit of the current round's runs
  size_t run_ = 0;  // next run of the current round
  uint64_t round_spent_ = 0;
  uint64_t spent_ = 0;  // over every call
  bool stalled_ = false;
};

}  // namespace pteshare
