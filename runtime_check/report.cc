// The Report's own questions (ok, counts, the summary line).
#include <string>

#include "runtime_check/alias_check.h"

namespace pteshare::runtime_check {

bool Report::ok() const { return completed && error_count() == 0; }

bool Report::readable() const {
  for (const Finding& f : findings) {
    if (f.kind == FindingKind::kNotAProgram) return false;
  }
  return true;
}

size_t Report::error_count() const {
  size_t count = 0;
  for (const Finding& f : findings) count += f.severity == Severity::kError;
  return count;
}

size_t Report::warning_count() const { return findings.size() - error_count(); }

namespace {
std::string Count(size_t n, const char* thing) {
  return std::to_string(n) + " " + thing + (n == 1 ? "" : "s");
}
}  // namespace

std::string Report::Summary() const {
  if (!completed && findings.empty()) return "not checked: the check ran out of memory";
  for (const Finding& f : findings) {
    if (f.kind == FindingKind::kNotAProgram || f.kind == FindingKind::kInternalError) {
      return "not checked: " + f.message;
    }
  }
  const std::string scope =
      Count(shared.size(), "shared buffer") + " across " + Count(methods.size(), "method");
  const size_t errors = error_count(), warnings = warning_count();
  if (errors == 0) {
    std::string line = "ok: " + scope;
    if (warnings > 0) line += " (" + Count(warnings, "warning") + ")";
    return line;
  }
  return Count(errors, "error") + ", " + Count(warnings, "warning") + ": " + scope;
}

}  // namespace pteshare::runtime_check
