#include "tests/test_support.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace pteshare::test_support {
namespace fs = std::filesystem;

fs::path SharedDir() {
  fs::path dir = PTESHARE_SHARED_DIR;
  if (fs::is_directory(dir / "corpus")) return dir;
  return {};
}

std::vector<fs::path> CorpusFiles() {
  std::vector<fs::path> files;
  fs::path shared = SharedDir();
  if (shared.empty()) return files;
  for (const auto& entry : fs::directory_iterator(shared / "corpus")) {
    std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".pte" || ext == ".bpte")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

std::vector<std::string> SplitText(const std::string& text, char separator) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) parts.push_back(part);
  return parts;
}

}  // namespace

std::vector<ManifestRow> CorpusManifest() {
  std::vector<ManifestRow> rows;
  fs::path shared = SharedDir();
  if (shared.empty()) return rows;
  std::ifstream in(shared / "corpus" / "MANIFEST.tsv");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> columns;
    std::stringstream stream(line);
    std::string column;
    while (std::getline(stream, column, '\t')) columns.push_back(column);
    columns.resize(11);
    ManifestRow row;
    row.file = columns[0];
    row.identifier = columns[6];
    row.methods = SplitText(columns[8], ',');
    for (const std::string& count : SplitText(columns[9], ',')) {
      row.planned_tensors.push_back(std::stoull(count));
    }
    row.arena_sizes = SplitText(columns[10], ';');
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<ManifestRow> CorpusProgramRows() {
  std::vector<ManifestRow> rows;
  for (ManifestRow& row : CorpusManifest()) {
    if (row.identifier == "ET12") rows.push_back(std::move(row));
  }
  return rows;
}

fs::path CorpusPath(const ManifestRow& row) { return SharedDir() / "corpus" / row.file; }

ManifestTotals CorpusManifestTotals() {
  ManifestTotals totals;
  for (const ManifestRow& row : CorpusManifest()) {
    if (row.identifier != "ET12") {
      ++totals.not_programs;
      continue;
    }
    ++totals.programs;
    for (uint64_t count : row.planned_tensors) totals.planned_tensors += count;
  }
  return totals;
}

namespace {

// ASan (gcc's macro, clang's feature test) or UBSan alone: tests fork the
// instrumented tools, which start and run several times slower.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

bool LongTestsAsked() {
  const char* value = std::getenv("PTESHARE_LONG_TESTS");
  return value != nullptr && std::string(value) == "1";
}

}  // namespace

std::string SkipReason(Cost cost) {
  if (LongTestsAsked()) return "";
  switch (cost) {
    case Cost::kSweep:
      if (!kSanitized) return "";
      return "a sweep of forked tools: under the sanitizers only in .ci/long "
             "(PTESHARE_LONG_TESTS=1)";
    case Cost::kLargeFiles:
      return "hundreds of MiB written: only in .ci/long (PTESHARE_LONG_TESTS=1)";
  }
  return "";
}

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  fs::path base = fs::temp_directory_path();
  for (;;) {
    path_ = base / ("pteshare-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    if (fs::create_directory(path_)) break;
  }
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

CommandOutput RunTool(const std::string& tool, const std::vector<std::string>& args) {
  fs::path binary = fs::path(PTESHARE_BINARY_DIR) / "tools" / tool;
  if (!fs::exists(binary)) binary = fs::path(PTESHARE_BINARY_DIR) / "runtime_check" / tool;
  TempDir scratch;
  fs::path out_path = scratch / "stdout", err_path = scratch / "stderr";

  std::vector<std::string> argv_storage;
  argv_storage.push_back(binary.string());
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  pid_t pid = 0;
  CommandOutput result;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + binary.string());
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadFileBytes(out_path);
  result.err = ReadFileBytes(err_path);
  return result;
}

std::string SynthLlm(const fs::path& dir, const std::string& name, std::vector<std::string> args) {
  std::string path = (dir / name).string();
  args.insert(args.begin(), "llm");
  args.push_back("-o");
  args.push_back(path);
  CommandOutput out = RunTool("pte-synth", args);
  if (out.exit_status != 0) ADD_FAILURE() << "pte-synth failed: " << out.err;
  return path;
}

std::vector<std::string> FolderNames(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::string ReadFileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFileBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

uint64_t BytesReadSoFar() {
  // Reading this file counts too: the difference of two calls includes
  // about one read of it (a few hundred bytes).
  const std::string io = ReadFileBytes("/proc/self/io");
  const size_t at = io.find("rchar: ");
  return at == std::string::npos ? 0 : std::stoull(io.substr(at + 7));
}

}  // namespace pteshare::test_support
