#include "rewriter/plan/blockplan/probe.h"

#include <algorithm>
#include <iterator>

namespace pteshare {
namespace {

/// Each preorder plain, then (when asked for) each shuffled.
size_t RunsPerRound(const ProbeSchedule& schedule) {
  return (schedule.shuffled_runs ? 2 : 1) * std::size(kAllSearchPreorders);
}

uint64_t Grow(uint64_t limit, const ProbeSchedule& schedule) {
  const uint64_t growth = std::max<uint64_t>(schedule.growth, 2);
  return limit > UINT64_MAX / growth ? UINT64_MAX : limit * growth;
}

}  // namespace

SearchOutcome ProbeCapacity(CapacitySearch& search, Bytes capacity, const ProbeSchedule& schedule,
                            uint64_t steps, StepBudget* budget, BlockSolution* found) {
  const uint64_t start = budget->used();
  const size_t preorders = std::size(kAllSearchPreorders);
  for (uint64_t limit = std::max<uint64_t>(schedule.first_run_steps, 1);;
       limit = Grow(limit, schedule)) {
    const uint64_t round_start = budget->used();
    for (size_t run = 0; run < RunsPerRound(schedule); ++run) {
      const uint64_t spent = budget->used() - start;
      if (spent >= steps || budget->exhausted()) return SearchOutcome::kOutOfSteps;
      // The plain preorders first; then each shuffled, differently every round.
      const uint64_t shuffle = run < preorders ? 0 : schedule.shuffle_seed + limit + run;
      SearchOutcome outcome = search.Run(capacity, kAllSearchPreorders[run % preorders], shuffle,
                                         std::min(limit, steps - spent), budget, found);
      if (outcome != SearchOutcome::kOutOfSteps) return outcome;
    }
    // A round that spent nothing would spend nothing again (its runs gave up
    // before their first step): stop instead of looping forever.
    if (budget->used() == round_start) return SearchOutcome::kOutOfSteps;
  }
}

ResumableProbe::ResumableProbe(Bytes capacity, const ProbeSchedule& schedule)
    : capacity_(capacity),
      schedule_(schedule),
      limit_(std::max<uint64_t>(schedule.first_run_steps, 1)) {}

SearchOutcome ResumableProbe::Continue(CapacitySearch& search, uint64_t steps, StepBudget* budget,
                                       BlockSolution* found) {
  const size_t preorders = std::size(kAllSearchPreorders);
  const uint64_t start = budget->used();
  while (!stalled_ && budget->used() - start < steps && !budget->exhausted()) {
    const uint64_t shuffle = run_ < preorders ? 0 : schedule_.shuffle_seed + limit_ + run_;
    const uint64_t before = budget->used();
    SearchOutcome outcome = search.Run(capacity_, kAllSearchPreorders[run_ % preorders], shuffle,
                                       limit_, budget, found);
    spent_ += budget->used() - before;
    round_spent_ += budget->used() - before;
    if (outcome != SearchOutcome::kOutOfSteps) return outcome;
    if (++run_ == RunsPerRound(schedule_)) {
      // A round that spent nothing would spend nothing again.
      stalled_ = round_spent_ == 0;
      run_ = 0;
      round_spent_ = 0;
      limit_ = Grow(limit_, schedule_);
    }
  }
  return SearchOutcome::kOutOfSteps;
}

}  // namespace pteshare
