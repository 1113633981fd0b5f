#include "rewriter/patch/rewrite_check.h"

#include <string>

#include "program_generated.h"
#include "rewriter/program/program_view.h"

namespace pteshare {
namespace {

std::string N(uint64_t v) { return std::to_string(v); }

Status CheckLayout(const PteLayout& after, const PteLayout& before, const PatchSet& patch) {
  if (after.file_size != patch.new_file_size) {
    return Error{"the file is " + N(after.file_size) + " bytes, expected " +
                 N(patch.new_file_size)};
  }
  if (after.program_size != patch.new_program_size) {
    return Error{"program_size is " + N(after.program_size) + ", expected " +
                 N(patch.new_program_size)};
  }
  if (after.segment_base_offset != patch.new_segment_base_offset) {
    return Error{"segment_base_offset is " + N(after.segment_base_offset) + ", expected " +
                 N(patch.new_segment_base_offset)};
  }
  if (after.segment_bytes() != before.segment_bytes() ||
      after.segments.size() != before.segments.size()) {
    return Error{"the segments changed: " + N(after.segments.size()) + " segments of " +
                 N(after.segment_bytes()) + " bytes, expected " + N(before.segments.size()) +
                 " of " + N(before.segment_bytes())};
  }
  for (size_t i = 0; i < after.segments.size(); ++i) {
    const SegmentExtent& a = after.segments[i];
    const SegmentExtent& b = before.segments[i];
    if (a.offset != b.offset || a.size != b.size ||
        a.file_offset != b.file_offset + patch.segment_shift()) {
      return Error{"segment " + N(i) + " is at file offset " + N(a.file_offset) + " (" + N(a.size) +
                   " bytes), expected " + N(b.file_offset + patch.segment_shift()) + " (" +
                   N(b.size) + " bytes)"};
    }
  }
  return Status::Ok();
}

Status CheckMethod(const MethodView& method, const MethodPlan& plan) {
  if (method.arenas.size() != plan.arena_sizes_after.size()) {
    return Error{"method " + method.name + " has " + N(method.arenas.size()) +
                 " arenas, the plan " + N(plan.arena_sizes_after.size())};
  }
  for (size_t i = 0; i < method.arenas.size(); ++i) {
    if (method.arenas[i].size != plan.arena_sizes_after[i]) {
      return Error{"method " + method.name + ": arena " + N(i + 1) + " is " +
                   N(method.arenas[i].size) + " bytes, the plan says " +
                   N(plan.arena_sizes_after[i])};
    }
  }
  for (const TensorMove& move : plan.moves) {
    const TensorValue* tensor = method.tensor(move.value_index);
    if (tensor == nullptr || !tensor->planned) {
      return Error{ValueLabel(method.name, move.value_index) + " is no longer a planned tensor"};
    }
    const Placement& p = tensor->placement;
    if (p.memory_id != move.after.memory_id || p.offset != move.after.offset ||
        p.nbytes != move.after.nbytes) {
      return Error{ValueLabel(method.name, move.value_index) + ": arena " + N(p.memory_id) +
                   " offset " + N(p.offset) + " (" + N(p.nbytes) + " bytes), the plan says arena " +
                   N(move.after.memory_id) + " offset " + N(move.after.offset) + " (" +
                   N(move.after.nbytes) + " bytes)"};
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckRewrittenFile(std::span<const uint8_t> bytes, const PteLayout& before,
                          const PatchSet& patch, const Plan& plan) {
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(bytes, &program);
  if (!layout.ok())
    return Error{"the rewritten file does not read back: " + layout.error().message};
  Status layout_ok = CheckLayout(*layout, before, patch);
  if (!layout_ok.ok()) return Error{"the rewritten file: " + layout_ok.error().message};
  Result<ProgramView> view = ReadProgramView(*program, *layout, ViewEffects::kSkip);
  if (!view.ok()) return Error{"the rewritten file does not read back: " + view.error().message};
  if (view->methods.size() != plan.methods.size()) {
    return Error{"the rewritten file has " + N(view->methods.size()) + " methods, the plan " +
                 N(plan.methods.size())};
  }
  for (const MethodPlan& m : plan.methods) {
    Status method_ok = CheckMethod(view->methods[m.method_index], m);
    if (!method_ok.ok()) return Error{"the rewritten file: " + method_ok.error().message};
    // A state arena (Layout::kArena) is on its device in every method.
    for (const FrontRegion& f : plan.fronts) {
      const Arena* arena =
          f.state_arena ? view->methods[m.method_index].arena(f.memory_id) : nullptr;
      if (arena != nullptr &&
          (arena->device != f.device || arena->device_index != f.device_index)) {
        return Error{"the rewritten file: method " + m.name + ": state arena " + N(f.memory_id) +
                     " is on device type " + N(static_cast<uint64_t>(arena->device)) +
                     ", the plan says " + N(static_cast<uint64_t>(f.device))};
      }
    }
  }
  return Status::Ok();
}

}  // namespace pteshare
