// Block problems as CSV, the format of MiniMalloc's benchmarks:
//
//   id,lower,upper,size          one block per row, live over [lower, upper)
//   b1,0,3,4
//
// Columns are found by their header name, in any order. An optional `offset`
// column pre-places a block (a non-empty cell fixes it there); this is also
// the column the writer adds, so a written plan read back is fully fixed.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "rewriter/base/result.h"
#include "rewriter/plan/blockplan/problem.h"

namespace pteshare {

/// Parses CSV text. Errors name the line (1-based) and what is wrong with it:
/// "line 4: size '-3' is not a non-negative integer".
Result<BlockProblem> ParseBlockCsv(std::string_view text);

/// Reads and parses a file; an unreadable file gives "cannot read: <reason>".
Result<BlockProblem> ReadBlockCsvFile(const std::filesystem::path& path);

/// `id,lower,upper,size,offset`, one row per block in problem order.
std::string FormatBlockCsv(const BlockProblem& problem, const BlockSolution& solution);

}  // namespace pteshare
