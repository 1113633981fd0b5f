// `pteshare plan` as a user runs it on pte-synth programs: verified plans,
// JSON, and exit statuses for input errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "rewriter/open_program.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using test_support::CommandOutput;
using test_support::Contains;
using test_support::RunTool;
using test_support::TempDir;

std::string Synth(const TempDir& dir, const std::string& name, std::vector<std::string> args) {
  return test_support::SynthLlm(dir.path(), name, std::move(args));
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
  std::string file = Synth(dir, "llm.pte", {"--named"});
  CommandOutput out =
      RunTool("pteshare", {"plan", file, "--share", "layers.1.attention.kv_cache.v_cache",
                           "layers.0.attention.kv_cache.k_cache"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "2 shared buffers"));
  EXPECT_FALSE(Contains(out.out, "layers.0.attention.kv_cache.v_cache  "));
}

TEST(PlanCommand, ShareAutoPairsUnnamedStateAndPrintsEveryPair) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});  // unnamed, as exported
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--strategy", "relocate"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "paired 4 unnamed mutable buffers by position")) << out.out;
  EXPECT_TRUE(Contains(out.out, "prefill:34 <-> decode:34  FLOAT[128,4,16]  arena 1")) << out.out;
  EXPECT_TRUE(Contains(out.out, "4 shared buffers")) << out.out;
  EXPECT_TRUE(Contains(out.out, "verified: I1 I2 I3 I4 I5 I6 hold")) << out.out;
}

TEST(PlanCommand, UnknownNameIsExitTwoWithOneLine) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share", "kv"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err, "pteshare: " + file +
                         ": shared buffer 'kv' is not the name of a tensor in any method\n");
}

TEST(PlanCommand, NothingChosenIsExitTwoForRelocate) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--strategy", "relocate"});
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

// --strategy takes its three words only: not another word, not the number
// an enum stores.
TEST(PlanCommand, StrategyIsOneOfItsWords) {
  TempDir dir;
  const std::string file = Synth(dir, "llm.pte", {});
  for (const char* bad : {"fastest", "2", ""}) {
    CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--strategy", bad});
    EXPECT_EQ(out.exit_status, 2) << bad;
    EXPECT_TRUE(Contains(out.err, "--strategy")) << out.err;
    EXPECT_TRUE(Contains(out.err, "expected relocate, replan or best")) << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  }
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--strategy", "replan"});
  EXPECT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "strategy replan")) << out.out;
}

TEST(PlanCommand, AlignmentMustBeAPowerOfTwo) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--alignment", "24"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Contains(out.err, "--alignment 24 is not a power of two")) << out.err;
  // Issue 23: 2^40 overflowed the slot sums into plans that failed
  // verification ("a pteshare bug", exit 0 from plan).
  out = RunTool("pteshare", {"plan", file, "--share-auto", "--alignment", "1099511627776"});
  EXPECT_EQ(out.exit_status, 2) << out.out;
  EXPECT_TRUE(Contains(out.err, "--alignment 1099511627776 is more than 1073741824 (1 GiB)"))
      << out.err;
}

// pte-synth aligns every tensor to 256: --alignment 16 would let replan put
// some at 16-byte multiples, which lowers their alignment, so it is refused
// naming the first such tensor; relocate keeps every tensor on its 256-byte
// grid (the front is a multiple of 256), so there the smaller value is kept.
TEST(PlanCommand, AlignmentBelowTheInputsIsRefusedWhereATensorWouldLoseIt) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--alignment", "16"});
  EXPECT_EQ(out.exit_status, 2) << out.out;
  EXPECT_TRUE(Contains(out.err, "--alignment 16 is below the input's alignment (256)")) << out.err;
  EXPECT_TRUE(Contains(out.err, "lowering its alignment from 256 bytes; refused")) << out.err;
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;

  CommandOutput relocate = RunTool(
      "pteshare", {"plan", file, "--share-auto", "--alignment", "16", "--strategy", "relocate"});
  EXPECT_EQ(relocate.exit_status, 0) << relocate.err;
  EXPECT_TRUE(Contains(relocate.out, "  plan: strategy relocate, layout front, alignment 16\n"))
      << relocate.out;
}

