// StepBudget: how much work the block planner may still do.
//
// Work is counted in steps (one step ~ one block looked at), never in seconds,
// so the same problem, options and seed give the same plan on a loaded or an
// idle machine. A wall-clock deadline may additionally cut the search short;
// it is the planner's only source of nondeterminism, and callers that need
// byte-identical output leave it unset and rely on the step limit.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace pteshare {

class StepBudget {
 public:
  using Clock = std::chrono::steady_clock;

  StepBudget(uint64_t limit, std::optional<Clock::time_point> deadline)
      : limit_(limit), deadline_(deadline) {}

  /// Takes `steps` from the budget; false once the budget (or the deadline)
  /// is exhausted, and from then on.
  bool Spend(uint64_t steps) {
    if (exhausted_) return false;
    used_ += steps;
    if (used_ > limit_) exhausted_ = true;
    // Reading the clock costs more than a step; look every ~64k steps.
    if (deadline_ && (used_ >> 16) != last_clock_check_) {
      last_clock_check_ = used_ >> 16;
      if (Clock::now() >= *deadline_) exhausted_ = timed_out_ = true;
    }
    return !exhausted_;
  }

  bool exhausted() const { return exhausted_; }
  bool timed_out() const { return timed_out_; }
  uint64_t used() const { return used_; }
  uint64_t remaining() const { return used_ >= limit_ ? 0 : limit_ - used_; }

 private:
  uint64_t limit_;
  std::optional<Clock::time_point> deadline_;
  uint64_t used_ = 0;
  uint64_t last_clock_check_ = 0;
  bool exhausted_ = false;
  bool timed_out_ = false;
};

}  // namespace pteshare
