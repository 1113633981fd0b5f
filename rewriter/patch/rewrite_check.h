// CheckRewrittenFile: the writer's last word before it lets a rewrite stand.
// It re-reads the written bytes with the full reader (ReadPteLayout, which
// runs the FlatBuffers verifier, then ReadProgramView) and confirms that
// every placement and arena size is what the plan says and that the layout
// is what the PatchSet promised, with the segments where they belong. It
// shares nothing with the patcher but the plain data it checks.
#pragma once

#include <span>

#include "rewriter/base/result.h"
#include "rewriter/patch/patcher.h"
#include "rewriter/plan/plan.h"
#include "rewriter/program/pte_layout.h"

namespace pteshare {

/// `bytes`: the whole rewritten file. `before`: the input's layout.
Status CheckRewrittenFile(std::span<const uint8_t> bytes, const PteLayout& before,
                          const PatchSet& patch, const Plan& plan);

}  // namespace pteshare
