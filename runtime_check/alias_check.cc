// The two entry points: read the program's tables, then run the sharing rules
// (shared_buffers.h) and, for CheckBindings, the load-time rules
// (binding_check.h). Nothing escapes as an exception.
#include "runtime_check/alias_check.h"

#include <exception>
#include <string>
#include <vector>

#include "runtime_check/binding_check.h"
#include "runtime_check/findings.h"
#include "runtime_check/program_check.h"
#include "runtime_check/program_reader.h"
#include "runtime_check/state_pairing.h"

namespace pteshare::runtime_check {
namespace internal {

CheckedProgram CheckProgramTables(const ProgramTables& tables, const CheckOptions& options,
                                  CompareLocation compare, Report* report) {
  CheckedProgram state;
  state.methods = ReadMethodLayouts(tables, &report->findings);
  ApplyValueNamings(options.extra_names, &state.methods, &report->findings);
  PairUnnamedState(&state.methods, &report->findings);
  state.groups = CollectSharedGroups(state.methods, options.shared_names, &report->findings);
  CheckSamePlacement(state.methods, state.groups, compare, &report->findings);
  CheckArenaDevices(state.methods, state.groups, &report->findings);
  CheckNoOverlap(state.methods, state.groups, &report->findings);
  CheckPrivateState(state.methods, state.groups, &report->findings);
  CheckSharingCaveats(state.methods, state.groups, &report->findings);

  for (const MethodLayout& method : state.methods) {
    MethodArenas arenas;
    arenas.name = method.name;
    for (size_t id = 1; id <= method.arena_sizes.size(); ++id) {
      arenas.arena_sizes.push_back(method.ArenaSize(static_cast<uint32_t>(id)));
    }
    arenas.planned_tensors = static_cast<uint32_t>(method.tensors.size());
    report->methods.push_back(std::move(arenas));
  }
  report->shared = DescribeGroups(state.methods, state.groups);
  return state;
}

}  // namespace internal

namespace {

// The tables read from the bytes, and what the checks made of them (whose
// layouts point into the tables). Empty with a kNotAProgram finding when
// unreadable.
struct ProgramState {
  internal::ProgramTables tables;
  internal::CheckedProgram checked;
};

void ReadAndCheckProgram(const void* data, size_t size, const CheckOptions& options,
                         internal::CompareLocation compare, ProgramState* state, Report* report) {
  std::string problem;
  if (!internal::ReadProgramTables(data, size, &state->tables, &problem)) {
    Finding finding = internal::NewFinding(FindingKind::kNotAProgram);
    finding.message = problem;
    report->findings.push_back(std::move(finding));
    return;
  }
  state->checked = internal::CheckProgramTables(state->tables, options, compare, report);
}

// The checker allocates (strings, vectors); out of memory must still come
// back as a finding, not as an exception through a C++17 loader.
template <typename Check>
Report Guarded(Check check) noexcept {
  Report report;
  try {
    check(&report);
  } catch (const std::exception& e) {
    // Free what the check built, so the finding below has room.
    std::vector<Finding>().swap(report.findings);
    std::vector<MethodArenas>().swap(report.methods);
    std::vector<SharedBuffer>().swap(report.shared);
    report.completed = false;
    try {
      Finding finding = internal::NewFinding(FindingKind::kInternalError);
      finding.message = std::string("the check stopped: ") + e.what();
      report.findings.push_back(std::move(finding));
    } catch (...) {
      // Not even the finding fits: `completed` alone says it failed.
    }
  }
  return report;
}

}  // namespace

Report CheckProgram(const void* data, size_t size, const CheckOptions& options) noexcept {
  return Guarded([&](Report* report) {
    ProgramState state;
    ReadAndCheckProgram(data, size, options, internal::CompareLocation::kArenaAndOffset, &state,
                        report);
  });
}

Report CheckBindings(const void* data, size_t size, const CheckOptions& options,
                     const std::vector<MethodBinding>& bindings) noexcept {
  return Guarded([&](Report* report) {
    // Where a shared buffer lives is judged by its absolute address, so a
    // loader that compensates an offset with its binding is not refused.
    ProgramState state;
    ReadAndCheckProgram(data, size, options, internal::CompareLocation::kSizeOnly, &state, report);
    if (!report->readable()) return;
    const internal::CheckedProgram& checked = state.checked;
    internal::CheckBindingsCoverArenas(checked.methods, bindings, &report->findings);
    internal::CheckSharedAddresses(checked.methods, checked.groups, bindings, &report->findings);
  });
}

}  // namespace pteshare::runtime_check
