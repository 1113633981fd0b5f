// Two independent ways to give the reference executor a rewritten program:
//  - RewriteWithPatcher: the real thing. The project's patcher turns the
//    plan into byte patches, applied in memory exactly as the writer lays
//    them out on disk; the executor then reads the new bytes with the
//    reader like any other file. This is the end-to-end proof.
//  - OverridesFromPlan: the plan's placements and arena sizes handed to the
//    executor directly, bypassing the bytes. If the two ever disagree, the
//    patcher (or the reader) lost something the plan said.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"
#include "tests/reference/reference_executor.h"

namespace pteshare::reference {

/// Per method name: the plan's placement of every planned tensor and the
/// new arena sizes.
std::map<std::string, PlacementOverrides> OverridesFromPlan(const Plan& plan);

/// The rewritten file: MakePatchSet on `file` (which `view` was read from),
/// applied in memory, re-read and verified by ReadPteLayout.
Result<std::vector<uint8_t>> RewriteWithPatcher(std::span<const uint8_t> file,
                                                const ProgramView& view, const Plan& plan);

}  // namespace pteshare::reference
