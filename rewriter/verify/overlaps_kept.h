// I3 without lifetimes, the promise of relocate (plan_verifier.h, design.md
// "Verifying"): every input overlap keeps its relative offset and arena,
// and no new overlap appears, live or not, except inside one slot.
//
// The overlaps of an exporter's arena are quadratic in number (each offset
// is reused by every layer), so the pairs are not listed for a plan that
// keeps them: overlapping is transitive enough that a plan keeps every
// overlap exactly when each cluster of tensors chained by input overlaps
// moves as one (one arena, one shift), and makes no new one exactly when
// no output cluster mixes two input clusters. Only when that fails are the
// pairs swept, for the messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rewriter/plan/plan.h"
#include "rewriter/verify/violation.h"

namespace pteshare {

/// "[offset, offset + nbytes)", as every violation message writes bytes.
std::string ByteRangeText(uint64_t offset, uint64_t nbytes);

/// [a, a + a_len) and [b, b + b_len) share a byte.
inline bool BytesOverlap(uint64_t a, uint64_t a_len, uint64_t b, uint64_t b_len) {
  return a < b + b_len && b < a + a_len;
}

/// The I3 violations of method plan `m` of `plan` judged without lifetimes.
std::vector<PlanViolation> CheckOverlapsKept(const MethodPlan& m, const Plan& plan);

}  // namespace pteshare
