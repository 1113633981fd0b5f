// Front regions: each arena's shared buffers packed at its start in
// sorted-name order, each slot aligned, identical in every method.
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare {

/// The plan alignment found in the input: the largest power of two, at
/// least 16 and at most 4096, dividing every planned offset of a non-empty
/// tensor in any method. (Zero-byte tensors are left out: the exporter puts
/// them anywhere.)
uint64_t DetectAlignment(const ProgramView& view);

/// The largest power of two dividing `offset`, at most 4096 (0 gives 4096):
/// the alignment a tensor at that offset has.
inline uint64_t OffsetAlignment(uint64_t offset) {
  constexpr uint64_t kMaximum = 4096;
  if (offset == 0) return kMaximum;
  const uint64_t divides = offset & (~offset + 1);
  return divides < kMaximum ? divides : kMaximum;
}

inline uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// A method uses an arena when it gives it memory or plans a non-empty
/// tensor in it; only then must it keep that arena's front region free.
bool UsesArena(const MethodView& method, uint32_t memory_id);

/// Adds `buffer`'s slot after the region's last one: aligned, nbytes
/// rounded up to the alignment (the region's size grows by that).
void AppendSlot(const SharedBuffer& buffer, uint64_t alignment, FrontRegion* region);

/// One FrontRegion per arena that holds a shared buffer, in memory_id
/// order; slots in sorted-name order (the order of `shared`).
std::vector<FrontRegion> LayOutFrontRegions(const SharedBufferSet& shared, uint64_t alignment);

/// A shared buffer's slot and the region (front or state arena) holding it.
struct BufferSlot {
  const FrontSlot* slot = nullptr;  // nullptr: no region has a slot for it
  const FrontRegion* region = nullptr;
};

/// Per buffer of `shared` (same index), its slot: the first in region and
/// slot order with the buffer's name and arena (FrontSlot::source_memory_id).
/// Found once by a map, so the strategies never compare names per tensor.
std::vector<BufferSlot> FindBufferSlots(const SharedBufferSet& shared,
                                        const std::vector<FrontRegion>& fronts);

}  // namespace pteshare
