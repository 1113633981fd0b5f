// The exit statuses of every pteshare command (the README lists them), and
// how a library error's kind becomes one.
#pragma once

#include "rewriter/base/result.h"
#include "rewriter/plan/saving.h"

namespace pteshare::cli {

enum ExitStatus : int {
  kExitOk = 0,        // done
  kExitFindings = 1,  // a check failed, or no valid plan exists
  kExitBadInput = 2,  // bad usage, or unreadable / invalid input, or a failed write
  /// Sharing was asked for (--share, --share-auto) and the program has
  /// nothing pteshare can share: no mutable state, state in one method
  /// only, or any state inside a delegate. Not "already done" (0): a build
  /// script that expects a shared KV cache must not take it for one. The
  /// arenas may still have been replanned (and the output written).
  kExitNothingToShare = 3,
};

/// The worse of two statuses, for a batch: bad input, then findings, then
/// nothing to share, then done.
inline int WorseExitStatus(int a, int b) {
  auto rank = [](int status) {
    switch (status) {
      case kExitOk:
        return 0;
      case kExitNothingToShare:
        return 1;
      case kExitFindings:
        return 2;
      default:
        return 3;
    }
  };
  return rank(a) >= rank(b) ? a : b;
}

/// kExitNothingToShare when sharing was asked for and nothing can be
/// shared, else kExitOk.
inline int ExitStatusFor(const PlanSaving& saving) {
  return saving.share_asked && !saving.shares() ? kExitNothingToShare : kExitOk;
}

inline int ExitStatusFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNoValidPlan:
      return kExitFindings;
    case ErrorKind::kBadInput:
    case ErrorKind::kIo:
      return kExitBadInput;
  }
  return kExitBadInput;
}

}  // namespace pteshare::cli
