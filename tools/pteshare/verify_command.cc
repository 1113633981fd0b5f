// `pteshare verify FILE [--share NAME...] [--share-auto] [--name M:V=N] [--json]`:
// runs runtime_check's program-level check on the placements in the file:
// every shared buffer has one placement in every method, nothing else
// overlaps it, everything fits its arena. Without --share options every
// named buffer found in two or more methods is checked.
//
// Exit status: 0 clean (warnings allowed), 1 findings, 2 bad input.
//
// --json prints (keys always present, in this order):
//   { "file", "ok", "summary", "errors", "warnings",
//     "methods":  [{ "name", "planned_tensors", "arenas": [{ "memory_id", "size" }] }],
//     "shared":   [{ "name", "memory_id", "offset", "nbytes", "methods": [..],
//                    "initial_state_in": [..] }],
//     "findings": [{ "kind", "severity", "method"|null, "value_index"|null, "name"|null,
//                    "placement": { "memory_id", "offset", "nbytes" }|null,
//                    "reference": { "method", "value_index"|null, "memory_id", "offset",
//                                   "nbytes" }|null,
//                    "expected", "actual", "message" }] }
// `kind` is runtime_check::FindingKindName; expected/actual mean what
// alias_check.h says for that kind.
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "rewriter/pte_file.h"
#include "runtime_check/alias_check.h"
#include "tools/pteshare/bundle_report.h"
#include "tools/pteshare/commands.h"
#include "tools/pteshare/exit_codes.h"
#include "tools/pteshare/json_document.h"
#include "tools/pteshare/json_writer.h"
#include "tools/pteshare/open_input.h"
#include "tools/pteshare/output.h"
#include "tools/pteshare/plan_report.h"
#include "tools/pteshare/share_options.h"

namespace pteshare::cli {
namespace {

namespace rc = runtime_check;

struct VerifyArgs {
  std::string file;
  ShareOptions share;
  bool json = false;
};

// --share names, plus with --share-auto every name the automatic choice
// finds (an empty list asks the checker for that choice alone).
std::vector<std::string> SharedNames(const ShareOptions& share, const PteFile& file,
                                     const std::vector<rc::NameAssignment>& names) {
  std::set<std::string> chosen(share.share.begin(), share.share.end());
  if (share.share_auto && !chosen.empty()) {
    rc::CheckOptions automatic;
    automatic.extra_names = names;
    rc::Report found = rc::CheckProgram(file.bytes().data(), file.bytes().size(), automatic);
    for (const rc::SharedBuffer& buffer : found.shared) chosen.insert(buffer.name);
  }
  return {chosen.begin(), chosen.end()};
}

void PrintText(const std::string& path, const rc::Report& report) {
  std::printf("%s: %zu method%s, %zu shared buffer%s\n", path.c_str(), report.methods.size(),
              report.methods.size() == 1 ? "" : "s", report.shared.size(),
              report.shared.size() == 1 ? "" : "s");
  for (const rc::SharedBuffer& shared : report.shared) {
    std::string methods;
    for (const std::string& m : shared.methods) methods += (methods.empty() ? "" : ", ") + m;
    std::printf("  %s: arena %u offset %s, %s bytes, in %s%s\n", shared.name.c_str(),
                shared.placement.memory_id, Grouped(shared.placement.offset).c_str(),
                Grouped(shared.placement.nbytes).c_str(), methods.c_str(),
                shared.paired ? " (unnamed state, paired by position)" : "");
  }
  for (const rc::Finding& finding : report.findings) {
    if (finding.severity == rc::Severity::kError) {
      std::printf("  error: %s\n", finding.message.c_str());
    }
  }
  // Warnings of one kind say the same thing for every buffer (a 32-layer
  // model has 64 caches): print the first, then count the rest.
  std::map<rc::FindingKind, std::vector<const rc::Finding*>> warnings;
  for (const rc::Finding& finding : report.findings) {
    if (finding.severity != rc::Severity::kError) warnings[finding.kind].push_back(&finding);
  }
  for (const auto& [kind, alike] : warnings) {
    std::printf("  warning: %s\n", alike.front()->message.c_str());
    if (alike.size() > 1) {
      std::printf("           and %zu more like it (%s%s)\n", alike.size() - 1,
                  alike[1]->name.c_str(), alike.size() > 2 ? ", ..." : "");
    }
  }
  std::printf("%s: %s\n", path.c_str(), report.Summary().c_str());
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

void PrintJson(const std::string& path, const PteFile& file, const rc::Report& report) {
  JsonWriter json;
  BeginJsonDocument(json);
  json.Field("file", path)
      .Field("ok", report.ok())
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
  PrintJsonDocument(json.str());
}

int RunVerify(const VerifyArgs& args) {
  Result<std::vector<NameAssignment>> parsed = args.share.ParsedNames();
  if (!parsed.ok()) {
    PrintError(parsed.error().message);
    return kExitBadInput;
  }
  std::optional<OpenedProgram> opened = OpenInput(args.file);
  if (!opened) return kExitBadInput;
  const PteFile* file = &opened->file;
  rc::CheckOptions options;
  for (const NameAssignment& a : *parsed) {
    options.extra_names.push_back({a.method, a.value_index, a.name});
  }
  options.shared_names = SharedNames(args.share, *file, options.extra_names);

  const rc::Report report = rc::CheckProgram(file->bytes().data(), file->bytes().size(), options);
  if (!report.readable() || !report.completed) {
    PrintFileError(args.file, Error{report.findings.empty() ? report.Summary()
                                                            : report.findings.front().message});
    return kExitBadInput;
  }
  if (args.json) {
    PrintJson(args.file, *file, report);
  } else {
    std::fputs(BundleLine(args.file, *file).c_str(), stdout);
    PrintText(args.file, report);
  }
  return report.ok() ? kExitOk : kExitFindings;
}

}  // namespace

void AddVerify(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<VerifyArgs>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Check that shared buffers have one placement (arena, offset, size) in every method, that "
      "no other tensor of any method overlaps them, and that every tensor fits its arena. "
      "Without --share/--share-auto, every named buffer in two or more methods is checked, and "
      "unnamed state paired by position (paired_state.K). A tensor inside a shared buffer passes "
      "only as an alias the program shows (never written, or written only by instructions that "
      "take the buffer). Exit 0 clean (warnings allowed), 1 findings, 2 unreadable input.\n"
      "Example: pteshare verify llm-shared.pte\n"
      "         pteshare verify llm.pte --name prefill:22=k0 --name decode:22=k0 --share k0 "
      "--json");
  cmd->add_option("FILE", args->file, "The .pte file, or a .bpte bundle (its program is checked)")
      ->required();
  args->share.AddTo(cmd);
  cmd->add_flag("--json", args->json, "Print the report as JSON (shape in the README)");
  cmd->callback([args, &exit_status] { exit_status = RunVerify(*args); });
}

}  // namespace pteshare::cli