// The rule is judged per moved tensor, so the same options on the rewritten
// file (whose offsets detect a coarser alignment) plan to no change (I7).
TEST(PlanCommand, AlignmentBelowTheInputsIsStableOnTheRewrittenFile) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  const std::string out_file = (dir.path() / "out.pte").string();
  const std::vector<std::string> options = {"--share-auto", "--alignment", "16", "--strategy",
                                            "relocate"};
  std::vector<std::string> first = {"rewrite", file, "-o", out_file};
  first.insert(first.end(), options.begin(), options.end());
  CommandOutput once = RunTool("pteshare", first);
  ASSERT_EQ(once.exit_status, 0) << once.err;
  std::vector<std::string> again = {"rewrite", out_file, "--in-place"};
  again.insert(again.end(), options.begin(), options.end());
  CommandOutput twice = RunTool("pteshare", again);
  EXPECT_EQ(twice.exit_status, 0) << twice.err;
  EXPECT_TRUE(Contains(twice.out, "already planned, no change")) << twice.out;
}

TEST(PlanCommand, SamePlanEveryRun) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "4"});
  CommandOutput a = RunTool("pteshare", {"plan", file, "--share-auto", "--json"});
  CommandOutput b = RunTool("pteshare", {"plan", file, "--share-auto", "--json"});
  EXPECT_EQ(a.out, b.out);
}

TEST(PlanCommand, ShowsLowerBoundAndWhatEachStrategyGivesPerArena) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "  plan: strategy best, layout front, alignment 256\n")) << out.out;
  EXPECT_TRUE(Contains(out.out,
                       "arena 1 CPU     459,264 -> 442,880 bytes (-16,384), front 131,072; LB "
                       "442,880, relocate 459,264, replan 442,880 -> replan"))
      << out.out;
  EXPECT_TRUE(Contains(out.out, "verified: I1 I2 I3 I4 I5 I6 hold"));
}

TEST(PlanCommand, JsonCarriesLowerBoundAndStrategySizes) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--json"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  for (const char* part :
       {"\"strategy\": \"best\"", "\"size_before\": 459264", "\"size_after\": 442880",
        "\"strategy\": \"replan\"", "\"lower_bound\": 442880", "\"size_relocate\": 459264",
        "\"size_replan\": 442880", "\"verified\": true"}) {
    EXPECT_TRUE(Contains(out.out, part)) << part << "\n" << out.out;
  }
}

TEST(PlanCommand, StrategyRelocateStillShowsWhatReplanWouldGive) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--strategy", "relocate"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out,
                       "459,264 -> 459,264 bytes (unchanged), front 131,072; LB 442,880, "
                       "relocate 459,264, replan 442,880 -> relocate"))
      << out.out;
}

TEST(PlanCommand, CnnWithoutStateIsReplannedWithNothingShared) {
  TempDir dir;
  std::string file = (dir / "cnn.pte").string();
  ASSERT_EQ(RunTool("pte-synth", {"cnn", "-o", file}).exit_status, 0);
  CommandOutput out = RunTool("pteshare", {"plan", file, "--strategy", "replan"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out,
                       "arena 1 CPU     327,680 -> 262,144 bytes (-65,536); LB 262,144, "
                       "relocate 327,680, replan 262,144 -> replan"))
      << out.out;
  EXPECT_FALSE(Contains(out.out, "front region"));
}

TEST(PlanCommand, ArenaLimitNoPlanMeetsIsExitOneWithTheMiss) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out =
      RunTool("pteshare", {"plan", file, "--share-auto", "--arena-limit", "1=440000"});
  EXPECT_EQ(out.exit_status, 1);
  EXPECT_EQ(out.err, "pteshare: " + file +
                         ": no plan fits --arena-limit: method prefill: arena 1 needs 442,880 "
                         "bytes (relocate 459,264, replan 442,880), 2,880 over its limit of "
                         "440,000: 442,880 bytes of its tensors are live at once (its front region "
                         "included)\n");
  EXPECT_TRUE(out.out.empty()) << out.out;
}

