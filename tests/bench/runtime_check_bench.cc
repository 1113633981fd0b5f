// What the load-time check costs on the host: runtime_check::CheckProgram
// (runtime_check/alias_check.h) with default options, on programs already in
// memory, as a loader holds them (8-byte aligned, the whole file). Only the
// check is timed; reading the files is done once, before.
//  - largest: the largest corpus program (by file size) that the checker
//    reads (Report::readable()); the label names the file. Most of a large
//    file is weights, which the checker never reads, so no bytes per second.
//  - most_tensors: the readable program with the most planned tensors (all
//    methods), the most work for the sharing rules; the label names it.
//  - corpus: every readable corpus program (the ET12 rows of
//    ../shared/corpus/MANIFEST.tsv) checked once per iteration.
// Each also as core::Check (runtime_check/check.h), what a loader on a
// microcontroller calls: the scratch sized once with ScratchBytes (not
// timed) and reused, findings to a sink that keeps nothing, no heap. The ratio of the
// two is what the host Report (strings, vectors) costs on top.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime_check/alias_check.h"
#include "runtime_check/check.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

/// One corpus file in memory: the bytes in 64-bit words, so the data is
/// 8-byte aligned as CheckProgram asks.
struct LoadedProgram {
  std::string file;  // the name in ../shared/corpus
  std::vector<uint64_t> words;
  size_t size = 0;  // bytes of the file
  size_t methods = 0;
  uint64_t planned_tensors = 0;  // all methods
  size_t errors = 0;             // error findings of one check

  const void* data() const { return words.data(); }
};

runtime_check::Report Check(const LoadedProgram& program) {
  return runtime_check::CheckProgram(program.data(), program.size, {});
}

/// Every corpus program the checker reads, sorted by name.
std::vector<LoadedProgram> LoadReadablePrograms() {
  std::vector<LoadedProgram> programs;
  for (const test_support::ManifestRow& row : test_support::CorpusProgramRows()) {
    const std::string bytes = test_support::ReadFileBytes(test_support::CorpusPath(row));
    LoadedProgram program;
    program.file = row.file;
    program.size = bytes.size();
    program.words.resize((bytes.size() + sizeof(uint64_t) - 1) / sizeof(uint64_t));
    std::memcpy(program.words.data(), bytes.data(), bytes.size());
    const runtime_check::Report report = Check(program);
    if (!report.readable()) continue;
    program.methods = report.methods.size();
    for (const runtime_check::MethodArenas& method : report.methods) {
      program.planned_tensors += method.planned_tensors;
    }
    program.errors = report.error_count();
    programs.push_back(std::move(program));
  }
  std::sort(programs.begin(), programs.end(),
            [](const LoadedProgram& a, const LoadedProgram& b) { return a.file < b.file; });
  return programs;
}

const std::vector<LoadedProgram>& ReadablePrograms() {
  static const std::vector<LoadedProgram> programs = LoadReadablePrograms();
  return programs;
}

/// Which API a benchmark times.
enum class Api { kReport, kCore };

// A sink that counts and keeps nothing, as a loader that only wants ok().
struct CountingSink : runtime_check::core::Sink {
  uint64_t findings = 0;
  void OnFinding(const runtime_check::core::Finding&) override { ++findings; }
};

// A scratch as large as `programs` need (a loader's static buffer, sized
// once from ScratchBytes: not timed).
std::vector<uint64_t> ScratchFor(const std::vector<const LoadedProgram*>& programs) {
  size_t needed = 0;
  for (const LoadedProgram* program : programs) {
    needed =
        std::max(needed, runtime_check::core::ScratchBytes(program->data(), program->size, {}));
  }
  return std::vector<uint64_t>(needed / 8 + 1);
}

// Checks `program` through core::Check in `scratch`.
runtime_check::core::Result CoreCheck(const LoadedProgram& program,
                                      std::vector<uint64_t>& scratch) {
  CountingSink sink;
  return runtime_check::core::Check(program.data(), program.size, {},
                                    {scratch.data(), scratch.size() * 8}, sink);
}

