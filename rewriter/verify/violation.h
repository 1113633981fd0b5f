// What verification finds: a broken invariant (I1-I6 of docs/design.md) and
// a message with its numbers. Its own header, so the checks plan_verifier.cc
// runs (overlaps_kept.h, state_arena_checks.h) need not include the verifier.
#pragma once

#include <string>

namespace pteshare {

/// I1-I6 of docs/design.md, "Invariants".
enum class Invariant {
  kSharedPlacement = 1,  // I1
  kFrontRegionFree,      // I2
  kOverlapsKept,         // I3
  kFitsAndAligned,       // I4
  kSameShape,            // I5
  kNoGrowth,             // I6
};

/// "I1".."I6", as design.md and every report name them.
inline std::string InvariantName(Invariant invariant) {
  return "I" + std::to_string(static_cast<int>(invariant));
}

struct PlanViolation {
  Invariant invariant;
  std::string message;  // method, value, numbers
};

}  // namespace pteshare