// A limit below the shared buffers' front region: said in the arena's
// words (issue 27: it was "block 'front' [0, 1161) is fixed at offset 0 +
// 2097152 bytes, past the capacity 1999872").
TEST(PlanCommand, ArenaLimitBelowTheFrontRegionSaysSo) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "32"});
  CommandOutput out =
      RunTool("pteshare", {"plan", file, "--share-auto", "--arena-limit", "1=1999872"});
  EXPECT_EQ(out.exit_status, 1);
  EXPECT_TRUE(Contains(out.err,
                       ", 409,088 over its limit of 1,999,872: its front region (the "
                       "shared buffers' slots) alone takes 2,097,152 bytes; method "
                       "decode: "))
      << out.err;
  for (const char* planner_word : {"block", "capacity", "instant", "%"}) {
    EXPECT_FALSE(Contains(out.err, planner_word)) << planner_word << ": " << out.err;
  }
}

TEST(PlanCommand, ArenaLimitThatFitsIsExitZero) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out =
      RunTool("pteshare", {"plan", file, "--share-auto", "--arena-limit", "1=442880"});
  EXPECT_EQ(out.exit_status, 0) << out.err;
}

TEST(PlanCommand, BadArenaLimitIsExitTwo) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--arena-limit", "1:5"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Contains(out.err, "--arena-limit '1:5': expected ID=BYTES")) << out.err;
}

TEST(PlanCommand, ShowsTheMemoryOfOneSharedSetOfArenasAndOfSeparateSets) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "4"});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--json"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  // Per arena: one set = the largest method, separate sets = the sum.
  EXPECT_TRUE(Contains(out.out, "\"format_version\": 2")) << out.out;
  EXPECT_TRUE(Contains(out.out, "\"one_set_before\": 590336")) << out.out;
  EXPECT_TRUE(Contains(out.out, "\"separate_before\": 890128")) << out.out;
  EXPECT_TRUE(Contains(out.out, "\"one_set_after\": 573952")) << out.out;
  CommandOutput text = RunTool("pteshare", {"plan", file, "--share-auto"});
  EXPECT_TRUE(Contains(text.out, "one set 590,336 -> 573,952; separate sets 890,128 -> "))
      << text.out;
}

TEST(PlanCommand, JsonFailureIsAJsonDocumentWithTheErrorAndExitStatus) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share", "nope", "--json"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Contains(out.out, "\"format_version\": 2")) << out.out;
  EXPECT_TRUE(Contains(out.out, "\"error\": {")) << out.out;
  EXPECT_TRUE(Contains(out.out, "is not the name of a tensor in any method")) << out.out;
  EXPECT_TRUE(Contains(out.out, "\"exit_status\": 2")) << out.out;
  // A usage error too.
  CommandOutput usage = RunTool("pteshare", {"plan", "--json"});
  EXPECT_EQ(usage.exit_status, 2);
  EXPECT_TRUE(Contains(usage.out, "\"exit_status\": 2")) << usage.out;
}

TEST(PlanCommand, OptionsThatWouldBeIgnoredAreErrors) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput limit =
      RunTool("pteshare", {"plan", file, "--share-auto", "--arena-limit", "7=100"});
  EXPECT_EQ(limit.exit_status, 2);
  EXPECT_TRUE(Contains(limit.err, "--arena-limit 7=100: no method has arena 7")) << limit.err;
  Result<OpenedProgram> opened = OpenProgram(file);
  ASSERT_TRUE(opened.ok());
  uint32_t activation = 0;  // a planned tensor that is no cache
  for (const TensorValue& t : opened->view.methods[0].tensors) {
    if (t.planned && !t.has_initial_state) activation = t.value_index;
  }
  CommandOutput name = RunTool("pteshare", {"plan", file, "--share-auto", "--name",
                                            "prefill:" + std::to_string(activation) + "=lonely"});
  EXPECT_EQ(name.exit_status, 2);
  EXPECT_TRUE(Contains(name.err, "'lonely' is not shared")) << name.err;
  CommandOutput range =
      RunTool("pteshare", {"plan", file, "--name", "decode:99999=x", "--share", "x"});
  EXPECT_EQ(range.exit_status, 2);
  EXPECT_TRUE(Contains(range.err, "method decode has ")) << range.err;
}

