#include "tools/plot/plot_trace.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tools/report/json_writer.h"
#include "tools/report/numbers.h"

namespace pteshare::plot {
namespace {

using cli::JsonWriter;

const char* KindName(BoxKind kind) {
  switch (kind) {
    case BoxKind::kSharedBuffer:
      return "shared buffer";
    case BoxKind::kMutableBuffer:
      return "mutable buffer";
    case BoxKind::kTensor:
      break;
  }
  return "tensor";
}

/// A metadata event ("ph": "M") naming or ordering a process or a thread.
void Metadata(JsonWriter& json, const char* name, int64_t pid, int64_t tid, const char* key,
              const std::string* text, int64_t number) {
  json.BeginObject().Field("name", name).Field("ph", "M").Field("pid", pid).Field("tid", tid);
  json.Key("args").BeginObject();
  if (text != nullptr) {
    json.Field(key, *text);
  } else {
    json.Field(key, number);
  }
  json.EndObject().EndObject();
}

/// The track of each box: one per offset a box starts at, in offset order;
/// boxes at one offset whose live ranges overlap (aliases, in-place
/// results) get a track each, so that no track holds two events that
/// overlap in time (the format wants them nested or apart).
struct Tracks {
  std::vector<int64_t> of_box;    // tid, by box
  std::vector<std::string> name;  // by tid - 1
};

Tracks AssignTracks(const ArenaPanel& panel) {
  std::vector<size_t> order(panel.boxes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const TensorBox& x = panel.boxes[a];
    const TensorBox& y = panel.boxes[b];
    if (x.placement.offset != y.placement.offset) return x.placement.offset < y.placement.offset;
    return x.live.first < y.live.first;
  });
  Tracks tracks;
  tracks.of_box.assign(panel.boxes.size(), 0);
  // The tracks of the current offset: their tid and the last instruction
  // of their latest event.
  std::vector<std::pair<int64_t, int64_t>> open;
  uint64_t offset = 0;
  for (size_t i : order) {
    const TensorBox& box = panel.boxes[i];
    if (open.empty() || box.placement.offset != offset) {
      open.clear();
      offset = box.placement.offset;
    }
    auto free = std::find_if(open.begin(), open.end(),
                             [&](const auto& track) { return track.second < box.live.first; });
    if (free == open.end()) {
      tracks.name.push_back("offset " + cli::Grouped(offset) +
                            (open.empty() ? "" : " (" + std::to_string(open.size() + 1) + ")"));
      open.emplace_back(static_cast<int64_t>(tracks.name.size()), box.live.last);
      free = open.end() - 1;
    }
    free->second = box.live.last;
    tracks.of_box[i] = free->first;
  }
  return tracks;
}

/// One tensor's event.
void TensorEvent(JsonWriter& json, const ArenaRow& row, const ArenaPanel& panel,
                 const TensorBox& box, int64_t pid, int64_t tid) {
  json.BeginObject();
  json.Field("name", box.name.empty() ? "value " + std::to_string(box.value_index) : box.name);
  json.Field("cat", "memory_allocation");
  json.Field("ph", "X");
  json.Field("ts", box.live.first);
  json.Field("dur", box.live.last - box.live.first + 1);
  json.Field("pid", pid);
  json.Field("tid", tid);
  json.Key("args").BeginObject();
  // ExecuTorch's keys first, then ours.
  const FirstWrite& write = box.first_write;
  json.Field("op_name", write.kind == WriterKind::kInstruction ? write.op : write.Text());
  json.Field("Memory ID", row.memory_id);
  json.Field("fqn", box.name);
  json.Field("bytes", box.placement.nbytes);
  json.Field("offset", box.placement.offset);
  json.Field("end", box.placement.end());
  json.Field("shape", box.shape);
  json.Field("dtype", box.shape.substr(0, box.shape.find('[')));
  json.Field("value_index", box.value_index);
  json.Field("method", row.method);
  json.Field("layout", panel.after_plan ? "after" : "before");
  json.Field("kind", KindName(box.kind));
  if (write.kind == WriterKind::kInstruction) json.Field("first_write", write.instruction);
  json.Key("live").BeginArray().Int(box.live.first).Int(box.live.last).EndArray();
  if (panel.after_plan && box.moved) json.Field("offset_before", box.input_placement.offset);
  json.Field("moved_by_plan", box.moved);
  json.EndObject();
  json.EndObject();
}

void PanelEvents(JsonWriter& json, const ArenaRow& row, const ArenaPanel& panel, int64_t pid,
                 TraceStats& stats) {
  const std::string process = std::string(panel.after_plan ? "after" : "before") + ": " +
                              row.method + ", arena " + std::to_string(row.memory_id) + " (" +
                              row.device + "), " + cli::Grouped(panel.arena_size) + " bytes";
  Metadata(json, "process_name", pid, 0, "name", &process, 0);
  Metadata(json, "process_sort_index", pid, 0, "sort_index", nullptr, pid);
  const Tracks tracks = AssignTracks(panel);
  for (size_t t = 0; t < tracks.name.size(); ++t) {
    const int64_t tid = static_cast<int64_t>(t) + 1;
    Metadata(json, "thread_name", pid, tid, "name", &tracks.name[t], 0);
    Metadata(json, "thread_sort_index", pid, tid, "sort_index", nullptr, tid);
  }
  for (size_t i = 0; i < panel.boxes.size(); ++i) {
    TensorEvent(json, row, panel, panel.boxes[i], pid, tracks.of_box[i]);
  }
  ++stats.processes;
  stats.events += panel.boxes.size();
}

}  // namespace

std::string RenderTrace(const LayoutPicture& picture, const std::string& caption,
                        TraceStats* stats) {
  TraceStats counted;
  JsonWriter json;
  json.BeginObject();
  json.Key("traceEvents").BeginArray();
  for (size_t r = 0; r < picture.rows.size(); ++r) {
    const ArenaRow& row = picture.rows[r];
    const int64_t pid = 2 * static_cast<int64_t>(r) + 1;
    PanelEvents(json, row, row.before, pid, counted);
    if (row.after) PanelEvents(json, row, *row.after, pid + 1, counted);
  }
  json.EndArray();
  json.Key("otherData").BeginObject();
  json.Field("generator", "pteshare plot");
  json.Field("file", picture.title);
  json.Field("time",
             "1 us = one instruction: ts is a tensor's first instruction, dur how many "
             "it is live; one track per offset a tensor starts at");
  json.Field("plan", caption);
  json.EndObject();
  json.EndObject();
  if (stats != nullptr) *stats = counted;
  return json.str();
}

}  // namespace pteshare::plot
