// writer.cc's `-o` on file systems that share blocks and on ones that
// cannot (beside writer_test.cc, which is long enough): on a loop-mounted
// XFS the new file shares the input's segment blocks (FIEMAP says so) and
// holds the bytes that the same rewrite writes on ext4, where nothing is
// shared, and that RewriteBytes gives in memory; `-v` says how much was
// shared; a crash in the middle of the move leaves the input and no
// temporary. The loop mounts need root (skipped visibly without).
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rewriter/base/grouped.h"
#include "rewriter/io/clone_or_copy.h"
#include "rewriter/io/crash_points.h"
#include "rewriter/rewrite.h"
#include "tests/filesystem_fixtures.h"
#include "tests/rewrite_fixtures.h"
#include "tests/shared_extents.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

constexpr uint64_t kWeightBytes = uint64_t{2} << 20;

// Bytes that differ from block to block (a fixed linear congruential
// sequence), so that a segment put a block off would not read the same.
void FillWithPattern(std::span<uint8_t> bytes) {
  uint32_t state = 2024;
  for (uint8_t& b : bytes) {
    state = state * 1103515245u + 12345u;
    b = static_cast<uint8_t>(state >> 24);
  }
}

struct Input {
  const char* name;
  std::vector<uint8_t> bytes;
  bool segments_move;
};

Result<bool> SegmentsMove(const std::vector<uint8_t>& bytes, const ShareRequest& share) {
  Result<RewriteOutcome> outcome = RewriteBytes(bytes, share, PlanOptions{});
  if (!outcome.ok()) return outcome.error();
  return outcome->patch.segments_move();
}

ShareRequest ShareAuto() {
  ShareRequest share;
  share.share_auto = true;
  return share;
}

// Programs with kWeightBytes of weights (a trailing segment of patterned
// bytes): an exporter-like LLM (segment base aligned to 128) whose
// segments must move, so the range to share starts off a block boundary;
// and one whose tables fit in its slack (4096-aligned segments), copied
// from byte 0.
std::vector<Input> Inputs() {
  std::vector<Input> inputs;
  b::BuildOptions weights;
  weights.trailing_segment_bytes = kWeightBytes;
  for (int32_t layers = 2; layers <= 32; ++layers) {
    Result<b::ProgramSpec> spec = b::SynthesizeLlm({.layers = layers, .named = true});
    if (!spec.ok()) break;
    std::vector<uint8_t> bytes = Build(*spec, weights);
    Result<bool> moves = SegmentsMove(bytes, ShareAuto());
    if (!moves.ok() || !*moves) continue;
    FillWithPattern(std::span<uint8_t>(bytes).last(kWeightBytes));
    inputs.push_back({"exporter-like LLM, segments move", std::move(bytes), true});
    break;
  }
  b::BuildOptions in_slack = weights;
  in_slack.segment_alignment = 4096;
  std::vector<uint8_t> bytes = Build(SharedCacheSpec(), in_slack);
  FillWithPattern(std::span<uint8_t>(bytes).last(kWeightBytes));
  inputs.push_back({"tables in the slack", std::move(bytes), false});
  return inputs;
}

// `pteshare rewrite IN --share-auto -o OUT -v` in process, in `folder`; the
// lines it said.
Result<std::vector<std::string>> RewriteTo(const fs::path& folder, const Input& input) {
  WriteBytes(folder / "in.pte", input.bytes);
  RewriteRequest request;
  request.input = folder / "in.pte";
  request.output = folder / "out.pte";
  request.share = ShareAuto();
  request.verbose = true;
  std::vector<std::string> said;
  request.say = [&](const std::string& line) { said.push_back(line); };
  Result<RewriteOutcome> outcome = RewriteFile(request);
  if (!outcome.ok()) return outcome.error();
  return said;
}

// The line CopyUnchangedBytes says with -v, if it did.
std::string SharingLine(const std::vector<std::string>& said) {
  for (const std::string& line : said) {
    if (Contains(line, "shared with the input (reflink)")) return line;
  }
  return "";
}

