#include "rewriter/blockplan/probe.h"

#include <algorithm>
#include <iterator>

namespace pteshare {

SearchOutcome ProbeCapacity(CapacitySearch& search, Bytes capacity, const ProbeSchedule& schedule,
                            uint64_t steps, StepBudget* budget, BlockSolution* found) {
  const uint64_t start = budget->used();
  const size_t preorders = std::size(kAllSearchPreorders);
  for (uint64_t limit = std::max<uint64_t>(schedule.first_run_steps, 1);;
       limit = limit > UINT64_MAX / 2 ? UINT64_MAX : limit * 2) {
    const uint64_t round_start = budget->used();
    for (size_t run = 0; run < 2 * preorders; ++run) {
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
    if (++run_ == 2 * preorders) {
      // A round that spent nothing would spend nothing again.
      stalled_ = round_spent_ == 0;
      run_ = 0;
      round_spent_ = 0;
      limit_ = limit_ > UINT64_MAX / 2 ? UINT64_MAX : limit_ * 2;
    }
  }
  return SearchOutcome::kOutOfSteps;
}

}  // namespace pteshare