// Asked to share, a one-method program says why it cannot on its first
// line and exits 3 (not 0, "done"), and the arenas are still replanned.
TEST(PlanCommand, OneMethodSaysNothingToShareExitsThreeAndStillReplans) {
  TempDir dir;
  std::string file = (dir / "cnn.pte").string();
  ASSERT_EQ(RunTool("pte-synth", {"cnn", "-o", file}).exit_status, 0);
  CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto"});
  EXPECT_EQ(out.exit_status, 3) << out.err;
  EXPECT_EQ(out.err, "");
  EXPECT_TRUE(out.out.starts_with(file +
                                  ": nothing to share: the program runs one method (forward), "
                                  "so there is no other method to share with; replanned, "
                                  "memory for the arenas: "))
      << out.out;
  EXPECT_TRUE(Contains(out.out, "\n  method forward: ")) << out.out;
  // Not asked to share, the same program is "done": exit 0.
  CommandOutput replan = RunTool("pteshare", {"plan", file});
  EXPECT_EQ(replan.exit_status, 0) << replan.err;
  EXPECT_EQ(replan.out.substr(0, replan.out.find('\n')), out.out.substr(0, out.out.find('\n')));
}

// The first line's numbers are the JSON's, and they are the memory totals:
// separate sets before against one set after where state is shared, one
// set against one set where it is only replanned.
TEST(PlanCommand, FirstLineIsTheSavingAndJsonHasTheSameNumbers) {
  TempDir dir;
  const std::string llm = Synth(dir, "llm.pte", {"--layers", "3"});
  const std::string cnn = (dir / "cnn.pte").string();
  ASSERT_EQ(RunTool("pte-synth", {"cnn", "-o", cnn}).exit_status, 0);
  for (const std::string& file : {llm, cnn}) {
    SCOPED_TRACE(file);
    CommandOutput text = RunTool("pteshare", {"plan", file, "--share-auto"});
    CommandOutput summary = RunTool("pteshare", {"plan", file, "--share-auto", "--summary"});
    CommandOutput json = RunTool("pteshare", {"plan", file, "--share-auto", "--json"});
    EXPECT_EQ(summary.exit_status, text.exit_status);
    EXPECT_EQ(summary.out, text.out.substr(0, text.out.find('\n') + 1));
    std::smatch numbers;
    ASSERT_TRUE(std::regex_search(summary.out, numbers,
                                  std::regex("\\(([-+][0-9.]+)%; ([0-9,]+) vs ([0-9,]+) bytes\\)")))
        << summary.out;
    auto plain = [](std::string grouped) {
      grouped.erase(std::remove(grouped.begin(), grouped.end(), ','), grouped.end());
      return grouped;
    };
    auto field = [&](const std::string& key) {
      std::smatch m;
      EXPECT_TRUE(std::regex_search(json.out, m, std::regex("\"" + key + "\": ([0-9]+)"))) << key;
      return m.size() > 1 ? m[1].str() : std::string();
    };
    EXPECT_EQ(plain(numbers[2]), field("after_bytes"));
    EXPECT_EQ(plain(numbers[3]), field("before_bytes"));
    const bool shares = file == llm;
    EXPECT_EQ(Contains(json.out, "\"outcome\": \"shared\""), shares) << json.out;
    // The memory totals are the last "total" object's fields.
    const std::string total = json.out.substr(json.out.find("\"total\": {"));
    std::smatch before, after;
    ASSERT_TRUE(std::regex_search(
        total, before,
        std::regex(shares ? "\"separate_before\": ([0-9]+)" : "\"one_set_before\": ([0-9]+)")));
    ASSERT_TRUE(std::regex_search(total, after, std::regex("\"one_set_after\": ([0-9]+)")));
    EXPECT_EQ(before[1].str(), field("before_bytes"));
    EXPECT_EQ(after[1].str(), field("after_bytes"));
  }
}

