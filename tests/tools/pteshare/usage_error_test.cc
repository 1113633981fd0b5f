// Command-line mistakes as a user makes them (tools/pteshare/usage_error.h):
// each is one line that names the command or option, says what to type,
// and where the help is; exit 2. CLI11's own words ("A subcommand is
// required", "The following argument was not expected") never reach the
// user.
#include "tools/pteshare/usage_error.h"

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace pteshare::cli {
namespace {

using test_support::CommandOutput;
using test_support::RunTool;

// The one line `pteshare ARGS...` prints on stderr, checked to be a usage
// error (exit 2, nothing on stdout).
std::string UsageLine(const std::vector<std::string>& args) {
  const CommandOutput out = RunTool("pteshare", args);
  EXPECT_EQ(out.exit_status, 2) << out.err;
  EXPECT_EQ(out.out, "");
  return out.err;
}

TEST(UsageError, AnUnknownCommandListsTheCommandsAndTheNearestOne) {
  EXPECT_EQ(UsageLine({"bogus"}),
            "pteshare: unknown command 'bogus'; the commands are inspect, plan, rewrite, verify, "
            "plot, pack (pteshare --help)\n");
  EXPECT_EQ(UsageLine({"plna", "model.pte"}),
            "pteshare: unknown command 'plna' (did you mean plan?); the commands are inspect, "
            "plan, rewrite, verify, plot, pack (pteshare --help)\n");
  EXPECT_EQ(UsageLine({}),
            "pteshare: give a command: inspect, plan, rewrite, verify, plot, pack (pteshare "
            "--help)\n");
  EXPECT_EQ(UsageLine({"--bogus"}),
            "pteshare: unknown option --bogus; give a command first, e.g. pteshare plan FILE "
            "(pteshare --help)\n");
}

TEST(UsageError, AnUnknownOptionNamesTheCommandAndTheNearestOption) {
  EXPECT_EQ(UsageLine({"plan", "--shar-auto", "model.pte"}),
            "pteshare: unknown option --shar-auto for plan; did you mean --share-auto? "
            "(pteshare plan --help)\n");
  EXPECT_EQ(UsageLine({"rewrite", "model.pte", "--write-name", "-o", "out.pte"}),
            "pteshare: unknown option --write-name for rewrite; did you mean --write-names? "
            "(pteshare rewrite --help)\n");
  // CLI11 would say the FILE is missing: the unknown option comes first.
  EXPECT_EQ(UsageLine({"plan", "--nothing-like-it"}),
            "pteshare: unknown option --nothing-like-it for plan (pteshare plan --help)\n");
}

TEST(UsageError, AMissingArgumentShowsWhatToType) {
  EXPECT_EQ(
      UsageLine({"plan"}),
      "pteshare: plan needs FILE: type pteshare plan FILE [options] (pteshare plan --help)\n");
  EXPECT_EQ(UsageLine({"rewrite"}),
            "pteshare: rewrite needs FILE...: type pteshare rewrite FILE... [options] (pteshare "
            "rewrite --help)\n");
  // plot writes a picture, a trace or both: it says which to give.
  EXPECT_EQ(UsageLine({"plot", "model.pte"}),
            "pteshare: model.pte: nothing to write: give -o OUT.svg, OUT.html or OUT.json, or "
            "--trace OUT.json\n");
  EXPECT_EQ(UsageLine({"pack"}),
            "pteshare: pack needs INSTANCE.csv: type pteshare pack INSTANCE.csv [options] "
            "(pteshare pack --help)\n");
  EXPECT_EQ(UsageLine({"plan", "model.pte", "--alignment"}),
            "pteshare: --alignment needs a value: --alignment BYTES (pteshare plan --help)\n");
  EXPECT_EQ(UsageLine({"plan", "a.pte", "b.pte"}),
            "pteshare: unexpected argument 'b.pte': type pteshare plan FILE [options] (pteshare "
            "plan --help)\n");
}

TEST(UsageError, ABadValueIsQuotedAsTyped) {
  EXPECT_EQ(UsageLine({"plan", "model.pte", "--alignment", "64k"}),
            "pteshare: --alignment: '64k' is not a non-negative integer (pteshare plan --help)\n");
  EXPECT_EQ(UsageLine({"plan", "model.pte", "--strategy", "fast"}),
            "pteshare: --strategy: 'fast': expected relocate, replan or best (pteshare plan "
            "--help)\n");
  EXPECT_EQ(UsageLine({"pack", "a.csv", "--time-limit", "soon"}),
            "pteshare: --time-limit: 'soon' is not a number of seconds (e.g. 2 or 0.5) (pteshare "
            "pack --help)\n");
  EXPECT_EQ(UsageLine({"rewrite", "model.pte", "-o", "out.pte", "--in-place"}),
            "pteshare: give -o or --in-place, not both (pteshare rewrite --help)\n");
}

// Every placeholder says what the value is, never CLI11's type names
// ("UINT:UINT", "TEXT", "FLOAT:NONNEGATIVE").
TEST(UsageError, HelpShowsWhatEachValueMeans) {
  for (const std::string command : {"inspect", "plan", "rewrite", "verify", "plot", "pack"}) {
    const CommandOutput help = RunTool("pteshare", {command, "--help"});
    ASSERT_EQ(help.exit_status, 0) << help.err;
    for (const char* type : {"UINT", "TEXT", "FLOAT", "NONNEGATIVE", "... ..."}) {
      EXPECT_EQ(help.out.find(type), std::string::npos) << command << ": " << type << "\n"
                                                        << help.out;
    }
  }
  const std::string plan = RunTool("pteshare", {"plan", "--help"}).out;
  EXPECT_TRUE(test_support::Contains(plan, "  --alignment BYTES ")) << plan;
  EXPECT_TRUE(test_support::Contains(plan, "  --arena-limit ID=BYTES ...")) << plan;
  EXPECT_TRUE(test_support::Contains(plan, "  --share NAME ...")) << plan;
  EXPECT_TRUE(test_support::Contains(plan, "  --names-from FILE ...")) << plan;
  const std::string pack = RunTool("pteshare", {"pack", "--help"}).out;
  EXPECT_TRUE(test_support::Contains(pack, "  --capacity BYTES ")) << pack;
  EXPECT_TRUE(test_support::Contains(pack, "  --time-limit SECONDS ")) << pack;
}

TEST(UsageError, TheNearestWordIsAFewLettersAwayOrNone) {
  const std::vector<std::string> flags = {"--share", "--share-auto", "--json", "-o"};
  EXPECT_EQ(NearestWord("--shar-auto", flags), "--share-auto");
  EXPECT_EQ(NearestWord("--jsno", flags), "--json");  // two letters swapped
  EXPECT_EQ(NearestWord("--verbose", flags), "");
  EXPECT_EQ(NearestWord("-x", flags), "");  // one letter of two is too far
}

}  // namespace
}  // namespace pteshare::cli
