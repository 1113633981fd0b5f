#include "tools/report/inspect_report.h"

#include <algorithm>

#include "rewriter/plan/memory_cost.h"
#include "rewriter/program/program_contents.h"
#include "tools/report/bundle_report.h"
#include "tools/report/contents_report.h"
#include "tools/report/document.h"
#include "tools/report/json_writer.h"
#include "tools/report/numbers.h"
#include "tools/report/plan_json.h"

namespace pteshare::cli {

MethodSummary Summarize(const MethodView& method) {
  MethodSummary s;
  s.highest_end.assign(method.arenas.size(), 0);
  for (const TensorValue& t : method.tensors) {
    if (!t.planned) continue;
    ++s.planned;
    if (!t.stored.all()) ++s.missing_fields;
    uint32_t id = t.placement.memory_id;
    if (id >= 1 && id <= s.highest_end.size()) {
      s.highest_end[id - 1] = std::max(s.highest_end[id - 1], t.placement.end());
    }
  }
  return s;
}

std::string InspectJson(const std::string& path, const PteFile& file, const ProgramView& view) {
  const PteLayout& layout = view.layout;
  const ProgramContents contents = ReadProgramContents(*file.program(), view);
  JsonWriter json;
  BeginJsonDocument(json);
  WriteFileField(json, path);
  // For a bundle, the sizes and offsets below are those of its program.
  WriteBundleJson(json, file);
  json.Field("file_size", layout.file_size);
  json.Key("extended_header");
  if (layout.header.present) {
    json.BeginObject()
        .Field("length", layout.header.length)
        .Field("program_size", layout.header.program_size)
        .Field("segment_base_offset", layout.header.segment_base_offset);
    json.Key("segment_data_size");
    if (layout.header.has_segment_data_size) {
      json.Uint(layout.header.segment_data_size);
    } else {
      json.Null();
    }
    json.EndObject();
  } else {
    json.Null();
  }
  json.Field("program_size", layout.program_size);
  json.Field("slack", layout.slack());
  json.Key("segments").BeginArray();
  for (size_t i = 0; i < layout.segments.size(); ++i) {
    const SegmentExtent& s = layout.segments[i];
    json.BeginObject()
        .Field("offset", s.offset)
        .Field("size", s.size)
        .Field("file_offset", s.file_offset)
        .Key("holds");
    WriteSegmentUsesJson(json, contents.segment_uses[i]);
    json.EndObject();
  }
  json.EndArray();
  WriteProgramContentsJson(json, contents);
  json.Key("methods").BeginArray();
  for (size_t m = 0; m < view.methods.size(); ++m) {
    const MethodView& method = view.methods[m];
    MethodSummary s = Summarize(method);
    json.BeginObject()
        .Field("name", method.name)
        .Field("instructions", method.instruction_count)
        .Field("values", method.value_count)
        .Field("tensors", static_cast<uint64_t>(method.tensors.size()))
        .Field("planned_tensors", static_cast<uint64_t>(s.planned))
        .Field("tables_missing_fields", static_cast<uint64_t>(s.missing_fields));
    json.Key("arenas").BeginArray();
    for (const Arena& arena : method.arenas) {
      json.BeginObject()
          .Field("memory_id", arena.memory_id)
          .Field("size", arena.size)
          .Field("device", DeviceName(static_cast<int8_t>(arena.device), arena.device_index))
          .Field("highest_end", s.highest_end[arena.memory_id - 1])
          .EndObject();
    }
    json.EndArray();
    json.Key("mutable_buffers").BeginArray();
    for (const TensorValue& t : method.tensors) {
      if (!t.is_mutable_buffer()) continue;
      json.BeginObject().Field("value_index", t.value_index);
      json.Key("name");
      if (t.name.empty()) {
        json.Null();
      } else {
        json.String(t.name);
      }
      json.Field("memory_id", t.placement.memory_id)
          .Field("offset", t.placement.offset)
          .Field("nbytes", t.nbytes)
          .Field("initial_state", t.has_initial_state)
          .EndObject();
    }
    json.EndArray();
    WriteMethodContentsJson(json, contents.methods[m]);
    json.EndObject();
  }
  json.EndArray();
  // What the arenas cost as they stand (before == after).
  WriteMemoryJson(json, ComputeMemoryCost(ArenaSizes(view)));
  json.EndObject();
  return json.str();
}

}  // namespace pteshare::cli