// F14: a miss in several methods was one line per method; an error is one
// line, always.
TEST(PlanCommand, ArenaLimitMissedByEveryMethodIsOneLine) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out =
      RunTool("pteshare", {"plan", file, "--share-auto", "--arena-limit", "1=1000"});
  EXPECT_EQ(out.exit_status, 1);
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  EXPECT_TRUE(Contains(out.err, ": no plan fits --arena-limit: method prefill: ")) << out.err;
  EXPECT_TRUE(Contains(out.err, "; method decode: ")) << out.err;
}

// F14: `--alignment -1` and `--alignment 18446744073709551616` were both
// read as 18446744073709551615. Each is refused, quoting what was typed.
TEST(PlanCommand, NumbersAreParsedStrictlyAndEchoedAsTyped) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  const std::pair<const char*, const char*> cases[] = {
      {"-1", "pteshare: --alignment: '-1' is not a non-negative integer"},
      {"18446744073709551616",
       "pteshare: --alignment: '18446744073709551616' is more than "
       "18446744073709551615"},
      {"+16", "pteshare: --alignment: '+16' is not a non-negative integer"},
      {"0x10", "pteshare: --alignment: '0x10' is not a non-negative integer"}};
  for (const auto& [typed, message] : cases) {
    SCOPED_TRACE(typed);
    CommandOutput out = RunTool("pteshare", {"plan", file, "--share-auto", "--alignment", typed});
    EXPECT_EQ(out.exit_status, 2);
    EXPECT_EQ(out.err.find(message), 0u) << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  }
  CommandOutput not_power =
      RunTool("pteshare", {"plan", file, "--share-auto", "--alignment", "12"});
  EXPECT_TRUE(Contains(not_power.err, "--alignment 12 is not a power of two")) << not_power.err;
}

// Every real program: `plan --share-auto` starts with the saving or why
// there is none, that line is all of --summary and the JSON's "summary",
// the exit status is 3 exactly when nothing can be shared, and a program
// whose methods call a delegate names its backend on that line.
TEST(PlanCommand, EveryCorpusProgramsFirstLineIsTheSavingOrWhyNone) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  size_t planned = 0, delegates = 0;
  for (const test_support::ManifestRow& row : test_support::CorpusManifest()) {
    if (row.identifier != "ET12" && row.identifier != "BP08") continue;
    const std::string file = test_support::CorpusPath(row).string();
    SCOPED_TRACE(file);
    CommandOutput summary = RunTool("pteshare", {"plan", file, "--share-auto", "--summary"});
    CommandOutput json = RunTool("pteshare", {"plan", file, "--share-auto", "--json"});
    ++planned;
    EXPECT_EQ(summary.err, "");
    EXPECT_EQ(std::count(summary.out.begin(), summary.out.end(), '\n'), 1) << summary.out;
    std::smatch line, outcome;
    ASSERT_TRUE(std::regex_search(json.out, line, std::regex("\"summary\": \"([^\"]*)\"")));
    EXPECT_EQ(summary.out, file + ": " + line[1].str() + "\n");
    ASSERT_TRUE(std::regex_search(json.out, outcome, std::regex("\"outcome\": \"([a-z_]+)\"")));
    const bool shares = outcome[1] == "shared" || outcome[1] == "already_shared";
    EXPECT_EQ(summary.exit_status, shares ? 0 : 3);
    EXPECT_EQ(json.exit_status, summary.exit_status);
    std::smatch backend;
    const std::string delegates_json = json.out.substr(json.out.find("\"delegates\": ["));
    if (std::regex_search(delegates_json, backend, std::regex("\"backend\": \"([^\"]+)\""))) {
      ++delegates;
      EXPECT_TRUE(Contains(summary.out, backend[1].str() + " (in ")) << summary.out;
    }
  }
  size_t bundles = 0;
  for (const test_support::ManifestRow& row : test_support::CorpusManifest())
    bundles += row.identifier == "BP08";
  EXPECT_EQ(planned, test_support::CorpusManifestTotals().programs + bundles);
  EXPECT_GT(delegates, 0u);
}

}  // namespace
}  // namespace pteshare
