#include "tools/report/rewrite_report.h"

#include <optional>

#include "tools/report/document.h"
#include "tools/report/json_writer.h"
#include "tools/report/plan_json.h"
#include "tools/report/saving_text.h"

namespace pteshare::cli {

size_t SharedCount(const Plan& plan, bool private_state) {
  size_t n = 0;
  for (const FrontRegion& f : plan.fronts) {
    n += private_state ? f.private_slots() : f.slots.size() - f.private_slots();
  }
  return n;
}

size_t MovedCount(const Plan& plan) {
  size_t n = 0;
  for (const MethodPlan& m : plan.methods) n += m.moved_count();
  return n;
}

std::string RewriteJson(const std::string& file, const std::string& output, bool in_place,
                        const RewriteOutcome& outcome) {
  const ProgramView& view = outcome.program.view;
  const std::optional<BundleInfo>& bundle = outcome.program.file.bundle();
  const Plan& plan = outcome.plan.planned.plan;
  const PatchSet& patch = outcome.patch;
  const uint64_t bundle_size_after = outcome.bundle_size_after;
  JsonWriter json;
  BeginJsonDocument(json);
  WriteFileField(json, file);
  json.Key("output");
  if (output.empty()) {
    json.Null();
  } else {
    json.String(output);
  }
  WriteSavingJson(json, outcome.plan.saving);
  json.Field("in_place", in_place)
      .Field("changed", !patch.empty())
      .Field("shared_buffers", static_cast<uint64_t>(SharedCount(plan, false)))
      .Field("private_state_buffers", static_cast<uint64_t>(SharedCount(plan, true)))
      .Field("moved_tensors", static_cast<uint64_t>(MovedCount(plan)))
      .Field("bytes_appended", static_cast<uint64_t>(patch.appended.size()))
      .Field("tables_appended", static_cast<uint64_t>(patch.tables_appended))
      .Field("tensors_repointed", static_cast<uint64_t>(patch.tensors_repointed))
      .Field("fields_overwritten", static_cast<uint64_t>(patch.fields_overwritten))
      .Field("arena_sizes_changed", static_cast<uint64_t>(patch.arena_sizes_changed))
      .Field("arena_vectors_appended", static_cast<uint64_t>(patch.arena_vectors_appended))
      .Field("names_written", static_cast<uint64_t>(patch.names_written))
      .Field("segments_moved", patch.segments_move())
      .Field("segment_shift", patch.segment_shift())
      .Field("program_size_before", patch.old_program_size)
      .Field("program_size_after", patch.new_program_size)
      .Field("file_size_before", patch.old_file_size)
      .Field("file_size_after", patch.new_file_size);
  // For a bundle the sizes above are its program's; the bundle's are here.
  json.Key("bundle");
  if (bundle) {
    json.BeginObject()
        .Field("bundle_size_before", bundle->file_size)
        .Field("bundle_size_after", bundle_size_after)
        .Field("test_suites", bundle->test_suites)
        .Field("test_cases", bundle->test_cases)
        .EndObject();
  } else {
    json.Null();
  }
  json.Key("plan").BeginObject();
  WritePlanJson(json, view, outcome.plan);
  json.EndObject().EndObject();
  return json.str();
}

}  // namespace pteshare::cli
