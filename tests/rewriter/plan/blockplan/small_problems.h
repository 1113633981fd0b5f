// Small block problems for the planner's tests: named free blocks, random
// instances of a few blocks, and their exact optimum by brute force.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "rewriter/plan/blockplan/problem.h"

namespace pteshare {

/// The exact optimum of a tiny problem (alignment 1, nothing fixed): some
/// order of the blocks, each dropped to its lowest free offset, is optimal.
inline uint64_t ExhaustiveOptimum(const BlockProblem& problem) {
  const auto& blocks = problem.blocks;
  std::vector<size_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0);
  uint64_t best = UINT64_MAX;
  do {
    std::vector<uint64_t> offsets(blocks.size());
    uint64_t height = 0;
    for (size_t k = 0; k < order.size(); ++k) {
      const Block& block = blocks[order[k]];
      uint64_t offset = 0;
      for (bool moved = true; moved;) {
        moved = false;
        for (size_t p = 0; p < k; ++p) {
          const Block& other = blocks[order[p]];
          uint64_t other_offset = offsets[order[p]];
          bool same_time = block.lifespan.begin < other.lifespan.end &&
                           other.lifespan.begin < block.lifespan.end;
          if (same_time && offset < other_offset + other.size &&
              other_offset < offset + block.size) {
            offset = other_offset + other.size;
            moved = true;
          }
        }
      }
      offsets[order[k]] = offset;
      height = std::max(height, offset + block.size);
    }
    best = std::min(best, height);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

/// "b7" for 7 (built by appending: GCC 12 warns falsely on "b" + string).
inline std::string Name(int index) {
  std::string name = "b";
  name += std::to_string(index);
  return name;
}

inline Block Free(std::string id, TimeValue begin, TimeValue end, Bytes size) {
  return Block{std::move(id), {begin, end}, size, std::nullopt};
}

/// `count` free blocks beginning in [0, 8), live 1-6 instants, 1-9 bytes.
inline BlockProblem RandomSmallProblem(std::mt19937& random, int count) {
  BlockProblem problem;
  for (int i = 0; i < count; ++i) {
    TimeValue begin = random() % 8;
    TimeValue end = begin + 1 + random() % 6;
    problem.blocks.push_back(Free(Name(i), begin, end, 1 + random() % 9));
  }
  return problem;
}

/// 3,000 blocks, one beginning per instant (give or take two), live 1-48
/// instants, 16 B to 4 KiB, aligned to 16, over a fixed 4 KiB front live
/// throughout: large enough for the windowed search.
inline BlockProblem ChainOverAFront() {
  std::mt19937 random(23);
  BlockProblem problem;
  problem.alignment = 16;
  Block front = Free("front", 0, 3100, 4096);
  front.fixed_offset = 0;
  problem.blocks.push_back(front);
  for (int i = 0; i < 3000; ++i) {
    TimeValue begin = i + static_cast<TimeValue>(random() % 3);
    problem.blocks.push_back(
        Free(std::to_string(i), begin, begin + 1 + random() % 48, 16 + random() % 4000));
  }
  return problem;
}

}  // namespace pteshare
