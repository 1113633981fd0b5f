// The block placement problem in plain types, before any algorithm.
//
// Given blocks, each live over a half-open span of instruction time and needing
// a number of bytes, give every block an offset in one arena so that two blocks
// live at the same time never share a byte. Some blocks may be pre-placed (for
// example the front region every method of a program reserves for its shared
// buffers): they keep their offset, and no other block may overlap them while
// both are live. The goal is the smallest arena (the solution's height); a
// problem may also carry a capacity that the arena must not exceed.
//
// This is the problem MiniMalloc (Moffitt, ASPLOS 2024) states as
// Buffer/Problem/Solution; the planner, its lower bound, the CSV reader and the
// `pteshare pack` command all speak these types, so the planner can be tested
// and benchmarked without a program around it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pteshare {

/// A byte position in an arena (0 = its start).
using Offset = uint64_t;
/// A number of bytes (block sizes, arena sizes, capacities).
using Bytes = uint64_t;
/// A point in instruction time (the index of an instruction in a method).
using TimeValue = int64_t;

/// When a block is live: the half-open range [begin, end). A block with
/// begin == end is never live and conflicts with nothing.
struct Lifespan {
  TimeValue begin = 0;
  TimeValue end = 0;
};

/// True when two lifespans share an instant (half-open: [0,3) and [3,9) don't;
/// an empty lifespan shares none).
inline bool LifespansOverlap(const Lifespan& a, const Lifespan& b) {
  return a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end;
}

/// One piece of memory to place.
struct Block {
  /// Names the block in messages and CSV rows; the planner does not read it.
  std::string id;
  Lifespan lifespan;
  /// Bytes the block occupies: [offset, offset + size). A zero-size block
  /// occupies nothing and conflicts with nothing.
  Bytes size = 0;
  /// Set for a pre-placed block: the planner keeps it here (it need not be
  /// aligned) and keeps every other block off it while both are live.
  std::optional<Offset> fixed_offset;
};

/// How high `block` reaches when placed at `offset`: offset + size, and 0
/// for an empty block, wherever it is (it occupies nothing). Every height the
/// planner computes (greedy, search, windows, lower bound) is the largest of
/// these; validator.h states the same rule on its own, as it shares no code
/// with the planner.
inline Bytes ReachOf(const Block& block, Offset offset) {
  return block.size > 0 ? offset + block.size : 0;
}

/// `value` rounded up / down to a multiple of `alignment` (a power of two).
inline Bytes RoundUpToAlignment(Bytes value, Bytes alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}
inline Bytes RoundDownToAlignment(Bytes value, Bytes alignment) { return value & ~(alignment - 1); }

/// A whole instance. Invariant (checked by the planner, reported as an error):
/// fixed blocks never overlap each other while live.
struct BlockProblem {
  std::vector<Block> blocks;
  /// Every offset the planner chooses is a multiple of this power of two
  /// (1 for `pteshare pack`, 16 for ExecuTorch programs).
  Bytes alignment = 1;
  /// When set, the arena may not be larger than this many bytes.
  std::optional<Bytes> capacity;
};

/// A placement: offsets[i] is where problem.blocks[i] starts.
struct BlockSolution {
  std::vector<Offset> offsets;
  /// The arena size the placement needs: the highest offset + size over all
  /// blocks (0 when every block is empty).
  Bytes height = 0;
};

}  // namespace pteshare
