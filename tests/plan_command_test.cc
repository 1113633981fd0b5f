// `pteshare plan` as a user runs it on pte-synth programs: verified plans,
// JSON, and exit statuses for input errors.
#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace pteshare {
namespace {

using testing::CommandOutput;
using testing::RunTool;
using testing::TempDir;

std::string Synth(const TempDir& dir, const std::string& name, std::vector<std::string> args) {
  std::string path = (dir / name).string();
  args.insert(args.begin(), "llm");
  args.push_back("-o");
  args.push_back(path);
  CommandOutput out = RunTool("pte-synth", args);
  EXPECT_EQ(out.exit_status, 0) << out.err;
  return path;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PlanCommand, VerifiedPlanForALlmWith32Layers) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "32"});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "front region of arena 1: [0, 2,097,152) bytes, 64 shared buffers"))
      << out.out;
  EXPECT_TRUE(Contains(out.out, "verified: I1 I2 I3 I4 I5 I6 hold"));
  EXPECT_TRUE(Contains(out.out, "warning: 64 shared buffer(s)"));
}

TEST(PlanCommand, DeviceArenaKeepsActivationsInArenaOne) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "32", "--device-arena"});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--json"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "\"memory_id\": 2,\n      \"size\": 2097152")) << out.out;
  EXPECT_TRUE(Contains(out.out, "\"device\": \"CUDA:0\""));
  EXPECT_TRUE(Contains(out.out, "\"verified\": true"));
  EXPECT_TRUE(Contains(out.out, "\"violations\": []"));
}

TEST(PlanCommand, SharingByNameSelectsOnlyThoseBuffers) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out =
      RunTool("pteshare", {"plan", file, "--share", "layers.1.attention.kv_cache.v_cache",
                           "layers.0.attention.kv_cache.k_cache"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "2 shared buffers"));
  EXPECT_FALSE(Contains(out.out, "layers.0.attention.kv_cache.v_cache  "));
}

TEST(PlanCommand, UnnamedProgramNeedsNames) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--unnamed"});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Contains(out.err, "--share-auto found no named mutable buffer")) << out.err;
}

TEST(PlanCommand, UnknownNameIsExitTwoWithOneLine) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share", "kv"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err, "pteshare: " + file +
                         ": shared buffer 'kv' is not the name of a tensor in any method\n");
}

TEST(PlanCommand, NothingChosenIsExitTwo) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Contains(out.err, "no shared buffer chosen")) << out.err;
}

TEST(PlanCommand, BadNameSyntaxIsExitTwo) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share", "x", "--name", "decode:x=y"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Contains(out.err, "VALUE_INDEX 'x' is not a non-negative integer")) << out.err;
}

TEST(PlanCommand, AlignmentMustBeAPowerOfTwo) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--alignment", "24"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Contains(out.err, "--alignment 24 is not a power of two")) << out.err;
}

TEST(PlanCommand, SamePlanEveryRun) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "4"});
  CommandOutput a = RunTool("pteshare", {"plan", file, "--share-auto", "--json"});
  CommandOutput b = RunTool("pteshare", {"plan", file, "--share-auto", "--json"});
  EXPECT_EQ(a.out, b.out);
}

}  // namespace
}  // namespace pteshare
