// rewriter/rewrite.h on every real program of ../shared/corpus, in one
// process: RewriteBytes with --share-auto, under each strategy, either gives
// a program that reads back, that the load-time checker accepts wherever it
// accepted the input, and that a second rewrite leaves byte for byte as it
// is (I7); or refuses it in one line. RewriteBytesInto, into memory the
// caller gives, writes the bytes RewriteFile writes with -o. The forked sweeps of the command tests
// prove the same through the CLI; this one is cheap enough to run under the
// sanitizers on every submission (README, "What CI checks").
#include "rewriter/rewrite.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "runtime_check/alias_check.h"
#include "tests/plan_options.h"
#include "tests/rewrite_fixtures.h"
#include "tests/test_support.h"
#include "tools/synth/fixed_layout.h"

namespace pteshare {
namespace {

namespace fs = std::filesystem;
namespace rc = runtime_check;

std::vector<uint8_t> FileBytes(const fs::path& path) {
  const std::string text = test_support::ReadFileBytes(path);
  return std::vector<uint8_t>(text.begin(), text.end());
}

rc::Report Check(const std::vector<uint8_t>& bytes, std::vector<std::string> shared = {}) {
  rc::CheckOptions options;
  options.shared_names = std::move(shared);
  return rc::CheckProgram(bytes.data(), bytes.size(), options);
}

size_t PrivateStateOverlaps(const rc::Report& report) {
  return static_cast<size_t>(std::count_if(
      report.findings.begin(), report.findings.end(),
      [](const rc::Finding& f) { return f.kind == rc::FindingKind::kPrivateStateOverlap; }));
}

size_t PrivateSlots(const Plan& plan) {
  size_t n = 0;
  for (const FrontRegion& f : plan.fronts) n += f.private_slots();
  return n;
}

ShareRequest ShareAuto() {
  ShareRequest share;
  share.share_auto = true;
  return share;
}

struct Counts {
  size_t rewritten = 0;
  size_t unchanged = 0;
  size_t refused = 0;
  size_t written() const { return rewritten + unchanged; }
};

// One file under one strategy; counts what happened.
void RewriteOne(const fs::path& path, const std::vector<uint8_t>& input, Strategy strategy,
                Counts& counts) {
  SCOPED_TRACE(path.filename().string() + " " + std::string(StrategyName(strategy)));
  const Result<RewriteOutcome> outcome = RewriteBytes(input, ShareAuto(), WithStrategy(strategy));
  if (!outcome.ok()) {
    ++counts.refused;
    const Error& error = outcome.error();
    EXPECT_FALSE(error.message.empty());
    EXPECT_EQ(error.message.find('\n'), std::string::npos) << error.message;
    EXPECT_NE(error.kind, ErrorKind::kIo) << "nothing is written here: " << error.message;
    return;
  }
  if (!outcome->changed()) {
    ++counts.unchanged;
    EXPECT_EQ(outcome->bytes, input) << "nothing to change: the input's own bytes";
    return;
  }
  ++counts.rewritten;
  const std::vector<uint8_t>& output = outcome->bytes;
  const rc::Report before = Check(input), after = Check(output);
  EXPECT_TRUE(after.readable()) << after.Summary();
  if (before.ok()) {
    EXPECT_TRUE(after.ok()) << after.Summary();
  }
  // I7: the result is already planned.
  const Result<RewriteOutcome> again = RewriteBytes(output, ShareAuto(), WithStrategy(strategy));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->changed()) << "a second rewrite changed the result";
}

TEST(Rewrite, EveryCorpusProgramRewritesInMemoryOrIsRefusedInOneLine) {
  const std::vector<fs::path> files = test_support::CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "../shared/corpus is absent: no real programs to rewrite";
  const std::vector<Strategy> strategies = {Strategy::kRelocate, Strategy::kReplan,
                                            Strategy::kBest};
  std::vector<Counts> counts(strategies.size());
  for (const fs::path& path : files) {
    const std::vector<uint8_t> input = FileBytes(path);
    for (size_t s = 0; s < strategies.size(); ++s)
      RewriteOne(path, input, strategies[s], counts[s]);
  }
  // Every program and bundle of the manifest is rewritten or found
  // already planned (with nothing to share, relocate has nothing to do and
  // replan and best replan the arenas); only the rows that are no program
  // are refused.
  const test_support::ManifestTotals totals = test_support::CorpusManifestTotals();
  size_t bundles = 0;
  for (const test_support::ManifestRow& row : test_support::CorpusManifest()) {
    bundles += row.identifier == "BP08";
  }
  for (size_t s = 0; s < strategies.size(); ++s) {
    const Counts& c = counts[s];
    std::printf("%s: %zu files, %zu rewritten, %zu already planned, %zu refused\n",
                StrategyName(strategies[s]), files.size(), c.rewritten, c.unchanged, c.refused);
    EXPECT_EQ(c.written(), totals.programs + bundles) << StrategyName(strategies[s]);
    EXPECT_EQ(c.written() + c.refused, files.size());
  }
}

// Issue 23: a named mutable buffer only in prefill and another only in
// decode sat on the same bytes of arena 1, and --share-auto left them so:
// under one set of arenas each method overwrote the other's state, and
// verify said ok. Now verify finds it in the input, and the rewrite gives
// each its own slot that the other method keeps free.
TEST(Rewrite, PrivateStateOfEachMethodGetsBytesNoOtherMethodTouches) {
  Result<std::vector<uint8_t>> input = synth::BuildFixedLayout({
      {"prefill", {{64, 1, 0, "k", true}, {64, 1, 64, "only_prefill", true}, {64, 1, 128}}},
      {"decode", {{64, 1, 0, "k", true}, {64, 1, 64, "only_decode", true}, {64, 1, 128}}},
  });
  ASSERT_TRUE(input.ok()) << input.error().message;
  const rc::Report before = Check(*input);
  EXPECT_EQ(PrivateStateOverlaps(before), 2u) << before.Summary();  // each over the other's

  Result<RewriteOutcome> rewritten = RewriteBytes(*input, ShareAuto(), PlanOptions{});
  ASSERT_TRUE(rewritten.ok()) << rewritten.error().message;
  const rc::Report after = Check(rewritten->bytes);
  EXPECT_TRUE(after.ok()) << after.Summary();
  EXPECT_EQ(rewritten->plan.planned.shared.buffers.size(), 3u);  // k and both private ones
}

// Issue 23: state the user left out of an explicit --share list was planned
// like a temporary, so under one set of arenas the other method's tensors
// sat on it (verify reported private_state_overlap on pteshare's own
// output). Now each method's v keeps a slot the other method leaves free.
TEST(Rewrite, StateLeftOutOfTheShareListKeepsBytesNoOtherMethodTouches) {
  Result<std::vector<uint8_t>> input = synth::BuildFixedLayout({
      {"prefill", {{64, 1, 0, "k", true}, {64, 1, 64, "v", true}, {64, 1, 128}}},
      {"decode", {{64, 1, 0, "k", true}, {64, 1, 64}, {64, 1, 128, "v", true}}},
  });
  ASSERT_TRUE(input.ok()) << input.error().message;
  EXPECT_EQ(PrivateStateOverlaps(Check(*input, {"k"})), 2u);

  ShareRequest share;
  share.names = {"k"};
  Result<RewriteOutcome> rewritten = RewriteBytes(*input, share, PlanOptions{});
  ASSERT_TRUE(rewritten.ok()) << rewritten.error().message;
  const rc::Report after = Check(rewritten->bytes, {"k"});
  EXPECT_TRUE(after.ok()) << after.Summary();
  EXPECT_EQ(PrivateSlots(rewritten->plan.planned.plan), 2u);  // v@decode, v@prefill
}

// Issue 23: unnamed state of one method (no other method has unnamed state
// to pair it with) was left where the other method's temporaries lie.
TEST(Rewrite, UnnamedStateOfOneMethodKeepsBytesNoOtherMethodTouches) {
  Result<std::vector<uint8_t>> input = synth::BuildFixedLayout({
      {"prefill", {{64, 1, 0, "k", true}, {64, 1, 64, "", true}}},
      {"decode", {{64, 1, 0, "k", true}, {64, 1, 64}}},
  });
  ASSERT_TRUE(input.ok()) << input.error().message;
  EXPECT_EQ(PrivateStateOverlaps(Check(*input)), 1u);

  Result<RewriteOutcome> rewritten = RewriteBytes(*input, ShareAuto(), PlanOptions{});
  ASSERT_TRUE(rewritten.ok()) << rewritten.error().message;
  const rc::Report after = Check(rewritten->bytes);
  EXPECT_TRUE(after.ok()) << after.Summary();
  EXPECT_EQ(PrivateSlots(rewritten->plan.planned.plan), 1u);  // prefill:1
}

// paired_state.K is a position, not a name: WriteNames::kGiven refuses to
// store one (the input is as it was: nothing is written in memory either),
// kGivenAndPositions stores it, and a pair named by position is stored
// under its real name.
TEST(Rewrite, MadeUpPairNamesAreWrittenOnlyWhenAllowed) {
  Result<std::vector<uint8_t>> input = synth::BuildFixedLayout({
      {"prefill", {{64, 1, 0, "", true}, {64, 1, 64, "", true}, {64, 1, 128}}},
      {"decode", {{64, 1, 0}, {64, 1, 64, "", true}, {64, 1, 128, "", true}}},
  });
  ASSERT_TRUE(input.ok()) << input.error().message;
  Result<RewriteOutcome> refused =
      RewriteBytes(*input, ShareAuto(), PlanOptions{}, WriteNames::kGiven);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::kBadInput);
  EXPECT_EQ(refused.error().message.rfind("--write-names would store made-up names: "
                                          "paired_state.000 to paired_state.001 are positions in "
                                          "the unnamed state of prefill/decode",
                                          0),
            0u)
      << refused.error().message;

