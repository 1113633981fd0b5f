// `--layout arena` as a user runs it: plan shows both layouts' memory,
// rewrite gives a verified program with a state arena that verify, the
// self-check and a second rewrite accept, on two-method LLMs with CPU and
// device arenas, named and unnamed; every corpus program is either
// rewritten and checked or refused in one line.
#include <gtest/gtest.h>

#include <filesystem>

#include "rewriter/open_program.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using test_support::CommandOutput;
using test_support::Contains;
using test_support::RunTool;
using test_support::TempDir;

struct LlmCase {
  const char* label;
  std::vector<std::string> synth_args;
  uint32_t state_arena;
  const char* device;
};

std::vector<LlmCase> Cases() {
  return {
      {"cpu named", {"--named"}, 2, "CPU"},
      {"cpu unnamed", {}, 2, "CPU"},
      {"device named", {"--device-arena", "--named"}, 3, "CUDA:0"},
      {"device unnamed", {"--device-arena"}, 3, "CUDA:0"},
  };
}

TEST(LayoutCommand, PlanShowsTheStateArenaAndWhatBothLayoutsCost) {
  TempDir dir;
  for (const LlmCase& c : Cases()) {
    const std::string file = test_support::SynthLlm(dir.path(), "llm.pte", c.synth_args);
    CommandOutput out =
        RunTool("pteshare", {"plan", file, "--share-auto", "--layout", "arena", "--own-loader"});
    ASSERT_EQ(out.exit_status, 0) << c.label << ": " << out.err;
    const std::string state = "state arena " + std::to_string(c.state_arena) + " " + c.device +
                              " (new): [0, 131,072) bytes, 4 shared buffers";
    EXPECT_TRUE(Contains(out.out, state)) << c.label << "\n" << out.out;
    EXPECT_TRUE(Contains(out.out, "what each layout costs")) << c.label;
    EXPECT_TRUE(Contains(out.out, "    front: one set ")) << c.label;
    EXPECT_TRUE(Contains(out.out, "    arena (this plan): one set ")) << c.label;
    EXPECT_TRUE(Contains(out.out, "verified: I1 I2 I3 I4 I5 I6 hold")) << c.label;
  }
}

TEST(LayoutCommand, PlanOf32LayersOnADeviceGivesBothLayoutsMemory) {
  TempDir dir;
  for (const char* naming : {"--named", "--unnamed"}) {
    const std::string file =
        test_support::SynthLlm(dir.path(), "big.pte", {"--layers", "32", "--device-arena", naming});
    CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto"});
    ASSERT_EQ(out.exit_status, 0) << out.err;
    // Numbers as the plan gives them (per arena: one set / separate sets).
    EXPECT_TRUE(Contains(out.out, "front (this plan): one set 2,540,032, separate sets 4,675,072"))
        << out.out;
    EXPECT_TRUE(Contains(out.out, "arena 2 CUDA:0: 2,359,296 / 4,491,264")) << out.out;
    EXPECT_TRUE(Contains(out.out, "arena: one set 2,540,032, separate sets 4,675,072")) << out.out;
    EXPECT_TRUE(Contains(out.out, "arena 2 CUDA:0: 262,144 / 296,960")) << out.out;
    EXPECT_TRUE(Contains(out.out, "arena 3 CUDA:0 (state): 2,097,152 / 4,194,304")) << out.out;
  }
}

TEST(LayoutCommand, PlanJsonNamesTheLayoutAndCostsBoth) {
  TempDir dir;
  const std::string file = test_support::SynthLlm(dir.path(), "llm.pte", {"--device-arena"});
  CommandOutput out = RunTool(
      "pteshare", {"plan", file, "--share-auto", "--layout", "arena", "--own-loader", "--json"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "\"layout\": \"arena\"")) << out.out;
  EXPECT_TRUE(Contains(out.out, "\"state_arena\": true"));
  EXPECT_TRUE(Contains(out.out, "\"from_memory_id\": 2"));
  EXPECT_TRUE(Contains(out.out, "\"layout\": \"front\",\n      \"chosen\": false"));
  EXPECT_TRUE(Contains(out.out, "\"layout\": \"arena\",\n      \"chosen\": true"));
  EXPECT_TRUE(Contains(out.out, "\"verified\": true"));
}

