// The memory planner ExecuTorch's exporter runs by default ("greedy" in
// exir/memory_planning.py), re-done in C++ so fixtures get the placements a
// real export would give them:
//
//  1. sizes are rounded up to `alignment`; tensors are taken by size,
//     largest first (ties: lower request index first);
//  2. a tensor goes at offset 0 of the first bucket none of whose tenants'
//     lifetimes overlap its own;
//  3. otherwise into the first bucket where it fits when stacked right
//     above the highest tenant whose lifetime overlaps it (only when that
//     height is > 0, as in ET);
//  4. otherwise into a new bucket of exactly its size;
//  5. buckets are laid end to end in creation order; the arena is their sum.
// A zero-byte tensor therefore lands at offset 0 of some bucket or on top
// of a live tenant, inside other tensors' ranges, as ET places them.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/synth/value_lifetimes.h"

namespace pteshare::synth {

/// One tensor to place in one arena.
struct GreedyRequest {
  uint64_t nbytes = 0;  // unaligned; the planner rounds it up
  Lifetime lifetime;
};

/// offsets[i] is the byte offset of requests[i]; arena_size is the sum of
/// all bucket sizes (a multiple of the alignment).
struct GreedyPlan {
  std::vector<uint64_t> offsets;
  uint64_t arena_size = 0;
};

/// Places `requests` in one arena. `alignment` must be a power of two > 0.
GreedyPlan PlanGreedy(const std::vector<GreedyRequest>& requests, uint64_t alignment);

}  // namespace pteshare::synth
