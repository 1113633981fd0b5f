// Helpers shared by the test files: where the shared corpus is, temporary
// folders, and running the command-line tools as a user would.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pteshare::test_support {

/// ../shared next to the project, or empty when it is absent (a user's
/// clone). Tests that need it call GTEST_SKIP() with a message.
std::filesystem::path SharedDir();

/// Every file of ../shared/corpus, sorted by name (empty when absent).
std::vector<std::filesystem::path> CorpusFiles();

/// One row of ../shared/corpus/MANIFEST.tsv: what was recorded for a file.
/// Tests derive their expected counts from these rows, never from numbers
/// of their own, so a grown corpus needs no test edits.
struct ManifestRow {
  std::string file;
  std::string identifier;  // "ET12", "BP08", ... or empty (not a program)
  std::vector<std::string> methods;
  std::vector<uint64_t> planned_tensors;  // per method
  std::vector<std::string> arena_sizes;   // "[0,1296]" per method
};

/// Every row of MANIFEST.tsv in file order (empty when ../shared is absent).
std::vector<ManifestRow> CorpusManifest();
/// The rows that are ET12 programs (those our reader must read), in file
/// order.
std::vector<ManifestRow> CorpusProgramRows();
/// Where a row's file is: ../shared/corpus/FILE.
std::filesystem::path CorpusPath(const ManifestRow& row);

/// How many manifest rows are ET12 programs, and their planned tensors.
struct ManifestTotals {
  size_t programs = 0;
  size_t not_programs = 0;
  uint64_t planned_tensors = 0;
};
ManifestTotals CorpusManifestTotals();

/// What a test costs, where that decides where it runs (README, "What CI
/// checks"). A test marked with neither runs everywhere, every time.
enum class Cost {
  /// Forks the tools over every corpus file, or builds and installs
  /// another project: cheap in a plain build, minutes under the
  /// sanitizers. Runs in plain builds always, in sanitizer builds only
  /// with PTESHARE_LONG_TESTS=1 (.ci/long).
  kSweep,
  /// Writes hundreds of MiB: only with PTESHARE_LONG_TESTS=1 (.ci/long).
  kLargeFiles,
};

/// Why a test of `cost` does not run in this build and run, or empty when
/// it does.
std::string SkipReason(Cost cost);

/// Skips the calling test, with its reason, where its cost is not paid.
#define PTESHARE_SKIP_UNLESS_RUN_HERE(cost)                                             \
  if (const std::string why = ::pteshare::test_support::SkipReason(cost); !why.empty()) \
  GTEST_SKIP() << why

/// A fresh empty folder under the system temp dir, removed at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// What a finished command printed and its exit status.
struct CommandOutput {
  int exit_status = -1;
  std::string out;
  std::string err;
};

/// Runs a built tool (`pteshare`, `pte-synth`, ...) with `args`, no shell
/// involved. The tool is looked up in the build tree.
CommandOutput RunTool(const std::string& tool, const std::vector<std::string>& args);

/// Whether `part` occurs in `text` (for asserting on command output).
inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// `pte-synth llm ARGS -o DIR/NAME` (the test fails if it does); the path.
std::string SynthLlm(const std::filesystem::path& dir, const std::string& name,
                     std::vector<std::string> args = {});

/// The names in `folder`, sorted: what a write left behind.
std::vector<std::string> FolderNames(const std::filesystem::path& folder);

/// Whole file as bytes.
std::string ReadFileBytes(const std::filesystem::path& path);
void WriteFileBytes(const std::filesystem::path& path, const std::string& bytes);

/// The same as bytes (uint8_t), as the library's spans take them.
inline std::vector<uint8_t> ReadBytes(const std::filesystem::path& path) {
  std::string s = ReadFileBytes(path);
  return std::vector<uint8_t>(s.begin(), s.end());
}
/// Bytes this process has read with read(2)/pread(2) so far (rchar of
/// /proc/self/io, 0 where there is none): a test compares two calls to see
/// how much a step read from files (give or take the few hundred bytes
/// of /proc/self/io itself).
uint64_t BytesReadSoFar();

inline void WriteBytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  WriteFileBytes(path, std::string(bytes.begin(), bytes.end()));
}

}  // namespace pteshare::test_support
