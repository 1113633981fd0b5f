// The trace `pteshare plot --trace OUT.json` writes (tools/plot/plot_trace.h),
// read back with a JSON reader: valid Trace Event Format (each event's
// required fields and their types by phase, every track named, no two
// events of a track overlapping in time), one event per planned tensor
// before and after, in ExecuTorch's memory-trace vocabulary; `-o OUT.json`
// writes the same bytes; method inputs are written first by the caller.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rewriter/open_program.h"
#include "tests/json_value.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using test_support::CommandOutput;
using test_support::JsonReader;
using test_support::JsonValue;
using test_support::ReadFileBytes;
using test_support::RunTool;
using test_support::TempDir;

std::string Synth(const TempDir& dir, const std::string& name, std::vector<std::string> args) {
  return test_support::SynthLlm(dir.path(), name, std::move(args));
}

/// Planned tensors over the methods, as `pteshare inspect --json` counts them.
size_t PlannedTensors(const std::string& file) {
  CommandOutput out = RunTool("pteshare", {"inspect", file, "--json"});
  EXPECT_EQ(out.exit_status, 0) << out.err;
  std::optional<JsonValue> inspect = JsonReader().Read(out.out);
  size_t planned = 0;
  if (!inspect) return planned;
  for (const JsonValue& method : inspect->find("methods")->items) {
    planned += static_cast<size_t>(method.find("planned_tensors")->number);
  }
  return planned;
}

/// `pteshare plot FILE ARGS --trace OUT` read back as JSON.
JsonValue TraceOf(const std::string& file, const std::filesystem::path& out,
                  std::vector<std::string> args = {}) {
  std::vector<std::string> command = {"plot", file, "--trace", out.string()};
  command.insert(command.end(), args.begin(), args.end());
  CommandOutput run = RunTool("pteshare", command);
  EXPECT_EQ(run.exit_status, 0) << run.err;
  JsonReader reader;
  std::optional<JsonValue> trace = reader.Read(ReadFileBytes(out));
  EXPECT_TRUE(trace.has_value()) << reader.error();
  return trace.value_or(JsonValue{});
}

/// What is wrong with `trace` as a Trace Event Format document (the JSON
/// object form): each event's required fields and their types by phase
/// (X: name, ph, ts, dur, pid, tid; M: name, ph, pid, tid, args), every
/// track named, and no two events of one track overlapping in time. Empty
/// when nothing is.
std::string TraceProblem(const JsonValue& trace) {
  using Type = JsonValue::Type;
  const JsonValue* events = trace.find("traceEvents");
  if (!trace.is(Type::kObject) || events == nullptr || !events->is(Type::kArray)) {
    return "no traceEvents array";
  }
  auto integer = [](const JsonValue* v) { return v && v->is(Type::kNumber) && v->integer; };
  std::set<std::pair<int64_t, int64_t>> named_threads;
  std::set<int64_t> named_processes;
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> spans;
  for (size_t i = 0; i < events->items.size(); ++i) {
    const JsonValue& e = events->items[i];
    const std::string at = "event " + std::to_string(i) + ": ";
    const JsonValue* ph = e.find("ph");
    const JsonValue* name = e.find("name");
    if (!ph || !ph->is(Type::kString)) return at + "ph is not a string";
    if (!name || !name->is(Type::kString)) return at + "name is not a string";
    if (!integer(e.find("pid")) || !integer(e.find("tid"))) return at + "pid, tid not integers";
    const auto track = std::pair{static_cast<int64_t>(e.find("pid")->number),
                                 static_cast<int64_t>(e.find("tid")->number)};
    if (ph->text == "M") {
      const JsonValue* args = e.find("args");
      if (!args || !args->is(Type::kObject)) return at + "metadata without args";
      if (name->text == "process_name") named_processes.insert(track.first);
      if (name->text == "thread_name") named_threads.insert(track);
      continue;
    }
    if (ph->text != "X") return at + "unexpected phase " + ph->text;
    if (!integer(e.find("ts")) || e.find("ts")->number < 0) return at + "ts is not a time";
    if (!integer(e.find("dur")) || e.find("dur")->number < 1) return at + "dur is not a span";
    spans[track].emplace_back(static_cast<int64_t>(e.find("ts")->number),
                              static_cast<int64_t>(e.find("dur")->number));
  }
  for (auto& [track, list] : spans) {
    const std::string where =
        "pid " + std::to_string(track.first) + " tid " + std::to_string(track.second);
    if (!named_processes.count(track.first)) return where + ": process not named";
    if (!named_threads.count(track)) return where + ": thread not named";
    std::sort(list.begin(), list.end());
    for (size_t i = 1; i < list.size(); ++i) {
      if (list[i].first < list[i - 1].first + list[i - 1].second) {
        return where + ": events overlap at " + std::to_string(list[i].first);
      }
    }
  }
  return "";
}

