#include "tools/report/plan_json.h"

#include "tools/report/bundle_report.h"
#include "tools/report/document.h"
#include "tools/report/numbers.h"
#include "tools/report/runtime_terms.h"
#include "tools/report/saving_text.h"

namespace pteshare::cli {
namespace {

void WriteLayoutCostsJson(JsonWriter& json, const VerifiedPlan& verified) {
  json.Key("layouts").BeginArray();
  for (const LayoutCost& c : verified.layouts) {
    json.BeginObject()
        .Field("layout", LayoutName(c.layout))
        .Field("chosen", c.layout == verified.planned.plan.layout);
    json.Key("state_arenas").BeginArray();
    for (const FrontRegion& f : c.state_arenas) json.Uint(f.memory_id);
    json.EndArray();
    if (c.memory) {
      WriteMemoryJson(json, *c.memory);
      json.Key("refused").Null();
    } else {
      json.Key("memory").Null();
      json.Field("refused", c.refused);
    }
    json.EndObject();
  }
  json.EndArray();
}

}  // namespace

std::string ArenaDevice(const MethodView& method, const FrontRegion* front, uint32_t id) {
  if (const Arena* arena = method.arena(id)) {
    return DeviceName(static_cast<int8_t>(arena->device), arena->device_index);
  }
  if (front != nullptr) return DeviceName(static_cast<int8_t>(front->device), front->device_index);
  return DeviceName(0, 0);  // an empty arena before a state arena
}

void WriteMemoryJson(JsonWriter& json, const MemoryCost& cost) {
  auto fields = [&](const ArenaCost& a) {
    json.Field("one_set_before", a.one_set_before)
        .Field("one_set_after", a.one_set_after)
        .Field("separate_before", a.separate_before)
        .Field("separate_after", a.separate_after);
  };
  json.Key("memory").BeginObject();
  json.Key("arenas").BeginArray();
  for (const ArenaCost& a : cost.arenas) {
    json.BeginObject().Field("memory_id", a.memory_id);
    fields(a);
    json.EndObject();
  }
  json.EndArray();
  json.Key("total").BeginObject();
  fields(cost.total);
  json.EndObject().EndObject();
}

void WritePlanJson(JsonWriter& json, const ProgramView& view, const VerifiedPlan& verified) {
  const Plan& plan = verified.planned.plan;
  const SharedBufferSet& shared = verified.planned.shared;
  WriteSavingJson(json, verified.saving);
  json.Field("strategy", StrategyName(plan.strategy))
      .Field("layout", LayoutName(plan.layout))
      .Field("alignment", plan.alignment);
  json.Key("pairs").BeginArray();
  for (const StatePairing& pairing : shared.pairings) {
    // position_name: the name is paired_state.K, made up (no name in the
    // program, none given).
    json.BeginObject()
        .Field("name", pairing.name)
        .Field("position", pairing.position)
        .Field("position_name", pairing.position_name)
        .Field("shape", pairing.shape);
    json.Field("memory_id", pairing.memory_id).Key("values").BeginArray();
    for (const auto& [method, value] : pairing.values) {
      json.BeginObject()
          .Field("method", view.methods[method].name)
          .Field("value_index", value)
          .EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray();
  json.Key("nothing_to_share");
  if (plan.nothing_to_share.empty()) {
    json.Null();
  } else {
    json.String(plan.nothing_to_share);
  }
  json.Key("fronts").BeginArray();
  for (const FrontRegion& f : plan.fronts) {
    json.BeginObject()
        .Field("memory_id", f.memory_id)
        .Field("size", f.size)
        .Field("state_arena", f.state_arena)
        .Field("device", DeviceName(static_cast<int8_t>(f.device), f.device_index));
    json.Key("slots").BeginArray();
    for (const FrontSlot& s : f.slots) {
      json.BeginObject()
          .Field("name", s.name)
          .Field("from_memory_id", s.source_memory_id)
          .Field("offset", s.offset)
          .Field("nbytes", s.nbytes)
          .EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray();
  json.Key("methods").BeginArray();
  for (const MethodPlan& m : plan.methods) {
    json.BeginObject()
        .Field("name", m.name)
        .Field("planned_tensors", static_cast<uint64_t>(m.moves.size()))
        .Field("moved_tensors", static_cast<uint64_t>(m.moved_count()));
    json.Key("arenas").BeginArray();
    for (size_t i = 0; i < m.arena_sizes_after.size(); ++i) {
      const uint32_t id = static_cast<uint32_t>(i + 1);
      const FrontRegion* f = plan.front(id);
      json.BeginObject()
          .Field("memory_id", id)
          .Field("device", ArenaDevice(view.methods[m.method_index], f, id))
          .Field("new", i >= m.arena_sizes_before.size())
          .Field("size_before", i < m.arena_sizes_before.size() ? m.arena_sizes_before[i] : 0)
          .Field("size_after", m.arena_sizes_after[i])
          .Field("front", f ? f->size : uint64_t{0});
      if (i < m.arena_strategies.size())
        json.Field("strategy", StrategyName(m.arena_strategies[i]));
      if (i < m.arena_lower_bounds.size()) json.Field("lower_bound", m.arena_lower_bounds[i]);
      if (i < m.arena_sizes_relocate.size()) json.Field("size_relocate", m.arena_sizes_relocate[i]);
      if (i < m.arena_sizes_replan.size()) {
        json.Key("size_replan");
        if (m.arena_sizes_replan[i]) {
          json.Uint(*m.arena_sizes_replan[i]);
        } else {
          json.Null();
        }
      }
      json.EndObject();
    }
    json.EndArray();
    json.Key("shared").BeginArray();
    for (const SharedBuffer& b : shared.buffers) {
      const auto& value = b.value_in_method[m.method_index];
      if (!value) continue;
      if (const TensorMove* move = m.Find(*value)) {
        json.BeginObject()
            .Field("name", b.name)
            .Field("private_state", b.private_state)
            .Field("value_index", *value)
            .Field("memory_id", move->after.memory_id)
            .Field("offset_before", move->before.offset)
            .Field("offset_after", move->after.offset)
            .Field("nbytes", move->after.nbytes)
            .EndObject();
      }
    }
    json.EndArray().EndObject();
  }
  json.EndArray();
  WriteMemoryJson(json, ComputeMemoryCost(plan));
  WriteRuntimeTermsJson(json, view, plan);
  WriteLayoutCostsJson(json, verified);
  json.Key("warnings").BeginArray();
  for (const std::string& w : plan.warnings) json.String(w);
  json.EndArray();
  json.Field("verified", verified.verified());
  json.Key("violations").BeginArray();
  for (const PlanViolation& v : verified.violations) {
    json.BeginObject()
        .Field("invariant", InvariantName(v.invariant))
        .Field("message", v.message)
        .EndObject();
  }
  json.EndArray();
}

std::string PlanJson(const std::string& file, const PteFile& pte, const ProgramView& view,
                     const VerifiedPlan& verified) {
  JsonWriter json;
  BeginJsonDocument(json);
  WriteFileField(json, file);
  WriteBundleJson(json, pte);
  WritePlanJson(json, view, verified);
  json.EndObject();
  return json.str();
}

}  // namespace pteshare::cli
