// What `pteshare rewrite` reports of one rewrite: the counts its summary
// line gives and its --json document (the Python module's rewrite()
// returns the same).
#pragma once

#include <cstddef>
#include <string>

#include "rewriter/plan/plan.h"
#include "rewriter/rewrite.h"

namespace pteshare::cli {

/// Shared buffers the plan front-packs (`private_state`: the private
/// state's slots instead).
size_t SharedCount(const Plan& plan, bool private_state);
/// Planned tensors the plan moves, over every method.
size_t MovedCount(const Plan& plan);

/// The document `pteshare rewrite --json` prints for one input: `file` was
/// rewritten to `output`, or in place (`output` empty, "output": null).
/// Bytes in memory have no file: "file" and "output" are null.
std::string RewriteJson(const std::string& file, const std::string& output, bool in_place,
                        const RewriteOutcome& outcome);

}  // namespace pteshare::cli
