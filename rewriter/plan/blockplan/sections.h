// The sweep before the search: which blocks are live together, as time
// sections, after MiniMalloc's sweeper.
//
// A section is the set of blocks live just before some block's lifespan ends
// (a new section starts only at an end that follows a begin), so every
// section is a maximal set of blocks live at one instant. Checking only these
// sections is as strong as checking every instant (any instant's live set is
// inside one of them) and takes a fraction of the work.
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/plan/blockplan/problem.h"

namespace pteshare {

/// A byte range [begin, end) taken by a fixed block.
struct FixedSpan {
  Offset begin;
  Offset end;
};

/// The free blocks of a problem and the sections they are live in.
/// Invariant: a free block b is live in exactly the sections
/// [section_begin[b], section_end[b]), and that range is never empty.
struct BlockSections {
  /// Free blocks that occupy memory (local index b -> problem index).
  std::vector<uint32_t> free;
  std::vector<uint32_t> section_begin, section_end;  // per free block
  /// Free blocks live alongside each free block.
  std::vector<std::vector<uint32_t>> conflicts;
  /// Fixed blocks live alongside each free block, sorted by begin.
  std::vector<std::vector<FixedSpan>> obstacles;
  /// Free blocks live in each section.
  std::vector<std::vector<uint32_t>> members;
  /// Fixed blocks live in each section.
  std::vector<std::vector<FixedSpan>> fixed;

  size_t section_count() const { return members.size(); }
};

/// Sweeps `problem` (valid, see ValidateBlockProblem) in O(n log n + output).
BlockSections SweepBlocks(const BlockProblem& problem);

}  // namespace pteshare
