#include "tools/report/contents_report.h"

#include <set>

#include "tools/report/numbers.h"

namespace pteshare::cli {
namespace {

std::string KeyText(const std::string& key) { return key.empty() ? "(no name)" : key; }

/// "inline backend_delegate_data[0], 1,234 bytes" or why the size is not known.
std::string BlobText(const DelegateInfo& d) {
  const std::string index = std::to_string(d.location_index);
  switch (d.location) {
    case BlobLocation::kInline:
      return "inline backend_delegate_data[" + index + "], " +
             (d.blob_size ? Grouped(*d.blob_size) + " bytes" : "which the program does not have");
    case BlobLocation::kSegment:
      return "segment #" + index + ", " +
             (d.blob_size ? Grouped(*d.blob_size) + " bytes" : "which the program does not have");
    case BlobLocation::kUnknown:
      break;
  }
  return "blob location unknown (no processed data reference the schema knows)";
}

const char* LocationWord(BlobLocation location) {
  switch (location) {
    case BlobLocation::kInline:
      return "inline";
    case BlobLocation::kSegment:
      return "segment";
    case BlobLocation::kUnknown:
      break;
  }
  return nullptr;
}

const char* RoleWord(SegmentRole role) {
  switch (role) {
    case SegmentRole::kConstantData:
      return "constant_data";
    case SegmentRole::kMutableData:
      return "mutable_data";
    case SegmentRole::kDelegateBlob:
      return "delegate_blob";
    case SegmentRole::kNamedData:
      break;
  }
  return "named_data";
}

void WriteOptionalString(JsonWriter& json, std::string_view key, const std::string& value) {
  json.Key(key);
  if (value.empty()) {
    json.Null();
  } else {
    json.String(value);
  }
}

void WriteSegmentUse(JsonWriter& json, const SegmentUse& use) {
  json.BeginObject().Field("kind", RoleWord(use.role)).Field("segment_index", use.segment_index);
  switch (use.role) {
    case SegmentRole::kConstantData:
      json.Field("buffers", use.buffers());
      break;
    case SegmentRole::kMutableData:
      json.Field("index", use.index).Field("buffers", use.buffers());
      break;
    case SegmentRole::kDelegateBlob:
      json.Field("method", use.method).Field("delegate", use.index);
      WriteOptionalString(json, "backend", use.label);
      break;
    case SegmentRole::kNamedData:
      json.Field("index", use.index).Field("key", use.label);
      break;
  }
  json.EndObject();
}

}  // namespace

std::string OperatorsLine(const MethodContents& method) {
  if (method.kernel_calls == 0) return "operators: none";
  std::string line = "operators (" + Counted(method.operators.size(), "kind", "kinds") + ", " +
                     Counted(method.kernel_calls, "call", "calls") + "): ";
  for (size_t i = 0; i < method.operators.size() && i < kOperatorsShown; ++i) {
    const OperatorUse& op = method.operators[i];
    line += (i > 0 ? ", " : "") + op.FullName() + " x" + Grouped(op.calls);
  }
  if (method.operators.size() > kOperatorsShown) {
    line +=
        ", and " + Grouped(method.operators.size() - kOperatorsShown) + " more (--json lists all)";
  }
  if (method.calls_without_operator > 0) {
    line += (method.operators.empty() ? "" : "; ") + Grouped(method.calls_without_operator) +
            " with an op_index outside the operator table";
  }
  return line;
}

std::vector<std::string> DelegateLines(const MethodContents& method, const std::string& indent) {
  std::vector<std::string> lines;
  if (method.delegates.empty() && method.delegate_calls == 0) return lines;
  lines.push_back(indent + "delegates (" + Grouped(method.delegates.size()) + ", " +
                  Counted(method.delegate_calls, "call", "calls") + "):");
  for (const DelegateInfo& d : method.delegates) {
    lines.push_back(indent + "  #" + std::to_string(d.index) + " " +
                    (d.backend.empty() ? "(no backend id)" : d.backend) + ": " + BlobText(d) +
                    ", " + Counted(d.compile_spec_keys.size(), "compile spec", "compile specs") +
                    ", " + Counted(d.calls, "call", "calls"));
  }
  return lines;
}

std::string SegmentUseText(const std::vector<SegmentUse>& uses) {
  std::string text;
  for (const SegmentUse& use : uses) {
    if (!text.empty()) text += "; ";
    switch (use.role) {
      case SegmentRole::kConstantData:
        text += "constant data (" + Counted(use.buffers(), "buffer", "buffers") + ")";
        break;
      case SegmentRole::kMutableData:
        text += "initial state of mutable buffers (mutable_data_segments[" +
                std::to_string(use.index) + "], " + Counted(use.buffers(), "buffer", "buffers") +
                ")";
        break;
      case SegmentRole::kDelegateBlob:
        text += "blob of method " + use.method + "'s delegate #" + std::to_string(use.index) +
                " (" + (use.label.empty() ? "no backend id" : use.label) + ")";
        break;
      case SegmentRole::kNamedData:
        text += "named data '" + use.label + "'";
        break;
    }
  }
  return text;
}

std::string ExternalDataLine(const ProgramContents& contents) {
  const std::vector<ExternalKey>& keys = contents.external_keys;
  if (keys.empty()) return "";
  size_t planned = 0;
  for (const ExternalKey& key : keys) planned += key.planned ? 1 : 0;
  std::string line = "external data: " + Counted(keys.size(), "tensor", "tensors") + " (" +
                     Grouped(contents.external_bytes()) +
                     " bytes) by key from a .ptd data file given at load (ExecuTorch: "
                     "Module(model_path, data_path))";
  if (planned > 0) line += ", " + Grouped(planned) + " of them loaded into planned memory";
  line += "; keys: ";
  for (size_t i = 0; i < keys.size() && i < kKeysShown; ++i) {
    line += (i > 0 ? ", " : "") + KeyText(keys[i].key);
  }
  if (keys.size() > kKeysShown) {
    line += ", and " + Grouped(keys.size() - kKeysShown) + " more (--json lists all)";
  }
  return line;
}

std::string NamedDataLine(const ProgramContents& contents) {
  const std::vector<NamedDataEntry>& named = contents.named_data;
  if (named.empty()) return "";
  // Several keys may name one segment: its bytes count once.
  std::set<uint32_t> segments;
  uint64_t bytes = 0;
  for (const NamedDataEntry& entry : named) {
    if (entry.size && segments.insert(entry.segment_index).second) bytes += *entry.size;
  }
  return "named data: " + Counted(named.size(), "key", "keys") + " in " +
         Counted(segments.size(), "segment", "segments") + " (" + Grouped(bytes) +
         " bytes) that backends look up by key (the segments above say which)";
}

void WriteMethodContentsJson(JsonWriter& json, const MethodContents& method) {
  json.Field("kernel_calls", method.kernel_calls)
      .Field("calls_without_operator", method.calls_without_operator)
      .Field("delegate_calls", method.delegate_calls);
  json.Key("operators").BeginArray();
  for (const OperatorUse& op : method.operators) {
    json.BeginObject()
        .Field("name", op.FullName())
        .Field("operator", op.name)
        .Field("overload", op.overload)
        .Field("calls", op.calls)
        .EndObject();
  }
  json.EndArray();
  json.Key("delegates").BeginArray();
  for (const DelegateInfo& d : method.delegates) {
    json.BeginObject().Field("index", d.index);
    WriteOptionalString(json, "backend", d.backend);
    json.Key("location");
    if (const char* word = LocationWord(d.location)) {
      json.String(word);
    } else {
      json.Null();
    }
    json.Field("location_index", d.location_index).Key("blob_size");
    if (d.blob_size) {
      json.Uint(*d.blob_size);
    } else {
      json.Null();
    }
    json.Field("compile_specs", static_cast<uint64_t>(d.compile_spec_keys.size()));
    json.Key("compile_spec_keys").BeginArray();
    for (const std::string& key : d.compile_spec_keys) json.String(key);
    json.EndArray();
    json.Field("calls", d.calls).EndObject();
  }
  json.EndArray();
  json.Key("external_tensors").BeginArray();
  for (const ExternalTensor& t : method.external_tensors) {
    json.BeginObject().Field("value_index", t.value_index);
    WriteOptionalString(json, "key", t.key);
    json.Field("nbytes", t.nbytes).Field("planned", t.planned).EndObject();
  }
  json.EndArray();
}

void WriteSegmentUsesJson(JsonWriter& json, const std::vector<SegmentUse>& uses) {
  json.BeginArray();
  for (const SegmentUse& use : uses) WriteSegmentUse(json, use);
  json.EndArray();
}

void WriteProgramContentsJson(JsonWriter& json, const ProgramContents& contents) {
  json.Key("external_data").BeginObject();
  json.Field("tensors", static_cast<uint64_t>(contents.external_keys.size()))
      .Field("bytes", contents.external_bytes());
  json.Key("keys").BeginArray();
  for (const ExternalKey& key : contents.external_keys) {
    json.BeginObject();
    WriteOptionalString(json, "key", key.key);
    json.Field("nbytes", key.nbytes).Field("planned", key.planned);
    json.Key("methods").BeginArray();
    for (const std::string& method : key.methods) json.String(method);
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
  json.Key("named_data").BeginArray();
  for (const NamedDataEntry& entry : contents.named_data) {
    json.BeginObject().Field("key", entry.key).Field("segment_index", entry.segment_index);
    json.Key("size");
    if (entry.size) {
      json.Uint(*entry.size);
    } else {
      json.Null();
    }
    json.EndObject();
  }
  json.EndArray();
  json.Key("dangling_segment_references");
  WriteSegmentUsesJson(json, contents.dangling_segment_uses);
  json.Key("inline_constants")
      .BeginObject()
      .Field("buffers", contents.inline_constant_buffers)
      .Field("bytes", contents.inline_constant_bytes)
      .EndObject();
}

}  // namespace pteshare::cli
