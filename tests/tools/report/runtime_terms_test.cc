// The plan in ExecuTorch's words (runtime_terms.h): planned buffer i is
// arena i+1, each method's memory_planned_buffer_size, the one set of
// spans, and whether Module(share_memory_arenas=true) runs the result.
#include "tools/report/runtime_terms.h"

#include <gtest/gtest.h>

#include <regex>

#include "rewriter/plan/memory_cost.h"
#include "tests/plan_options.h"
#include "tests/program_fixture.h"
#include "tools/report/numbers.h"

namespace pteshare::cli {
namespace {

using synth::FixedMethod;
using test_support::Load;

PlanResult SharingKV(const ProgramView& view) {
  return test_support::PlanVerified(view, test_support::ShareNames({"k", "v"}),
                                    WithStrategy(Strategy::kReplan, 16));
}

TEST(RuntimeTerms, EachMethodsPlannedBufferSizesAreItsArenasAfterThePlan) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  const PlanResult made = SharingKV(p->view);
  const std::string text = RuntimeTermsText(p->view, made.plan, "");
  for (const MethodPlan& m : made.plan.methods) {
    ASSERT_EQ(m.arena_sizes_after.size(), 1u);
    EXPECT_TRUE(std::regex_search(
        text, std::regex("\n  " + m.name + " +\\[0\\] " + Grouped(m.arena_sizes_after[0]))))
        << text;
  }
  const uint64_t one_set = ComputeMemoryCost(made.plan).total.one_set_after;
  EXPECT_NE(text.find("allocate planned buffer 0 (arena 1) " + Grouped(one_set) + " bytes (CPU)"),
            std::string::npos)
      << text;
  const ModuleVerdict module = ModuleSharing(p->view, made.plan);
  EXPECT_TRUE(module.runs) << module.why;
  EXPECT_NE(text.find(module.why), std::string::npos);
}

// Module shares planned buffers 0 and 1 only: state in arena 3 is not.
TEST(RuntimeTerms, ModuleCannotShareStateInArenaThree) {
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0}, {64, 3, 0, "k", true}}, {64, 0, 64}},
      {"decode", {{32, 1, 0}, {64, 3, 64, "k", true}}, {32, 0, 128}},
  });
  ASSERT_TRUE(p);
  const PlanResult made = test_support::PlanVerified(p->view, test_support::ShareNames({"k"}),
                                                     WithStrategy(Strategy::kReplan, 16));
  const ModuleVerdict module = ModuleSharing(p->view, made.plan);
  EXPECT_FALSE(module.runs);
  EXPECT_NE(module.why.find("planned buffer 2 (arena 3)"), std::string::npos) << module.why;
}

// Module refuses to share at all when a method has an arena off the CPU.
TEST(RuntimeTerms, ModuleCannotShareWhereAMethodHasADeviceArena) {
  std::vector<FixedMethod> methods = test_support::TwoMethodsSharingKV();
  methods[1].tensors.push_back({32, 2, 0});
  methods[1].devices = {synth::ArenaDevice{2, synth::DeviceType::CUDA, 0}};
  auto p = Load(methods);
  ASSERT_TRUE(p);
  const PlanResult made = SharingKV(p->view);
  const ModuleVerdict module = ModuleSharing(p->view, made.plan);
  EXPECT_FALSE(module.runs);
  EXPECT_NE(module.why.find("planned buffer 1 (arena 2) of decode is on CUDA:0"), std::string::npos)
      << module.why;
}

TEST(RuntimeTerms, JsonListsEveryMethodsSizesAndTheVerdict) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  const PlanResult made = SharingKV(p->view);
  JsonWriter json;
  json.BeginObject();
  WriteRuntimeTermsJson(json, p->view, made.plan);
  json.EndObject();
  const std::string& text = json.str();
  EXPECT_TRUE(std::regex_search(
      text, std::regex("\"memory_planned_buffer_sizes\": \\[\\s*" +
                       std::to_string(made.plan.methods[0].arena_sizes_after[0]) + "\\s*\\]")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("\"planned_buffer\": 0,\\s*\"memory_id\": 1")))
      << text;
  EXPECT_NE(text.find("\"runs\": true"), std::string::npos) << text;
}

}  // namespace
}  // namespace pteshare::cli
