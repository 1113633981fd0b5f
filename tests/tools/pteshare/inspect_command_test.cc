// `pteshare inspect` as a user runs it: output, --json and exit statuses.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/bundle_fixtures.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using test_support::RunTool;
using test_support::SharedDir;

TEST(InspectCommand, PrintsLayoutAndMethods) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  std::string path = (SharedDir() / "corpus" / "berndporr__dnf_executorch__dnf__v0c78226.pte");
  test_support::CommandOutput out = RunTool("pteshare", {"inspect", path});
  EXPECT_EQ(out.exit_status, 0) << out.err;
  EXPECT_EQ(out.err, "");
  EXPECT_NE(out.out.find("ET12 program, 4 methods"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("flatbuffer  5,824 bytes (extended header: 32 bytes)"), std::string::npos);
  EXPECT_NE(out.out.find("slack       64 bytes"), std::string::npos);
  EXPECT_NE(out.out.find("method forward: 17 instructions, 52 values, 21 planned tensors"),
            std::string::npos);
  EXPECT_NE(out.out.find("arena 1  CPU      1,296 bytes"), std::string::npos);
  EXPECT_NE(out.out.find("21 allocation tables lack a field"), std::string::npos);
}

TEST(InspectCommand, JsonHasTheDocumentedShape) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  std::string path = (SharedDir() / "corpus" / "pytorch__executorch__add.pte");
  test_support::CommandOutput out = RunTool("pteshare", {"inspect", "--json", path});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  for (const char* key :
       {"\"file_size\": 1072", "\"extended_header\": null", "\"program_size\": 1072",
        "\"slack\": 0", "\"name\": \"forward\"", "\"planned_tensors\": 3",
        "\"tables_missing_fields\": 3", "\"memory_id\": 1", "\"size\": 48", "\"device\": \"CPU\"",
        "\"mutable_buffers\": []"}) {
    EXPECT_NE(out.out.find(key), std::string::npos) << key << "\n" << out.out;
  }
}

TEST(InspectCommand, WorksOnEveryCorpusFile) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  size_t ok = 0, refused = 0;
  for (const auto& path : test_support::CorpusFiles()) {
    test_support::CommandOutput out = RunTool("pteshare", {"inspect", path.string()});
    if (out.exit_status == 0) {
      ++ok;
      continue;
    }
    ++refused;
    // A refusal is exit 2 and exactly one line naming the file.
    EXPECT_EQ(out.exit_status, 2) << path;
    EXPECT_EQ(out.err.find("pteshare: " + path.string() + ": "), 0u) << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  }
  // Programs and bundled programs are read; the ET02 file, ZIP archives and
  // placeholders are refused.
  const test_support::ManifestTotals totals = test_support::CorpusManifestTotals();
  const size_t bundles = test_support::CorpusBundleCount();
  EXPECT_EQ(ok, totals.programs + bundles);
  EXPECT_EQ(refused, totals.not_programs - bundles);
}

TEST(InspectCommand, MissingFileIsExitTwo) {
  test_support::CommandOutput out = RunTool("pteshare", {"inspect", "/nonexistent/model.pte"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err, "pteshare: /nonexistent/model.pte: cannot open: no such file\n");
}

TEST(InspectCommand, UsageErrorIsExitTwo) {
  test_support::CommandOutput out = RunTool("pteshare", {"inspect"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err,
            "pteshare: inspect needs FILE: type pteshare inspect FILE [options] (pteshare inspect "
            "--help)\n");
}

// F14: a newline in a file name split its error over two lines. Control
// characters in a name are escaped: one error, one line.
TEST(InspectCommand, ControlCharactersInANameStayOnOneLine) {
  test_support::TempDir dir;
  const std::filesystem::path file = dir / "bad\nname\t.pte";
  test_support::WriteFileBytes(file, "not a program at all");
  test_support::CommandOutput out = RunTool("pteshare", {"inspect", file.string()});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  EXPECT_NE(out.err.find("bad\\nname\\t.pte: not a .pte program"), std::string::npos) << out.err;
}

}  // namespace
}  // namespace pteshare
