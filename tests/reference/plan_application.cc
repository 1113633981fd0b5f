#include "tests/reference/plan_application.h"

#include <algorithm>

#include "rewriter/patch/patcher.h"
#include "rewriter/program/pte_layout.h"

namespace pteshare::reference {

std::map<std::string, PlacementOverrides> OverridesFromPlan(const Plan& plan) {
  std::map<std::string, PlacementOverrides> overrides;
  for (const MethodPlan& method : plan.methods) {
    PlacementOverrides& o = overrides[method.name];
    o.arena_sizes = method.arena_sizes_after;
    for (const TensorMove& move : method.moves) o.placements[move.value_index] = move.after;
  }
  return overrides;
}

Result<std::vector<uint8_t>> RewriteWithPatcher(std::span<const uint8_t> file,
                                                const ProgramView& view, const Plan& plan) {
  Result<PatchSet> patch = MakePatchSet(file, view, plan);
  if (!patch.ok()) return Error{"patcher: " + patch.error().message};
  // The writer's layout: the flatbuffer stays, the appended bytes follow it,
  // the segment data keeps its bytes and moves as a whole if it must.
  std::vector<uint8_t> out(patch->new_file_size, 0);
  if (!patch->segments_move()) {
    std::copy(file.begin(), file.end(), out.begin());
  } else {
    std::copy(file.begin(), file.begin() + patch->old_program_size, out.begin());
    std::copy(file.begin() + patch->old_segment_base_offset, file.end(),
              out.begin() + patch->new_segment_base_offset);
  }
  for (const ByteOverwrite& write : patch->AllWrites()) {
    if (write.end() > out.size()) {
      return Error{"patcher: write at " + std::to_string(write.offset) + " + " +
                   std::to_string(write.bytes.size()) + " bytes > new file size " +
                   std::to_string(out.size())};
    }
    std::copy(write.bytes.begin(), write.bytes.end(), out.begin() + write.offset);
  }
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(out, &program);
  if (!layout.ok()) return Error{"rewritten file does not read back: " + layout.error().message};
  return out;
}

}  // namespace pteshare::reference
