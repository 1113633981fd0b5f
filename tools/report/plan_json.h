// The plan report as JSON: `pteshare plan --json`, the "plan" object of
// `pteshare rewrite --json`, and the Python module's plan().
#pragma once

#include <string>

#include "rewriter/plan/memory_cost.h"
#include "rewriter/program/pte_file.h"
#include "rewriter/rewrite.h"
#include "tools/report/json_writer.h"

namespace pteshare::cli {

/// The device of arena `id` of a method, or (an arena the method does not
/// have) of the state arena `front` the plan adds.
std::string ArenaDevice(const MethodView& method, const FrontRegion* front, uint32_t id);

/// The plan as JSON members of an already open object.
void WritePlanJson(JsonWriter& json, const ProgramView& view, const VerifiedPlan& verified);
/// `"memory": {...}` as a member of an open object.
void WriteMemoryJson(JsonWriter& json, const MemoryCost& cost);

/// The document `pteshare plan --json` prints for `file` (empty: bytes in
/// memory, "file": null).
std::string PlanJson(const std::string& file, const PteFile& pte, const ProgramView& view,
                     const VerifiedPlan& verified);

}  // namespace pteshare::cli
