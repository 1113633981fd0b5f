// What opening a program costs, read the way PteFile reads it (pread of the
// flatbuffer into private memory, then verification) against a read-only
// memory mapping of the file verified in place (what Boost.Interprocess's
// mapped_region, which pteshare once carried for this, does: one mmap(2)).
// Side by side in one run, page cache warm (every file is read once
// first), so the difference is the copy, not the disk:
//  - Corpus/{read,map}: every .pte and .bpte of ../shared/corpus opened
//    once per iteration; bytes_per_second counts the flatbuffer bytes.
//  - Largest/{read,map}: the corpus file whose flatbuffer is largest
//    (weights inline, no extended header), alone.
// The decision this measures is in docs/design.md ("Reading a program").
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "rewriter/io/file_io.h"
#include "rewriter/program/pte_file.h"

namespace pteshare {
namespace {
namespace fs = std::filesystem;

struct CorpusFile {
  fs::path path;
  uint64_t program_size = 0;
};

std::vector<CorpusFile> LoadCorpus() {
  std::vector<CorpusFile> files;
  const fs::path corpus = fs::path(PTESHARE_SHARED_DIR) / "corpus";
  if (!fs::is_directory(corpus)) return files;
  for (const fs::directory_entry& entry : fs::directory_iterator(corpus)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".pte" && ext != ".bpte") continue;
    Result<PteFile> file = PteFile::Open(entry.path());  // also warms the page cache
    if (!file.ok()) continue;
    files.push_back({entry.path(), file->layout().program_size});
  }
  std::sort(files.begin(), files.end(),
            [](const CorpusFile& a, const CorpusFile& b) { return a.path < b.path; });
  return files;
}

const std::vector<CorpusFile>& Corpus() {
  static const std::vector<CorpusFile> files = LoadCorpus();
  return files;
}

// Today's reader: PteFile::Open.
void OpenRead(benchmark::State& state, const fs::path& path) {
  Result<PteFile> file = PteFile::Open(path);
  if (!file.ok()) state.SkipWithError(file.error().message.c_str());
  benchmark::DoNotOptimize(file);
}

// The mapped alternative: the same checks (PteFile::FromBytes) on a shared
// read-only mapping of the whole file, touching only the pages the
// verifier reads.
void OpenMapped(benchmark::State& state, const fs::path& path) {
  Result<UniqueFd> fd = OpenFd(path, O_RDONLY);
  if (!fd.ok()) return state.SkipWithError(fd.error().message.c_str());
  Result<uint64_t> size = FileSize(fd->get());
  if (!size.ok()) return state.SkipWithError(size.error().message.c_str());
  void* map = mmap(nullptr, *size, PROT_READ, MAP_SHARED, fd->get(), 0);
  if (map == MAP_FAILED) return state.SkipWithError("mmap failed");
  {
    Result<PteFile> file = PteFile::FromBytes({static_cast<const uint8_t*>(map), *size});
    if (!file.ok()) state.SkipWithError(file.error().message.c_str());
    benchmark::DoNotOptimize(file);
  }
  munmap(map, *size);
}

template <void (*Open)(benchmark::State&, const fs::path&)>
void BM_Corpus(benchmark::State& state) {
  const std::vector<CorpusFile>& files = Corpus();
  if (files.empty()) return state.SkipWithError("../shared/corpus is absent");
  uint64_t bytes = 0;
  for (const CorpusFile& f : files) bytes += f.program_size;
  for (auto _ : state) {
    for (const CorpusFile& f : files) Open(state, f.path);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes * state.iterations()));
  state.counters["files"] = static_cast<double>(files.size());
}

template <void (*Open)(benchmark::State&, const fs::path&)>
void BM_Largest(benchmark::State& state) {
  const std::vector<CorpusFile>& files = Corpus();
  if (files.empty()) return state.SkipWithError("../shared/corpus is absent");
  const CorpusFile& largest = *std::max_element(
      files.begin(), files.end(),
      [](const CorpusFile& a, const CorpusFile& b) { return a.program_size < b.program_size; });
  for (auto _ : state) Open(state, largest.path);
  state.SetBytesProcessed(static_cast<int64_t>(largest.program_size * state.iterations()));
  state.counters["program_bytes"] = static_cast<double>(largest.program_size);
}

BENCHMARK(BM_Corpus<OpenRead>)->Name("Corpus/read")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Corpus<OpenMapped>)->Name("Corpus/map")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Largest<OpenRead>)->Name("Largest/read")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Largest<OpenMapped>)->Name("Largest/map")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace pteshare

BENCHMARK_MAIN();
