#include "runtime_check/findings.h"

#include <cstdio>

namespace pteshare::runtime_check {
namespace internal {

Severity SeverityOf(FindingKind kind) {
  switch (kind) {
    case FindingKind::kInitialStateInSeveralMethods:
    case FindingKind::kArenaNotSharedByModule:
    case FindingKind::kUnpairedState:
      return Severity::kWarning;
    default:
      return Severity::kError;
  }
}

Finding NewFinding(FindingKind kind) {
  Finding finding;
  finding.kind = kind;
  finding.severity = SeverityOf(kind);
  return finding;
}

std::string TensorLabel(const std::string& method, uint32_t value_index, const std::string& name) {
  std::string label = "method " + method + ", value " + std::to_string(value_index);
  if (!name.empty()) label += " (" + name + ")";
  return label;
}

std::string Extent(uint64_t offset, uint64_t nbytes) {
  return "offset " + std::to_string(offset) + " + " + std::to_string(nbytes) + " bytes";
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace internal

const char* FindingKindName(FindingKind kind) {
  switch (kind) {
    case FindingKind::kNotAProgram:
      return "not_a_program";
    case FindingKind::kInternalError:
      return "internal_error";
    case FindingKind::kInvalidTensor:
      return "invalid_tensor";
    case FindingKind::kInvalidMemoryId:
      return "invalid_memory_id";
    case FindingKind::kInvalidArenaSize:
      return "invalid_arena_size";
    case FindingKind::kPastArenaEnd:
      return "past_arena_end";
    case FindingKind::kSharedNameNotFound:
      return "shared_name_not_found";
    case FindingKind::kInvalidValueNaming:
      return "invalid_name_assignment";
    case FindingKind::kArenaMismatch:
      return "arena_mismatch";
    case FindingKind::kOffsetMismatch:
      return "offset_mismatch";
    case FindingKind::kSizeMismatch:
      return "size_mismatch";
    case FindingKind::kShapeMismatch:
      return "shape_mismatch";
    case FindingKind::kDeviceMismatch:
      return "device_mismatch";
    case FindingKind::kPrivateStateOverlap:
      return "private_state_overlap";
    case FindingKind::kOverlap:
      return "overlap";
    case FindingKind::kUnprovenAlias:
      return "unproven_alias";
    case FindingKind::kUnknownMethod:
      return "unknown_method";
    case FindingKind::kArenaNotBound:
      return "arena_not_bound";
    case FindingKind::kBindingTooSmall:
      return "binding_too_small";
    case FindingKind::kAddressMismatch:
      return "address_mismatch";
    case FindingKind::kInitialStateInSeveralMethods:
      return "initial_state_in_several_methods";
    case FindingKind::kArenaNotSharedByModule:
      return "arena_not_shared_by_module";
    case FindingKind::kUnpairedState:
      return "unpaired_state";
  }
  return "unknown";
}

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