  Result<RewriteOutcome> positions =
      RewriteBytes(*input, ShareAuto(), PlanOptions{}, WriteNames::kGivenAndPositions);
  ASSERT_TRUE(positions.ok()) << positions.error().message;
  EXPECT_EQ(positions->patch.names_written, 4u);
  EXPECT_EQ(Check(positions->bytes, {"paired_state.000", "paired_state.001"}).shared.size(), 2u);

  ShareRequest named = ShareAuto();
  ValueNaming k;
  k.pair = 0;
  k.name = "k";
  ValueNaming v;
  v.pair = 1;
  v.name = "v";
  named.namings = {k, v};
  Result<RewriteOutcome> real = RewriteBytes(*input, named, PlanOptions{}, WriteNames::kGiven);
  ASSERT_TRUE(real.ok()) << real.error().message;
  EXPECT_EQ(real->patch.names_written, 4u);
  const rc::Report after = Check(real->bytes, {"k", "v"});
  EXPECT_TRUE(after.ok()) << after.Summary();
  ASSERT_EQ(after.shared.size(), 2u);
  EXPECT_FALSE(after.shared[0].paired);  // found by the name now in the file
}

// Memory handed out as a caller may (not zeroed): filled with a byte first,
// so that one the rewrite left unwritten would show. Counts its calls.
struct CallerMemory {
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> sizes;  // asked for, in order

