// The exit statuses of every pteshare command (the README lists them), and
// how a library error's kind becomes one.
#pragma once

#include "rewriter/base/result.h"

namespace pteshare::cli {

enum ExitStatus : int {
  kExitOk = 0,        // done
  kExitFindings = 1,  // a check failed, or no valid plan exists
  kExitBadInput = 2,  // bad usage, or unreadable / invalid input, or a failed write
};

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