/// The tensor events ("ph": "X") of `trace`.
std::vector<const JsonValue*> TensorEvents(const JsonValue& trace) {
  std::vector<const JsonValue*> events;
  for (const JsonValue& e : trace.find("traceEvents")->items) {
    if (e.find("ph")->text == "X") events.push_back(&e);
  }
  return events;
}

TEST(PlotTrace, IsValidTraceEventFormatWithEveryPlannedTensor) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2", "--named"});
  const size_t planned = PlannedTensors(file);
  for (const bool share : {false, true}) {
    SCOPED_TRACE(share ? "--share-auto" : "no flag");
    const std::vector<std::string> args =
        share ? std::vector<std::string>{"--share-auto"} : std::vector<std::string>{};
    const JsonValue trace = TraceOf(file, dir / "trace.json", args);
    EXPECT_EQ(TraceProblem(trace), "");
    // Before and after (the plan changes both methods), one event per
    // planned tensor in each, in ExecuTorch's vocabulary.
    size_t before = 0, after = 0, shared = 0;
    for (const JsonValue* e : TensorEvents(trace)) {
      const JsonValue& args_of = *e->find("args");
      (args_of.find("layout")->text == "after" ? after : before) += 1;
      shared += args_of.find("kind")->text == "shared buffer" ? 1 : 0;
      EXPECT_EQ(e->find("cat")->text, "memory_allocation");
      for (const char* key : {"op_name", "fqn", "shape", "dtype", "method"}) {
        ASSERT_TRUE(args_of.find(key) && args_of.find(key)->is(JsonValue::Type::kString)) << key;
      }
      for (const char* key : {"Memory ID", "bytes", "offset", "value_index"}) {
        ASSERT_TRUE(args_of.find(key) && args_of.find(key)->integer) << key;
      }
      EXPECT_EQ(args_of.find("shape")->text.rfind(args_of.find("dtype")->text + "[", 0), 0u);
      EXPECT_EQ(args_of.find("fqn")->text.empty(), e->find("name")->text.rfind("value ", 0) == 0);
    }
    EXPECT_EQ(before, planned);
    EXPECT_EQ(after, planned);
    // 2 layers x (k, v) caches in 2 methods, before and after.
    EXPECT_EQ(shared, share ? 16u : 0u);
  }
  // -o with .json writes the same trace.
  const std::filesystem::path by_extension = dir / "by-extension.json";
  ASSERT_EQ(RunTool("pteshare", {"plot", file, "-o", by_extension.string()}).exit_status, 0);
  ASSERT_EQ(RunTool("pteshare", {"plot", file, "--trace", (dir / "t.json").string()}).exit_status,
            0);
  EXPECT_EQ(ReadFileBytes(by_extension), ReadFileBytes(dir / "t.json"));
}

TEST(PlotTrace, NamesTheMethodInputsAsTheirFirstWriter) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "1"});
  const JsonValue trace = TraceOf(file, dir / "trace.json");
  Result<OpenedProgram> opened = OpenProgram(file);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  size_t inputs = 0;
  for (const JsonValue* e : TensorEvents(trace)) {
    const JsonValue& args = *e->find("args");
    const MethodView* method = opened->view.method(args.find("method")->text);
    ASSERT_NE(method, nullptr);
    const int32_t value = static_cast<int32_t>(args.find("value_index")->number);
    const bool input =
        std::find(method->inputs.begin(), method->inputs.end(), value) != method->inputs.end();
    EXPECT_EQ(args.find("op_name")->text == "input", input) << value;
    inputs += input ? 1 : 0;
  }
  EXPECT_GT(inputs, 0u);
}

}  // namespace
}  // namespace pteshare
