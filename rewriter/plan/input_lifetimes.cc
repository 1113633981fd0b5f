#include "rewriter/plan/input_lifetimes.h"

namespace pteshare {

InputLifetimes::InputLifetimes(const ProgramView& view) : view_(view), kept_(view.methods.size()) {}

const MethodLifetimes& InputLifetimes::For(const MethodView& method,
                                           const std::vector<uint32_t>& always_live,
                                           LowerBound lower_bound) {
  // One of the view's methods by address: a copy of one (equal, but not
  // the same object) is not known to be the same program.
  const MethodView* first = view_.methods.data();
  if (&method < first || &method >= first + view_.methods.size()) {
    return Compute(method, always_live, lower_bound, &foreign_);
  }
  std::deque<Kept>& kept = kept_[static_cast<size_t>(&method - first)];
  for (Kept& k : kept) {
    if (k.always_live != always_live) continue;
    // The bound is not computed for a request that skipped it; all else is
    // the same (ComputeLifetimes computes it last, from the rest).
    if (lower_bound == LowerBound::kCompute && !k.has_lower_bound) {
      k.lifetimes.lower_bound = PeakLiveBytesPerArena(method, k.lifetimes);
      k.has_lower_bound = true;
    }
    return k.lifetimes;
  }
  return Compute(method, always_live, lower_bound, &kept);
}

const MethodLifetimes& InputLifetimes::Compute(const MethodView& method,
                                               const std::vector<uint32_t>& always_live,
                                               LowerBound lower_bound, std::deque<Kept>* into) {
  ++computed_;
  into->push_back({always_live, ComputeLifetimes(method, always_live, lower_bound),
                   lower_bound == LowerBound::kCompute});
  return into->back().lifetimes;
}

const MethodLifetimes& LifetimesOf(InputLifetimes* lifetimes, const MethodView& method,
                                   const std::vector<uint32_t>& always_live, LowerBound lower_bound,
                                   MethodLifetimes* computed) {
  if (lifetimes != nullptr) return lifetimes->For(method, always_live, lower_bound);
  *computed = ComputeLifetimes(method, always_live, lower_bound);
  return *computed;
}

}  // namespace pteshare
