// What the application allocates (memory_cost.h): per arena, one set of
// arenas for every method costs the largest method's size, a set per
// method the sum; the arena sizes a program states; and a plan's before
// and after. The corpus test derives its expectations from MANIFEST.tsv.
#include "rewriter/plan/memory_cost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "rewriter/open_program.h"
#include "tests/plan_options.h"
#include "tests/program_fixture.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using synth::FixedMethod;
using test_support::Load;

TEST(MemoryCost, OneSetIsTheLargestMethodAndSeparateSetsTheSum) {
  const MemoryCost cost = ComputeMemoryCost({{100, 50}, {80, 70}});
  ASSERT_EQ(cost.arenas.size(), 2u);
  EXPECT_EQ(cost.arenas[0].memory_id, 1u);
  EXPECT_EQ(cost.arenas[0].one_set_before, 100u);
  EXPECT_EQ(cost.arenas[0].separate_before, 180u);
  EXPECT_EQ(cost.arenas[1].memory_id, 2u);
  EXPECT_EQ(cost.arenas[1].one_set_before, 70u);
  EXPECT_EQ(cost.arenas[1].separate_before, 120u);
  EXPECT_EQ(cost.total.memory_id, 0u);
  EXPECT_EQ(cost.total.one_set_before, 170u);
  EXPECT_EQ(cost.total.separate_before, 300u);
  // A program as it stands: after is before.
  EXPECT_EQ(cost.total.one_set_after, cost.total.one_set_before);
  EXPECT_EQ(cost.total.separate_after, cost.total.separate_before);
}

TEST(MemoryCost, ArenasAMethodLacksCostItNothing) {
  const MemoryCost cost = ComputeMemoryCost({{100}, {10, 20, 30}, {}});
  ASSERT_EQ(cost.arenas.size(), 3u) << "as many as the method with the most";
  EXPECT_EQ(cost.arenas[1].one_set_before, 20u);
  EXPECT_EQ(cost.arenas[1].separate_before, 20u);
  EXPECT_EQ(cost.arenas[2].memory_id, 3u);
  EXPECT_EQ(cost.total.one_set_before, 150u);
  EXPECT_EQ(cost.total.separate_before, 160u);
  EXPECT_TRUE(ComputeMemoryCost(std::vector<std::vector<uint64_t>>{}).arenas.empty());
}

TEST(MemoryCost, ArenaSizesAreWhatEachMethodStatesInIdOrder) {
  auto p = Load(std::vector<FixedMethod>{
      {"a", {{64, 1, 0}, {32, 2, 0}}, {64, 4096}},
      {"b", {{16, 1, 0}}, {1024}},
  });
  ASSERT_TRUE(p);
  EXPECT_EQ(ArenaSizes(p->view), (std::vector<std::vector<uint64_t>>{{64, 4096}, {1024}}));
}

// Sharing k and v with a replan moves prefill's activations around the
// front: the plan's own sizes before and after, per arena and in total.
TEST(MemoryCost, APlanIsCostedFromItsSizesBeforeAndAfter) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  const PlanResult made = test_support::PlanVerified(p->view, test_support::ShareNames({"k", "v"}),
                                                     WithStrategy(Strategy::kReplan, 16));
  const MemoryCost cost = ComputeMemoryCost(made.plan);
  const MethodPlan& prefill = made.plan.methods[0];
  const MethodPlan& decode = made.plan.methods[1];
  ASSERT_EQ(cost.arenas.size(), 1u);
  EXPECT_EQ(cost.arenas[0].one_set_before, 320u);
  EXPECT_EQ(cost.arenas[0].separate_before, 320u + 160u);
  EXPECT_EQ(cost.arenas[0].one_set_after,
            std::max(prefill.arena_sizes_after[0], decode.arena_sizes_after[0]));
  EXPECT_EQ(cost.arenas[0].separate_after,
            prefill.arena_sizes_after[0] + decode.arena_sizes_after[0]);
  EXPECT_LE(cost.total.one_set_after, cost.total.one_set_before);
}

// "[0,1296]" per method: entry 0 is reserved, the rest are arenas 1..n.
std::vector<uint64_t> ManifestArenas(const std::string& text) {
  std::vector<uint64_t> sizes;
  std::stringstream in(text.substr(1, text.size() - 2));
  std::string item;
  for (bool first = true; std::getline(in, item, ','); first = false) {
    if (!first) sizes.push_back(std::stoull(item));
  }
  return sizes;
}

TEST(MemoryCost, EveryCorpusProgramCostsWhatItsManifestRowStates) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  size_t programs = 0;
  for (const test_support::ManifestRow& row : test_support::CorpusProgramRows()) {
    SCOPED_TRACE(row.file);
    Result<OpenedProgram> opened = OpenProgram(test_support::CorpusPath(row));
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    uint64_t one_set = 0, separate = 0;
    std::vector<uint64_t> largest;
    for (const std::string& text : row.arena_sizes) {
      const std::vector<uint64_t> sizes = ManifestArenas(text);
      if (largest.size() < sizes.size()) largest.resize(sizes.size());
      for (size_t i = 0; i < sizes.size(); ++i) {
        largest[i] = std::max(largest[i], sizes[i]);
        separate += sizes[i];
      }
    }
    for (uint64_t size : largest) one_set += size;
    const MemoryCost cost = ComputeMemoryCost(ArenaSizes(opened->view));
    EXPECT_EQ(cost.arenas.size(), largest.size());
    EXPECT_EQ(cost.total.one_set_before, one_set);
    EXPECT_EQ(cost.total.separate_before, separate);
    ++programs;
  }
  EXPECT_EQ(programs, test_support::CorpusManifestTotals().programs);
}

}  // namespace
}  // namespace pteshare