  OutputMemory Allocator() {
    return [this](uint64_t size) -> Result<std::span<uint8_t>> {
      sizes.push_back(size);
      bytes.assign(size, 0x5A);
      return std::span<uint8_t>(bytes);
    };
  }
};

// RewriteFile with -o and RewriteBytesInto on the file's bytes, the same
// options: the same bytes, or the same refusal (before any memory is
// asked for).
void ExpectIntoIsTheOutputFile(const fs::path& input, const ShareRequest& share) {
  SCOPED_TRACE(input.filename().string());
  const test_support::TempDir dir;
  RewriteRequest request;
  request.input = input;
  request.output = dir / "out.pte";
  request.share = share;
  const Result<RewriteOutcome> written = RewriteFile(request);
  CallerMemory memory;
  const Result<RewriteOutcome> into =
      RewriteBytesInto(FileBytes(input), share, PlanOptions{}, WriteNames::kNo, memory.Allocator());
  if (!written.ok()) {
    ASSERT_FALSE(into.ok()) << "-o refused: " << written.error().message;
    EXPECT_EQ(into.error().message, written.error().message);
    EXPECT_EQ(into.error().kind, written.error().kind);
    EXPECT_TRUE(memory.sizes.empty());
    return;
  }
  ASSERT_TRUE(into.ok()) << into.error().message;
  EXPECT_EQ(memory.sizes.size(), 1u) << "the memory is asked for once";
  EXPECT_EQ(memory.bytes, FileBytes(request.output)) << "RewriteBytesInto is -o byte for byte";
  EXPECT_TRUE(into->bytes.empty()) << "the result is in the caller's memory only";
  EXPECT_EQ(into->bundle_size_after, written->bundle_size_after);
  EXPECT_EQ(into->changed(), written->changed());
}

