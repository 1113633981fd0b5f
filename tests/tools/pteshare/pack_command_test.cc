// `pteshare pack` as a user runs it: rows with offsets on stdout, a summary
// on stderr, and the exit statuses of design.md (2 bad input, 1 no plan).
#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace pteshare {
namespace {

using test_support::RunTool;
using test_support::TempDir;

TEST(PackCommand, PlacesThePaperToyAndSummarises) {
  TempDir dir;
  test_support::WriteFileBytes(
      dir / "toy.csv", "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n");
  test_support::CommandOutput result = RunTool("pteshare", {"pack", (dir / "toy.csv").string()});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out.substr(0, result.out.find('\n')), "id,lower,upper,size,offset");
  EXPECT_EQ(std::count(result.out.begin(), result.out.end(), '\n'), 6);
  EXPECT_NE(result.err.find("arena 12 bytes, lower bound 12, overhead 0.00% (optimal)"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1);
}

TEST(PackCommand, JsonCarriesTheSummaryAndEveryBlock) {
  TempDir dir;
  test_support::WriteFileBytes(dir / "two.csv", "id,lower,upper,size\na,0,2,8\nb,1,3,8\n");
  test_support::CommandOutput result =
      RunTool("pteshare", {"pack", (dir / "two.csv").string(), "--json", "--alignment", "16"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.out.find("\"arena_size\": 24"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("\"lower_bound\": 16"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("\"id\": \"b\""), std::string::npos) << result.out;
}

TEST(PackCommand, SameSeedAndStepsGiveTheSameOffsets) {
  std::filesystem::path shared = test_support::SharedDir();
  if (shared.empty()) GTEST_SKIP() << "../shared is absent: planner suite not used";
  std::string instance = (shared / "planner-suite" / "A.1048576.csv").string();
  auto first = RunTool("pteshare", {"pack", instance, "--seed", "4", "--steps", "3000000"});
  auto second = RunTool("pteshare", {"pack", instance, "--seed", "4", "--steps", "3000000"});
  EXPECT_EQ(first.exit_status, 0) << first.err;
  EXPECT_EQ(first.out, second.out);
}

TEST(PackCommand, InvalidCsvIsOneLineNamingFileAndLineAndExitsTwo) {
  TempDir dir;
  std::string path = (dir / "bad.csv").string();
  test_support::WriteFileBytes(path, "id,lower,upper,size\na,0,3,4\nb,0,three,4\n");
  test_support::CommandOutput result = RunTool("pteshare", {"pack", path});
  EXPECT_EQ(result.exit_status, 2);
  std::string expected = "pteshare: ";  // appended: GCC 12 warns falsely on "..." + string
  expected += path;
  expected += ": line 3: upper 'three' is not an integer\n";
  EXPECT_EQ(result.err, expected);
  EXPECT_EQ(result.out, "");
}

TEST(PackCommand, UnreadableFileExitsTwo) {
  test_support::CommandOutput result = RunTool("pteshare", {"pack", "/nonexistent/x.csv"});
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_EQ(result.err, "pteshare: /nonexistent/x.csv: cannot read: No such file or directory\n");
}

TEST(PackCommand, CapacityMissExitsOneAndSaysByHowMuch) {
  TempDir dir;
  std::string path = (dir / "two.csv").string();
  test_support::WriteFileBytes(path, "id,lower,upper,size\na,0,2,8\nb,1,3,8\n");
  test_support::CommandOutput result = RunTool("pteshare", {"pack", path, "--capacity", "12"});
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_NE(result.err.find("no plan fits the capacity of 12 bytes"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("4 bytes (33.3%) over"), std::string::npos) << result.err;
  test_support::CommandOutput fits = RunTool("pteshare", {"pack", path, "--capacity", "16"});
  EXPECT_EQ(fits.exit_status, 0) << fits.err;
}

TEST(PackCommand, BadUsageExitsTwoAndHelpTeaches) {
  EXPECT_EQ(RunTool("pteshare", {"pack"}).exit_status, 2);
  EXPECT_EQ(RunTool("pteshare", {"pack", "x.csv", "--steps", "many"}).exit_status, 2);
  test_support::CommandOutput help = RunTool("pteshare", {"pack", "--help"});
  EXPECT_EQ(help.exit_status, 0);
  EXPECT_NE(help.out.find("id,lower,upper,size"), std::string::npos);
  EXPECT_NE(help.out.find("--time-limit"), std::string::npos);
}

}  // namespace
}  // namespace pteshare
