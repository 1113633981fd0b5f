// What a plan means in ExecuTorch's own words, for whoever writes the
// loader: planned buffer i (MethodMeta::memory_planned_buffer_size(i)) is
// pteshare's arena i+1 (memory_id i+1, entry i+1 of non_const_buffer_sizes);
// the sizes of one set of buffers to allocate once for every method; and
// whether Module(share_memory_arenas=true) can run the result (it shares
// planned buffers 0 and 1, on the CPU only: schema/loader_facts.h).
#pragma once

#include <string>

#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"
#include "tools/report/json_writer.h"

namespace pteshare::cli {

/// Whether Module(share_memory_arenas=true) gives the plan's shared
/// buffers one memory in every method, and if not, why.
struct ModuleVerdict {
  bool runs = true;
  std::string why;  // one sentence, either way
};

ModuleVerdict ModuleSharing(const ProgramView& view, const Plan& plan);

/// The lines of the section, each starting with `indent`.
std::string RuntimeTermsText(const ProgramView& view, const Plan& plan, const std::string& indent);

/// `"executorch": {...}` as a member of an open object.
void WriteRuntimeTermsJson(JsonWriter& json, const ProgramView& view, const Plan& plan);

}  // namespace pteshare::cli