TEST(LayoutCommand, RewriteGivesAStateArenaThatEveryCheckerAccepts) {
  TempDir dir;
  for (const LlmCase& c : Cases()) {
    const std::string file = test_support::SynthLlm(dir.path(), "llm.pte", c.synth_args);
    const std::string out_file = (dir.path() / "out.pte").string();
    std::filesystem::remove(out_file);
    CommandOutput out = RunTool("pteshare", {"rewrite", file, "--share-auto", "--layout", "arena",
                                             "--own-loader", "-o", out_file});
    ASSERT_EQ(out.exit_status, 0) << c.label << ": " << out.err;
    EXPECT_TRUE(Contains(out.out, "4 shared buffers in their own arena")) << out.out;

    Result<OpenedProgram> opened = OpenProgram(out_file);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    for (const MethodView& m : opened->view.methods) {
      if (m.tensors.empty()) {  // a constant method plans nothing and keeps no arena
        EXPECT_TRUE(m.arenas.empty()) << c.label << " " << m.name;
        continue;
      }
      ASSERT_EQ(m.arenas.size(), c.state_arena) << c.label << " " << m.name;
      EXPECT_EQ(m.arenas.back().size, 131072u);
      EXPECT_EQ(std::string(c.device) == "CPU", m.arenas.back().device == DeviceType::kCpu);
    }
    CommandOutput verify = RunTool("pteshare", {"verify", out_file, "--share-auto"});
    EXPECT_EQ(verify.exit_status, 0) << c.label << ": " << verify.out;
    EXPECT_TRUE(Contains(verify.out, "ok: 4 shared buffers across 10 methods")) << verify.out;
    CommandOutput self = RunTool("pteshare-selfcheck", {out_file});
    EXPECT_EQ(self.exit_status, 0) << c.label << ": " << self.out;

    // I7: the same rewrite of its own output changes nothing.
    const std::string again = (dir.path() / "again.pte").string();
    std::filesystem::remove(again);
    CommandOutput second = RunTool("pteshare", {"rewrite", out_file, "--share-auto", "--layout",
                                                "arena", "--own-loader", "-o", again});
    ASSERT_EQ(second.exit_status, 0) << second.err;
    EXPECT_TRUE(Contains(second.out, "already planned, no change")) << second.out;
    EXPECT_EQ(test_support::ReadFileBytes(again), test_support::ReadFileBytes(out_file)) << c.label;
  }
}

TEST(LayoutCommand, UnknownLayoutIsAUsageError) {
  TempDir dir;
  const std::string file = test_support::SynthLlm(dir.path(), "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--layout", "middle"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Contains(out.err, "--layout")) << out.err;
  EXPECT_TRUE(Contains(out.err, "'middle': expected front or arena")) << out.err;
}

// The corpus has no program whose state two methods share (MANIFEST.tsv:
// a program needs two methods for that), so --layout arena must refuse each
// in one line and write nothing; any that is rewritten must verify.
TEST(LayoutCommand, EveryCorpusProgramIsRewrittenAndCheckedOrRefusedInOneLine) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared is absent: no corpus";
  TempDir dir;
  size_t refused_single_method = 0, single_method_programs = 0, files = 0;
  for (const test_support::ManifestRow& row : test_support::CorpusManifest()) {
    const std::filesystem::path input = test_support::CorpusPath(row);
    const std::filesystem::path out_file = dir.path() / row.file;
    ++files;
    CommandOutput out = RunTool("pteshare", {"rewrite", input.string(), "--share-auto", "--layout",
                                             "arena", "-o", out_file.string()});
    const bool program = row.identifier == "ET12" || row.identifier == "BP08";
    if (program && row.methods.size() < 2) ++single_method_programs;
    if (out.exit_status == 0) {
      EXPECT_EQ(RunTool("pteshare", {"verify", out_file.string(), "--share-auto"}).exit_status, 0)
          << row.file;
      EXPECT_EQ(RunTool("pteshare-selfcheck", {out_file.string()}).exit_status, 0) << row.file;
      continue;
    }
    EXPECT_EQ(out.exit_status, 2) << row.file << ": " << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
    EXPECT_FALSE(std::filesystem::exists(out_file)) << row.file;
    if (program && row.methods.size() < 2 &&
        Contains(out.err, "--layout arena: nothing to share")) {
      ++refused_single_method;
    }
  }
  EXPECT_EQ(files, test_support::CorpusFiles().size());
  EXPECT_GT(single_method_programs, 0u);
  EXPECT_EQ(refused_single_method, single_method_programs);
}

}  // namespace
}  // namespace pteshare
