#include "tools/report/runtime_terms.h"

#include <algorithm>

#include "rewriter/plan/memory_cost.h"
#include "rewriter/plan/state_arena.h"
#include "schema/loader_facts.h"
#include "tools/report/numbers.h"
#include "tools/report/plan_json.h"

namespace pteshare::cli {
namespace {

// "[0] 311,808, [1] 2,097,152": a method's planned buffer sizes.
std::string BufferSizes(const std::vector<uint64_t>& sizes) {
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i) {
    text += (i == 0 ? "[" : ", [") + std::to_string(i) + "] " + Grouped(sizes[i]);
  }
  return text.empty() ? "none" : text;
}

std::string PlannedBuffer(uint32_t memory_id) {
  return "planned buffer " + std::to_string(memory_id - 1) + " (arena " +
         std::to_string(memory_id) + ")";
}

// The device of arena `memory_id`: the first method's that has it, or the
// state arena's the plan adds.
std::string OneSetDevice(const ProgramView& view, const Plan& plan, uint32_t memory_id) {
  const MethodView* holder = &view.methods[0];
  for (const MethodView& method : view.methods) {
    if (method.arena(memory_id) != nullptr) {
      holder = &method;
      break;
    }
  }
  return ArenaDevice(*holder, plan.front(memory_id), memory_id);
}

}  // namespace

ModuleVerdict ModuleSharing(const ProgramView& view, const Plan& plan) {
  for (const MethodPlan& m : plan.methods) {
    const MethodView& method = view.methods[m.method_index];
    if (PlansNothing(method)) continue;
    for (size_t i = 0; i < m.arena_sizes_after.size(); ++i) {
      const uint32_t id = static_cast<uint32_t>(i + 1);
      const std::string device = ArenaDevice(method, plan.front(id), id);
      if (device != "CPU") {
        return {false,
                "Module(share_memory_arenas=true) refuses to share when a method has an "
                "arena off the CPU (" +
                    PlannedBuffer(id) + " of " + m.name + " is on " + device +
                    "): give every method the same memory through your own "
                    "HierarchicalAllocator"};
      }
    }
  }
  for (const FrontRegion& f : plan.fronts) {
    if (loader::ModuleLeavesArenaUnshared(f.memory_id)) {
      return {false,
              "Module(share_memory_arenas=true) shares planned buffers 0 and 1 only, and "
              "the shared buffers are in " +
                  PlannedBuffer(f.memory_id) +
                  ": give every method the same Span for it through your own "
                  "HierarchicalAllocator"};
    }
  }
  return {true, plan.fronts.empty()
                    ? "Module(share_memory_arenas=true) can run it with one set of planned "
                      "buffers"
                    : "Module(share_memory_arenas=true) runs it: it gives every method the same "
                      "planned buffers 0 and 1, where the shared buffers are"};
}

std::string RuntimeTermsText(const ProgramView& view, const Plan& plan, const std::string& indent) {
  std::string text = indent +
                     "in ExecuTorch's terms (planned buffer i is arena i+1 here; sizes are "
                     "MethodMeta::memory_planned_buffer_size(i) after the plan):\n";
  size_t width = 0;
  for (const MethodPlan& m : plan.methods) {
    if (!PlansNothing(view.methods[m.method_index])) width = std::max(width, m.name.size());
  }
  for (const MethodPlan& m : plan.methods) {
    if (PlansNothing(view.methods[m.method_index])) continue;
    text += indent + "  " + m.name + std::string(width - m.name.size(), ' ') + "  " +
            BufferSizes(m.arena_sizes_after) +
            (m.arena_sizes_after == m.arena_sizes_before
                 ? " (unchanged)"
                 : " (was " + BufferSizes(m.arena_sizes_before) + ")") +
            "\n";
  }
  const MemoryCost cost = ComputeMemoryCost(plan);
  std::string spans;
  for (const ArenaCost& a : cost.arenas) {
    const std::string device = OneSetDevice(view, plan, a.memory_id);
    spans += (spans.empty() ? "" : ", ") + PlannedBuffer(a.memory_id) + " " +
             Grouped(a.one_set_after) + " bytes (" + device + ")";
  }
  // One method that plans memory shares with nobody: its buffers, no more.
  const size_t planning = static_cast<size_t>(std::count_if(
      plan.methods.begin(), plan.methods.end(),
      [&](const MethodPlan& m) { return !PlansNothing(view.methods[m.method_index]); }));
  if (!spans.empty() && planning <= 1) {
    text += indent + "  allocate " + spans + "\n";
    return text;
  }
  if (!spans.empty()) {
    text += indent + "  one set for every method: allocate " + spans +
            " once, and hand the same spans to every method's HierarchicalAllocator\n";
  }
  text += indent + "  " + ModuleSharing(view, plan).why + "\n";
  return text;
}

void WriteRuntimeTermsJson(JsonWriter& json, const ProgramView& view, const Plan& plan) {
  json.Key("executorch").BeginObject();
  json.Key("methods").BeginArray();
  for (const MethodPlan& m : plan.methods) {
    json.BeginObject().Field("name", m.name);
    json.Key("memory_planned_buffer_sizes").BeginArray();
    for (uint64_t size : m.arena_sizes_after) json.Uint(size);
    json.EndArray();
    json.Key("memory_planned_buffer_sizes_before").BeginArray();
    for (uint64_t size : m.arena_sizes_before) json.Uint(size);
    json.EndArray().EndObject();
  }
  json.EndArray();
  json.Key("one_set").BeginArray();
  for (const ArenaCost& a : ComputeMemoryCost(plan).arenas) {
    json.BeginObject()
        .Field("planned_buffer", a.memory_id - 1)
        .Field("memory_id", a.memory_id)
        .Field("bytes", a.one_set_after)
        .Field("device", OneSetDevice(view, plan, a.memory_id))
        .EndObject();
  }
  json.EndArray();
  const ModuleVerdict module = ModuleSharing(view, plan);
  json.Key("module_share_memory_arenas")
      .BeginObject()
      .Field("runs", module.runs)
      .Field("why", module.why)
      .EndObject();
  json.EndObject();
}

}  // namespace pteshare::cli