TEST(Rewrite, IntoCallerMemoryIsTheOutputFileForTheLlmAndEveryCorpusProgram) {
  const test_support::TempDir dir;
  // As exported (unnamed caches), deep enough for appended tables; and one
  // whose segments must move.
  const fs::path llm = test_support::SynthLlm(dir.path(), "llm.pte", {"--layers", "8"});
  const fs::path outgrows = dir / "outgrows.pte";
  test_support::WriteBytes(outgrows, test_support::LlmThatOutgrowsItsPadding());
  for (const fs::path& path : {llm, outgrows}) ExpectIntoIsTheOutputFile(path, ShareAuto());

  const std::vector<fs::path> files = test_support::CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "../shared/corpus is absent: no real programs to rewrite";
  for (const fs::path& path : files) {
    ExpectIntoIsTheOutputFile(path, ShareAuto());
    ExpectIntoIsTheOutputFile(path, ShareRequest{});  // replan only
  }
}

// The caller's refusal to give memory is the rewrite's error, as it is;
// memory of another size than the file's is refused, not overrun.
TEST(Rewrite, IntoCallerMemoryReturnsTheCallersErrorAndRefusesAWrongSize) {
  const std::vector<uint8_t> input = test_support::LlmThatOutgrowsItsPadding();
  size_t calls = 0;
  const Result<RewriteOutcome> refused = RewriteBytesInto(
      input, ShareAuto(), PlanOptions{}, WriteNames::kNo,
      [&](uint64_t size) -> Result<std::span<uint8_t>> {
        ++calls;
        return Error{"no room for " + std::to_string(size) + " bytes", ErrorKind::kIo};
      });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::kIo);
  EXPECT_EQ(refused.error().message.rfind("no room for ", 0), 0u) << refused.error().message;
  EXPECT_EQ(calls, 1u);

  std::vector<uint8_t> small;
  const Result<RewriteOutcome> short_memory =
      RewriteBytesInto(input, ShareAuto(), PlanOptions{}, WriteNames::kNo,
                       [&](uint64_t size) -> Result<std::span<uint8_t>> {
                         small.assign(size - 1, 0x5A);
                         return std::span<uint8_t>(small);
                       });
  ASSERT_FALSE(short_memory.ok());
  EXPECT_EQ(short_memory.error().message.rfind("the output holds ", 0), 0u)
      << short_memory.error().message;
  EXPECT_EQ(small, std::vector<uint8_t>(small.size(), 0x5A)) << "not a byte written";
}

}  // namespace
}  // namespace pteshare
