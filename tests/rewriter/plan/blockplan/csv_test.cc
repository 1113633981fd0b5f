// CSV instances in MiniMalloc's format: reading, the errors a user sees for a
// bad file (line number and what is wrong), and writing a placement back.
#include "rewriter/plan/blockplan/csv.h"

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace pteshare {
namespace {

TEST(BlockCsv, ReadsThePaperToy) {
  Result<BlockProblem> problem = ParseBlockCsv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n");
  ASSERT_TRUE(problem.ok()) << problem.error().message;
  ASSERT_EQ(problem->blocks.size(), 2u);
  EXPECT_EQ(problem->blocks[1].id, "b2");
  EXPECT_EQ(problem->blocks[1].lifespan.begin, 3);
  EXPECT_EQ(problem->blocks[1].lifespan.end, 9);
  EXPECT_EQ(problem->blocks[1].size, 4u);
  EXPECT_FALSE(problem->blocks[1].fixed_offset);
  EXPECT_EQ(problem->alignment, 1u);
}

TEST(BlockCsv, ColumnsMayComeInAnyOrderWithCrlfAndBlankLines) {
  Result<BlockProblem> problem = ParseBlockCsv("size,id,upper,lower\r\n\r\n8,x,5,1\r\n");
  ASSERT_TRUE(problem.ok()) << problem.error().message;
  EXPECT_EQ(problem->blocks[0].id, "x");
  EXPECT_EQ(problem->blocks[0].size, 8u);
  EXPECT_EQ(problem->blocks[0].lifespan.begin, 1);
}

TEST(BlockCsv, AnOffsetCellPrePlacesABlockAndAnEmptyOneDoesNot) {
  Result<BlockProblem> problem =
      ParseBlockCsv("id,lower,upper,size,offset\nf,0,9,4,16\ng,0,9,4,\n");
  ASSERT_TRUE(problem.ok()) << problem.error().message;
  EXPECT_EQ(problem->blocks[0].fixed_offset, std::optional<Offset>(16));
  EXPECT_FALSE(problem->blocks[1].fixed_offset);
}

struct BadCsv {
  const char* text;
  const char* message;
};

class BlockCsvErrors : public ::testing::TestWithParam<BadCsv> {};

TEST_P(BlockCsvErrors, NameTheLineAndTheProblem) {
  Result<BlockProblem> problem = ParseBlockCsv(GetParam().text);
  ASSERT_FALSE(problem.ok());
  EXPECT_EQ(problem.error().message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BlockCsvErrors,
    ::testing::Values(
        BadCsv{"", "empty file: expected the header id,lower,upper,size"},
        BadCsv{
            "id,lower,upper\n",
            "line 1: header lacks the 'size' column (the header is id,lower,upper,size[,offset])"},
        BadCsv{"id,lower,upper,size,colour\n",
               "line 1: unknown column 'colour' (the header is id,lower,upper,size[,offset])"},
        BadCsv{"id,lower,upper,size,size\n", "line 1: column 'size' appears twice"},
        BadCsv{"id,lower,upper,size\na,0,3\n",
               "line 2: expected 4 comma-separated fields, found 3"},
        BadCsv{"id,lower,upper,size\na,0,3,4\n\nb,x,3,4\n", "line 4: lower 'x' is not an integer"},
        BadCsv{"id,lower,upper,size\na,0,3,-4\n",
               "line 2: size '-4' is not a non-negative integer"},
        BadCsv{"id,lower,upper,size\na,0,3,99999999999999999999\n",
               "line 2: size '99999999999999999999' is not a non-negative integer"},
        BadCsv{"id,lower,upper,size\na,9,3,4\n",
               "line 2: upper 3 is below lower 9 (the lifespan is [lower, upper))"},
        BadCsv{"id,lower,upper,size\na,0,3,4\na,3,6,4\n", "line 3: id 'a' already used on line 2"},
        BadCsv{"id,lower,upper,size\n,0,3,4\n", "line 2: empty id"},
        BadCsv{"id,lower,upper,size,offset\na,0,3,4,-1\n",
               "line 2: offset '-1' is not a non-negative integer"}));

TEST(BlockCsv, WritesRowsWithAnOffsetColumnThatReadsBackAsFixed) {
  BlockProblem problem;
  problem.blocks = {{"a", {0, 3}, 4, std::nullopt}, {"b", {1, 2}, 8, std::nullopt}};
  BlockSolution solution{{0, 4}, 12};
  std::string text = FormatBlockCsv(problem, solution);
  EXPECT_EQ(text, "id,lower,upper,size,offset\na,0,3,4,0\nb,1,2,8,4\n");
  Result<BlockProblem> back = ParseBlockCsv(text);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->blocks[1].fixed_offset, std::optional<Offset>(4));
}

TEST(BlockCsv, AnUnreadableFileSaysSo) {
  Result<BlockProblem> problem = ReadBlockCsvFile("/nonexistent/instance.csv");
  ASSERT_FALSE(problem.ok());
  EXPECT_EQ(problem.error().message, "cannot read: No such file or directory");
}

TEST(BlockCsv, ReadsEverySuiteInstance) {
  std::filesystem::path shared = test_support::SharedDir();
  if (shared.empty()) GTEST_SKIP() << "../shared is absent: planner suite not checked";
  for (char name = 'A'; name <= 'K'; ++name) {
    auto path = shared / "planner-suite" / (std::string(1, name) + ".1048576.csv");
    Result<BlockProblem> problem = ReadBlockCsvFile(path);
    ASSERT_TRUE(problem.ok()) << path << ": " << problem.error().message;
    EXPECT_GT(problem->blocks.size(), 150u) << path;
  }
}

}  // namespace
}  // namespace pteshare
