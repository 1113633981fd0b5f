// The entry points: find and verify the program, count it, lay the tables
// out in the caller's scratch, read the methods, then run the sharing rules
// and, for CheckBindings, the load-time rules.
#include "runtime_check/check.h"

#include "runtime_check/binding_check.h"
#include "runtime_check/locate_program.h"
#include "runtime_check/method_records.h"
#include "runtime_check/overlap_check.h"
#include "runtime_check/program_records.h"
#include "runtime_check/shared_groups.h"

namespace pteshare::runtime_check {

Severity SeverityOf(FindingKind kind) {
  switch (kind) {
    case FindingKind::kInitialStateInSeveralMethods:
    case FindingKind::kArenaNotSharedByModule:
    case FindingKind::kUnpairedState:
    case FindingKind::kArenaOnTwoDevices:
      return Severity::kWarning;
    default:
      return Severity::kError;
  }
}

const char* FindingKindName(FindingKind kind) {
  // In FindingKind's order.
  static constexpr const char* kNames[] = {
      "not_a_program",
      "internal_error",
      "scratch_too_small",
      "invalid_tensor",
      "invalid_memory_id",
      "invalid_arena_size",
      "past_arena_end",
      "shared_name_not_found",
      "invalid_name_assignment",
      "arena_mismatch",
      "offset_mismatch",
      "size_mismatch",
      "shape_mismatch",
      "device_mismatch",
      "overlap",
      "unproven_alias",
      "private_state_overlap",
      "unknown_method",
      "arena_not_bound",
      "binding_too_small",
      "address_mismatch",
      "initial_state_in_several_methods",
      "arena_not_shared_by_module",
      "unpaired_state",
      "arena_on_two_devices",
  };
  const auto index = static_cast<size_t>(kind);
  return index < sizeof kNames / sizeof kNames[0] ? kNames[index] : "unknown";
}

namespace core {

bool operator==(const Text& a, const Text& b) {
  return a.size == b.size && (a.size == 0 || __builtin_memcmp(a.data, b.data, a.size) == 0);
}

int32_t Shape::Size(uint32_t i) const { return wire::Load<int32_t>(sizes + 4 * uint64_t{i}); }

uint64_t MethodSummary::ArenaSize(uint32_t memory_id) const {
  if (memory_id == 0 || memory_id > arena_count) return 0;
  const int64_t size = wire::Load<int64_t>(arena_sizes + 8 * uint64_t{memory_id});
  return size < 0 ? 0 : static_cast<uint64_t>(size);
}

void Sink::OnFinding(const Finding&) {}
void Sink::OnMethod(const MethodSummary&) {}
void Sink::OnSharedBuffer(const SharedBufferSummary&) {}
void Sink::OnOccurrence(const Occurrence&) {}

namespace {

using internal::Findings;

// The rules' own reading failed after verification (only a budget can):
// the program is refused as if verification had failed.
bool ReadingFailed(const flat::Reader& reader, Findings& findings, Result* result) {
  if (reader.ok()) return false;
  Finding finding = internal::NewFinding(FindingKind::kNotAProgram);
  finding.reason = static_cast<uint8_t>(ReadFailure::kFlatbuffer);
  const flat::Problem& problem = reader.problem();
  finding.detail[0] = static_cast<uint64_t>(problem.rule);
  finding.detail[1] = problem.at;
  finding.detail[2] = problem.length;
  finding.detail[3] = problem.size;
  finding.detail_text = problem.what;
  findings.Add(finding);
  result->readable = false;
  return true;
}

Result Run(const void* data, size_t size, const Options& options,
           const internal::Bindings* bindings, Scratch scratch, Sink& sink) {
  Result result;
  Findings findings(sink, result);
  internal::LocatedProgram located;
  Finding failure;
  if (!internal::LocateProgram(data, size, &located, &failure)) {
    findings.Add(failure);
    result.readable = false;
    return result;
  }
  flat::Reader reader(located.bytes, located.size, internal::RulesReadingBudget(located.size));
  const internal::Counts counts = internal::CountProgram(reader, options);
  if (ReadingFailed(reader, findings, &result)) return result;

  internal::ScratchLayout layout(scratch.data, scratch.size);
  internal::Program program;
  internal::LayOut(counts, layout, &program);
  result.scratch_needed = layout.used();
  if (!layout.fits() && scratch.allocate != nullptr) {
    scratch.data = scratch.allocate(result.scratch_needed, scratch.context);
    scratch.size = scratch.data != nullptr ? result.scratch_needed : 0;
    layout = internal::ScratchLayout(scratch.data, scratch.size);
    internal::LayOut(counts, layout, &program);
  }
  const bool misaligned = reinterpret_cast<uintptr_t>(scratch.data) % 8 != 0;
  if (!layout.fits() || misaligned) {
    Finding finding = internal::NewFinding(FindingKind::kScratchTooSmall);
    finding.reason = layout.fits() && misaligned ? 1 : 0;
    finding.expected = layout.used();
    finding.actual = scratch.size;
    finding.detail[0] = reinterpret_cast<uintptr_t>(scratch.data);
    findings.Add(finding);
    result.completed = false;
    return result;
  }
  program.bytes = located.bytes;
  program.method_count = counts.methods;
  program.tensor_count = counts.tensors;

  internal::ReadMethods(reader, &program, findings);
  internal::ApplyValueNamings(options, &program, findings);
  internal::PairUnnamedState(reader, &program, findings);
  internal::CollectSharedGroups(options, &program, findings);
  const auto compare = bindings == nullptr ? internal::CompareLocation::kArenaAndOffset
                                           : internal::CompareLocation::kSizeOnly;
  internal::CheckSamePlacement(reader, program, compare, findings);
  internal::CheckArenaDevices(program, findings);
  internal::IndexByOffset(&program);
  internal::CheckNoOverlap(reader, &program, findings);
  internal::CheckPrivateState(&program, findings);
  internal::CheckSharingCaveats(program, findings);
  if (ReadingFailed(reader, findings, &result)) return result;
  internal::DescribeProgram(program, sink);
  if (bindings != nullptr) {
    internal::CheckBindingsCoverArenas(&program, *bindings, findings);
    internal::CheckSharedAddresses(program, *bindings, findings);
  }
  return result;
}

}  // namespace

size_t ScratchBytes(const void* program, size_t size, const Options& options) {
  internal::LocatedProgram located;
  Finding failure;
  if (!internal::LocateProgram(program, size, &located, &failure)) return 0;
  flat::Reader reader(located.bytes, located.size, internal::RulesReadingBudget(located.size));
  const internal::Counts counts = internal::CountProgram(reader, options);
  if (!reader.ok()) return 0;
  internal::ScratchLayout layout(nullptr, 0);
  internal::Program laid_out;
  internal::LayOut(counts, layout, &laid_out);
  return layout.used();
}

Result Check(const void* program, size_t size, const Options& options, Scratch scratch,
             Sink& sink) {
  return Run(program, size, options, nullptr, scratch, sink);
}

Result CheckBindings(const void* program, size_t size, const Options& options,
                     const MethodBinding* bindings, size_t binding_count, Scratch scratch,
                     Sink& sink) {
  const internal::Bindings bound{bindings, binding_count};
  return Run(program, size, options, &bound, scratch, sink);
}

}  // namespace core
}  // namespace pteshare::runtime_check
