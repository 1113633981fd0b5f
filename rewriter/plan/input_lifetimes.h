// InputLifetimes: each method's lifetimes (lifetimes.h), computed once per
// program and kept, for the planner and the plan verifier to read.
//
// Lifetimes are facts of the input program: ComputeLifetimes is a pure
// function of a method and the values it keeps live throughout, and both
// replan and the verifier's full I3 already call it, by design, for the same
// method and the same shared buffers; computing it twice repeated the same
// walk of the instructions (about 6% of a 1024-layer rewrite's instructions) and
// could catch no bug the first run hid. Keeping the verifier independent
// of the planner is kept here: each side asks with its own arguments (the
// verifier derives the always-live values from the shared buffers itself),
// an answer is reused only for the same method of the same program with the
// same always-live values (any other request computes afresh), answers are
// const, and nothing the planner decides (placements, groups it forms,
// blocks) goes in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "rewriter/plan/lifetimes.h"
#include "rewriter/program/program_view.h"

namespace pteshare {

class InputLifetimes {
 public:
  /// For the methods of `view`, which must outlive this.
  explicit InputLifetimes(const ProgramView& view);
  InputLifetimes(const InputLifetimes&) = delete;
  InputLifetimes& operator=(const InputLifetimes&) = delete;

  /// ComputeLifetimes(method, always_live, lower_bound), computed on the
  /// first request for this method and these always-live values and kept
  /// (a later kCompute request of lifetimes kept without the bound adds
  /// it). The reference stays valid as long as this object. A method that
  /// is not one of the view's is computed and kept, never reused.
  const MethodLifetimes& For(const MethodView& method, const std::vector<uint32_t>& always_live,
                             LowerBound lower_bound = LowerBound::kCompute);

  /// How many times ComputeLifetimes ran (for tests).
  size_t computed() const { return computed_; }

 private:
  struct Kept {
    std::vector<uint32_t> always_live;
    MethodLifetimes lifetimes;
    bool has_lower_bound = false;
  };
  // Deques: a reference handed out stays valid while more are added.
  const MethodLifetimes& Compute(const MethodView& method, const std::vector<uint32_t>& always_live,
                                 LowerBound lower_bound, std::deque<Kept>* into);

  const ProgramView& view_;
  /// Indexed like view_.methods.
  std::vector<std::deque<Kept>> kept_;
  std::deque<Kept> foreign_;
  size_t computed_ = 0;
};

/// The lifetimes of `method` from `lifetimes` when given, else computed
/// into `*computed` (planner and verifier take an optional InputLifetimes).
const MethodLifetimes& LifetimesOf(InputLifetimes* lifetimes, const MethodView& method,
                                   const std::vector<uint32_t>& always_live, LowerBound lower_bound,
                                   MethodLifetimes* computed);

}  // namespace pteshare
