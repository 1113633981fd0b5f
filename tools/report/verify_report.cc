#include "tools/report/verify_report.h"

#include <set>

#include "rewriter/plan/memory_cost.h"
#include "tools/report/bundle_report.h"
#include "tools/report/document.h"
#include "tools/report/json_writer.h"
#include "tools/report/plan_json.h"

namespace pteshare::cli {
namespace {

namespace rc = runtime_check;

// --share names, plus with --share-auto every name the automatic choice
// finds (an empty list asks the checker for that choice alone).
std::vector<std::string> SharedNames(const ShareRequest& share, const PteFile& file,
                                     const std::vector<rc::ValueNaming>& names) {
  std::set<std::string> chosen(share.names.begin(), share.names.end());
  if (share.share_auto && !chosen.empty()) {
    rc::CheckOptions automatic;
    automatic.extra_names = names;
    rc::Report found = rc::CheckProgram(file.bytes().data(), file.bytes().size(), automatic);
    for (const rc::SharedBuffer& buffer : found.shared) chosen.insert(buffer.name);
  }
  return {chosen.begin(), chosen.end()};
}

void OptionalString(JsonWriter& json, const char* key, const std::string& value) {
  json.Key(key);
  if (value.empty()) {
    json.Null();
  } else {
    json.String(value);
  }
}

void OptionalIndex(JsonWriter& json, const char* key, int64_t value_index) {
  json.Key(key);
  if (value_index == rc::kNoValue) {
    json.Null();
  } else {
    json.Int(value_index);
  }
}

void PrintFinding(JsonWriter& json, const rc::Finding& f) {
  json.BeginObject()
      .Field("kind", rc::FindingKindName(f.kind))
      .Field("severity", f.severity == rc::Severity::kError ? "error" : "warning");
  OptionalString(json, "method", f.method);
  OptionalIndex(json, "value_index", f.value_index);
  OptionalString(json, "name", f.name);
  json.Key("placement");
  if (f.placement.memory_id == 0) {
    json.Null();
  } else {
    json.BeginObject()
        .Field("memory_id", f.placement.memory_id)
        .Field("offset", f.placement.offset)
        .Field("nbytes", f.placement.nbytes)
        .EndObject();
  }
  json.Key("reference");
  if (f.reference_method.empty()) {
    json.Null();
  } else {
    json.BeginObject().Field("method", f.reference_method);
    OptionalIndex(json, "value_index", f.reference_value_index);
    json.Field("memory_id", f.reference.memory_id)
        .Field("offset", f.reference.offset)
        .Field("nbytes", f.reference.nbytes)
        .EndObject();
  }
  json.Field("expected", f.expected).Field("actual", f.actual).Field("message", f.message);
  json.EndObject();
}

}  // namespace

Result<rc::Report> CheckForVerify(const OpenedProgram& program, const ShareRequest& share) {
  const PteFile& file = program.file;
  // The checker names values only: a pair named by position is named as
  // its values, paired by the rewriter's own rule.
  Result<std::vector<ValueNaming>> namings = NamingsByValue(program.view, share.namings);
  if (!namings.ok()) return namings.error();
  rc::CheckOptions options;
  for (const ValueNaming& a : *namings) {
    options.extra_names.push_back({a.method, a.value_index, a.name});
  }
  options.shared_names = SharedNames(share, file, options.extra_names);
  rc::Report report = rc::CheckProgram(file.bytes().data(), file.bytes().size(), options);
  if (!report.readable() || !report.completed) {
    return Error{report.findings.empty() ? report.Summary() : report.findings.front().message};
  }
  return report;
}

std::string VerifyJson(const std::string& path, const PteFile& file, const rc::Report& report) {
  JsonWriter json;
  BeginJsonDocument(json);
  WriteFileField(json, path);
  json.Field("ok", report.ok())
      .Field("summary", report.Summary())
      .Field("errors", static_cast<uint64_t>(report.error_count()))
      .Field("warnings", static_cast<uint64_t>(report.warning_count()));
  WriteBundleJson(json, file);
  json.Key("methods").BeginArray();
  for (const rc::MethodArenas& method : report.methods) {
    json.BeginObject().Field("name", method.name).Field("planned_tensors", method.planned_tensors);
    json.Key("arenas").BeginArray();
    for (size_t i = 0; i < method.arena_sizes.size(); ++i) {
      json.BeginObject()
          .Field("memory_id", static_cast<uint64_t>(i + 1))
          .Field("size", method.arena_sizes[i])
          .EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray();
  json.Key("shared").BeginArray();
  for (const rc::SharedBuffer& shared : report.shared) {
    json.BeginObject()
        .Field("name", shared.name)
        .Field("paired", shared.paired)
        .Field("memory_id", shared.placement.memory_id)
        .Field("offset", shared.placement.offset)
        .Field("nbytes", shared.placement.nbytes);
    json.Key("methods").BeginArray();
    for (const std::string& m : shared.methods) json.String(m);
    json.EndArray();
    json.Key("initial_state_in").BeginArray();
    for (const std::string& m : shared.methods_with_initial_state) json.String(m);
    json.EndArray().EndObject();
  }
  json.EndArray();
  std::vector<std::vector<uint64_t>> arena_sizes;
  for (const rc::MethodArenas& method : report.methods) arena_sizes.push_back(method.arena_sizes);
  WriteMemoryJson(json, ComputeMemoryCost(arena_sizes));
  json.Key("findings").BeginArray();
  for (const rc::Finding& finding : report.findings) PrintFinding(json, finding);
  json.EndArray().EndObject();
  return json.str();
}

}  // namespace pteshare::cli
