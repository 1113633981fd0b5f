#include "rewriter/plan/front_region.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace pteshare {

uint64_t DetectAlignment(const ProgramView& view) {
  constexpr uint64_t kMinimum = 16, kMaximum = 4096;
  uint64_t alignment = kMaximum;
  for (const MethodView& method : view.methods) {
    for (const TensorValue& t : method.tensors) {
      if (!t.planned || t.nbytes == 0 || t.placement.offset == 0) continue;
      alignment = std::min(alignment, OffsetAlignment(t.placement.offset));
    }
  }
  return alignment < kMinimum ? kMinimum : alignment;
}

bool UsesArena(const MethodView& method, uint32_t memory_id) {
  const Arena* arena = method.arena(memory_id);
  if (arena == nullptr) return false;
  if (arena->size > 0) return true;
  return std::any_of(method.tensors.begin(), method.tensors.end(), [&](const TensorValue& t) {
    return t.planned && t.nbytes > 0 && t.placement.memory_id == memory_id;
  });
}

void AppendSlot(const SharedBuffer& buffer, uint64_t alignment, FrontRegion* region) {
  FrontSlot slot;
  slot.name = buffer.name;
  slot.source_memory_id = buffer.memory_id;
  slot.offset = region->size;  // region->size stays a multiple of the alignment
  slot.nbytes = buffer.nbytes;
  slot.slot_bytes = AlignUp(buffer.nbytes, alignment);
  slot.private_state = buffer.private_state;
  region->size += slot.slot_bytes;
  region->slots.push_back(std::move(slot));
}

std::vector<FrontRegion> LayOutFrontRegions(const SharedBufferSet& shared, uint64_t alignment) {
  std::map<uint32_t, FrontRegion> by_arena;
  for (const SharedBuffer& buffer : shared.buffers) {  // sorted by name
    FrontRegion& front = by_arena[buffer.memory_id];
    front.memory_id = buffer.memory_id;
    AppendSlot(buffer, alignment, &front);
  }
  std::vector<FrontRegion> fronts;
  for (auto& [id, front] : by_arena) fronts.push_back(std::move(front));
  return fronts;
}

std::vector<BufferSlot> FindBufferSlots(const SharedBufferSet& shared,
                                        const std::vector<FrontRegion>& fronts) {
  std::map<std::pair<uint32_t, std::string_view>, BufferSlot> by_key;
  for (const FrontRegion& f : fronts) {
    for (const FrontSlot& s : f.slots)
      by_key.try_emplace({s.source_memory_id, s.name}, BufferSlot{&s, &f});
  }
  std::vector<BufferSlot> slots;
  slots.reserve(shared.buffers.size());
  for (const SharedBuffer& b : shared.buffers) {
    auto it = by_key.find({b.memory_id, b.name});
    slots.push_back(it != by_key.end() ? it->second : BufferSlot{});
  }
  return slots;
}

}  // namespace pteshare