TEST(WriterReflink, CopyOnXfsSharesTheWeightsAndWritesTheBytesItWritesOnExt4) {
  LoopMount xfs(LoopFs::kXfs, kSmallestXfsBytes);
  LoopMount ext4(LoopFs::kExt4, uint64_t{64} << 20);
  if (!xfs.mounted() || !ext4.mounted()) {
    GTEST_SKIP() << "no loop-mounted XFS and ext4 to compare (" << xfs.why_not() << ext4.why_not()
                 << ")";
  }
  const std::vector<Input> inputs = Inputs();
  ASSERT_EQ(inputs.size(), 2u) << "no synthesized LLM of 2 to 32 layers outgrows its padding";
  for (const Input& input : inputs) {
    SCOPED_TRACE(input.name);
    Result<bool> moves = SegmentsMove(input.bytes, ShareAuto());
    ASSERT_TRUE(moves.ok()) << moves.error().message;
    EXPECT_EQ(*moves, input.segments_move);
    Result<RewriteOutcome> in_memory = RewriteBytes(input.bytes, ShareAuto(), PlanOptions{});
    ASSERT_TRUE(in_memory.ok()) << in_memory.error().message;

    Result<std::vector<std::string>> on_ext4 = RewriteTo(ext4.path(), input);
    ASSERT_TRUE(on_ext4.ok()) << on_ext4.error().message;
    EXPECT_EQ(ReadBytes(ext4 / "out.pte"), in_memory->bytes);
    EXPECT_EQ(SharedBytes(ext4 / "out.pte"), 0u) << "ext4 shares no block";
    EXPECT_EQ(SharingLine(*on_ext4), "0 bytes shared with the input (reflink), " +
                                         Grouped(input.bytes.size()) + " copied");

    Result<std::vector<std::string>> on_xfs = RewriteTo(xfs.path(), input);
    ASSERT_TRUE(on_xfs.ok()) << on_xfs.error().message;
    EXPECT_EQ(ReadBytes(xfs / "out.pte"), in_memory->bytes) << "the bytes written on ext4";
    // Every whole block of the weights is shared (the blocks at either end
    // of the range hold other bytes too, and the patched ones were copied
    // on write).
    const std::optional<uint64_t> shared = SharedBytes(xfs / "out.pte");
    ASSERT_TRUE(shared.has_value());
    EXPECT_GE(*shared, kWeightBytes - 2 * kCloneBlock);
    EXPECT_LE(*shared, input.bytes.size());
    EXPECT_TRUE(Contains(SharingLine(*on_xfs), " bytes shared with the input (reflink), "))
        << SharingLine(*on_xfs);
    EXPECT_NE(SharingLine(*on_xfs).rfind("0 bytes", 0), 0u) << SharingLine(*on_xfs);
    EXPECT_EQ(ReadBytes(xfs / "in.pte"), input.bytes) << "-o must not touch its input";
    for (const fs::path& folder : {xfs.path(), ext4.path()}) {
      fs::remove(folder / "in.pte");
      fs::remove(folder / "out.pte");
    }
  }
}

// The crash point between two chunks of the move comes after the clone:
// the new file, which has no name yet, goes with the process and the input
// stays as it was.
TEST(WriterReflink, ACrashDuringASharedMoveLeavesTheInputAndNoTemporary) {
  LoopMount xfs(LoopFs::kXfs, kSmallestXfsBytes);
  if (!xfs.mounted()) GTEST_SKIP() << "no XFS to share blocks on (" << xfs.why_not() << ")";
  const std::vector<Input> inputs = Inputs();
  ASSERT_FALSE(inputs.empty());
  ASSERT_TRUE(inputs.front().segments_move);
  WriteBytes(xfs / "in.pte", inputs.front().bytes);
  ::setenv("PTESHARE_TEST_CRASH_AT", "during-segment-move", 1);
  CommandOutput crashed = RunTool("pteshare", {"rewrite", (xfs / "in.pte").string(), "--share-auto",
                                               "-o", (xfs / "out.pte").string()});
  ::unsetenv("PTESHARE_TEST_CRASH_AT");
  ASSERT_EQ(crashed.exit_status, kTestCrashExitStatus) << crashed.err;
  EXPECT_EQ(FolderNames(xfs.path()), std::vector<std::string>{"in.pte"});
  EXPECT_EQ(ReadBytes(xfs / "in.pte"), inputs.front().bytes);
}

}  // namespace
}  // namespace pteshare
