// The lower bound of a block problem: no placement can use a smaller arena.
// The planner measures its overhead against it and stops searching when it
// reaches it.
#pragma once

#include <vector>

#include "rewriter/plan/blockplan/problem.h"

namespace pteshare {

/// The larger of
///  - the largest total size of blocks live at any one instant (a sweep over
///    lifespan ends and begins; fixed blocks count like the others), and
///  - the highest end (offset + size) of a fixed block, since a fixed block
///    cannot move down, and
///  - the largest block, live or not (every block must lie in the arena).
/// Alignment padding is not counted, so with alignment > 1 the bound may be
/// below the true optimum. Runs in O(n log n).
Bytes BlockLowerBound(const std::vector<Block>& blocks);

}  // namespace pteshare
