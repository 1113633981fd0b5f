// ValidateBlockSolution: is a placement a valid answer to its problem?
//
// Checks every rule of problem.h, sharing no code with the planner (as
// MiniMalloc's validator.h does): every block has an offset, fixed blocks sit
// at their fixed offsets, every other block is aligned, the height is what the
// blocks reach and fits the capacity, and no two blocks live at the same time
// share a byte. `pteshare pack` checks every plan it prints with it, the
// planner checks its own result in debug builds (!NDEBUG), and the fuzzers
// check every plan a short search returns.
//
// O(n log n): a sweep over time keeps the live blocks ordered by offset, so a
// block entering is compared only with its neighbours there.
#pragma once

#include "rewriter/base/result.h"
#include "rewriter/plan/blockplan/problem.h"

namespace pteshare {

/// Ok, or the first rule `solution` breaks, naming the blocks and numbers.
Status ValidateBlockSolution(const BlockProblem& problem, const BlockSolution& solution);

}  // namespace pteshare