// Times the check of `program`, its counters and label.
void CheckOne(benchmark::State& state, const LoadedProgram& program, Api api) {
  std::vector<uint64_t> scratch = ScratchFor({&program});
  for (auto _ : state) {
    if (api == Api::kCore) {
      runtime_check::core::Result result = CoreCheck(program, scratch);
      benchmark::DoNotOptimize(result);
    } else {
      runtime_check::Report report = Check(program);
      benchmark::DoNotOptimize(report);
    }
  }
  if (api == Api::kCore) state.counters["scratch_bytes"] = static_cast<double>(scratch.size() * 8);
  state.SetLabel(program.file);
  state.counters["file_bytes"] = static_cast<double>(program.size);
  state.counters["methods"] = static_cast<double>(program.methods);
  state.counters["planned_tensors"] = static_cast<double>(program.planned_tensors);
  state.counters["errors"] = static_cast<double>(program.errors);
}

void BM_Largest(benchmark::State& state, Api api) {
  const std::vector<LoadedProgram>& programs = ReadablePrograms();
  if (programs.empty()) return state.SkipWithError("no readable program in ../shared/corpus");
  CheckOne(state,
           *std::max_element(
               programs.begin(), programs.end(),
               [](const LoadedProgram& a, const LoadedProgram& b) { return a.size < b.size; }),
           api);
}

void BM_MostTensors(benchmark::State& state, Api api) {
  const std::vector<LoadedProgram>& programs = ReadablePrograms();
  if (programs.empty()) return state.SkipWithError("no readable program in ../shared/corpus");
  CheckOne(state,
           *std::max_element(programs.begin(), programs.end(),
                             [](const LoadedProgram& a, const LoadedProgram& b) {
                               return a.planned_tensors < b.planned_tensors;
                             }),
           api);
}

void BM_Corpus(benchmark::State& state, Api api) {
  const std::vector<LoadedProgram>& programs = ReadablePrograms();
  if (programs.empty()) return state.SkipWithError("no readable program in ../shared/corpus");
  uint64_t bytes = 0, planned_tensors = 0;
  for (const LoadedProgram& program : programs) {
    bytes += program.size;
    planned_tensors += program.planned_tensors;
  }
  std::vector<const LoadedProgram*> all;
  for (const LoadedProgram& program : programs) all.push_back(&program);
  std::vector<uint64_t> scratch = ScratchFor(all);
  for (auto _ : state) {
    for (const LoadedProgram& program : programs) {
      if (api == Api::kCore) {
        runtime_check::core::Result result = CoreCheck(program, scratch);
        benchmark::DoNotOptimize(result);
      } else {
        runtime_check::Report report = Check(program);
        benchmark::DoNotOptimize(report);
      }
    }
  }
  state.SetLabel(std::to_string(programs.size()) + " readable programs of " +
                 std::to_string(test_support::CorpusProgramRows().size()) + " ET12 rows");
  state.counters["file_bytes"] = static_cast<double>(bytes);
  state.counters["files"] = static_cast<double>(programs.size());
  state.counters["planned_tensors"] = static_cast<double>(planned_tensors);
}

// Each case through both APIs, one after the other, so the ratio is read
// off one run.
const bool kRegistered = [] {
  struct Case {
    const char* name;
    void (*run)(benchmark::State&, Api);
    benchmark::TimeUnit unit;
  };
  for (const Case& c : {Case{"largest", BM_Largest, benchmark::kMicrosecond},
                        Case{"most_tensors", BM_MostTensors, benchmark::kMicrosecond},
                        Case{"corpus", BM_Corpus, benchmark::kMillisecond}}) {
    for (const Api api : {Api::kReport, Api::kCore}) {
      const std::string name =
          std::string(api == Api::kReport ? "CheckProgram/" : "core::Check/") + c.name;
      benchmark::RegisterBenchmark(name.c_str(), c.run, api)->Unit(c.unit);
    }
  }
  return true;
}();

}  // namespace
}  // namespace pteshare

BENCHMARK_MAIN();
