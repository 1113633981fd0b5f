// What a plan gives the user (saving.h): which sizes are compared for each
// kind of plan, and why nothing is shared, on fixtures and on every real
// corpus program (delegate programs named by their backend).
#include "rewriter/plan/saving.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "rewriter/open_program.h"
#include "tests/plan_options.h"
#include "tests/program_fixture.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using synth::FixedMethod;
using test_support::Load;

ShareRequest ShareAuto() {
  ShareRequest request;
  request.share_auto = true;
  request.allow_none = true;
  return request;
}

TEST(Saving, SharedStateComparesOneSetAfterWithSeparateSetsBefore) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  const PlanResult made = test_support::PlanVerified(p->view, test_support::ShareNames({"k", "v"}),
                                                     WithStrategy(Strategy::kReplan, 16));
  const MemoryCost cost = ComputeMemoryCost(made.plan);
  ASSERT_TRUE(PlanChangesProgram(made.plan));
  const PlanSaving saving = DescribeSaving(p->view, made, true, true);
  EXPECT_EQ(saving.kind, SavingKind::kShared);
  EXPECT_EQ(saving.reason, NoShareReason::kNone);
  EXPECT_EQ(saving.shared_buffers, 2u);
  EXPECT_TRUE(saving.before_is_separate_sets);
  EXPECT_EQ(saving.before, cost.total.separate_before);
  EXPECT_EQ(saving.after, cost.total.one_set_after);
  EXPECT_EQ(saving.saved(), saving.before - saving.after);
  EXPECT_LT(saving.change_percent(), 0);
  EXPECT_EQ(saving.planning_methods, (std::vector<std::string>{"prefill", "decode"}));
}

// A program whose shared buffers already sit at one placement: one set
// before and after, nothing saved, nothing to change.
TEST(Saving, AlreadySharedComparesOneSetWithItself) {
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0, "k", true}, {128, 1, 64}}},
      {"decode", {{64, 1, 0, "k", true}, {32, 1, 64}}},
  });
  ASSERT_TRUE(p);
  const PlanResult made = test_support::PlanVerified(p->view, test_support::ShareNames({"k"}),
                                                     WithStrategy(Strategy::kRelocate, 16));
  ASSERT_FALSE(PlanChangesProgram(made.plan));
  const PlanSaving saving = DescribeSaving(p->view, made, false, true);
  EXPECT_EQ(saving.kind, SavingKind::kAlreadyShared);
  EXPECT_TRUE(saving.shares());
  EXPECT_FALSE(saving.before_is_separate_sets);
  EXPECT_EQ(saving.before, saving.after);
  EXPECT_EQ(saving.saved(), 0u);
}

TEST(Saving, OneMethodHasNobodyToShareWith) {
  auto p = Load(std::vector<FixedMethod>{{"forward", {{64, 1, 0}, {64, 1, 64}, {64, 1, 128}}}});
  ASSERT_TRUE(p);
  const PlanResult made =
      test_support::PlanVerified(p->view, ShareAuto(), WithStrategy(Strategy::kReplan, 16));
  const PlanSaving saving = DescribeSaving(p->view, made, PlanChangesProgram(made.plan), true);
  EXPECT_FALSE(saving.shares());
  EXPECT_EQ(saving.reason, NoShareReason::kOneMethod);
  EXPECT_EQ(saving.running_methods, (std::vector<std::string>{"forward"}));
  EXPECT_EQ(saving.before, ComputeMemoryCost(made.plan).total.one_set_before);
  EXPECT_EQ(saving.after, ComputeMemoryCost(made.plan).total.one_set_after);
  EXPECT_EQ(saving.kind, saving.before == saving.after && !PlanChangesProgram(made.plan)
                             ? SavingKind::kUnchanged
                             : SavingKind::kReplanned);
}

TEST(Saving, StateInOneOfTwoMethodsIsSaidWithItsMethod) {
  auto p = Load(std::vector<FixedMethod>{
      {"prefill", {{64, 1, 0}, {64, 1, 64}}},
      {"decode", {{64, 1, 0, "k", true}, {32, 1, 64}}},
  });
  ASSERT_TRUE(p);
  const PlanResult made =
      test_support::PlanVerified(p->view, ShareAuto(), WithStrategy(Strategy::kReplan, 16));
  const PlanSaving saving = DescribeSaving(p->view, made, PlanChangesProgram(made.plan), true);
  EXPECT_EQ(saving.reason, NoShareReason::kStateInOneMethod);
  EXPECT_EQ(saving.method_with_state, "decode");
}

// Not asked, a program with state in two methods says that asking would
// share it; asked, it shares.
TEST(Saving, NotAskedIsTheReasonOnlyWhereAskingWouldShare) {
  auto p = Load(test_support::TwoMethodsSharingKV());
  ASSERT_TRUE(p);
  ShareRequest none;
  none.allow_none = true;
  const PlanResult made =
      test_support::PlanVerified(p->view, none, WithStrategy(Strategy::kReplan, 16));
  const PlanSaving saving = DescribeSaving(p->view, made, PlanChangesProgram(made.plan), false);
  EXPECT_EQ(saving.reason, NoShareReason::kNotAsked);
  EXPECT_FALSE(saving.share_asked);
}

// Every real program: nothing in the corpus shares state between methods
// by --share-auto, so each says why; a program whose methods call a
// delegate names the backend, and one with two or more running methods and
// no state of its own (QNN's LLMs) says its state is the delegate's.
TEST(Saving, EveryCorpusProgramSaysWhyOrWhatItSaves) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  size_t programs = 0, delegate_state = 0;
  for (const test_support::ManifestRow& row : test_support::CorpusProgramRows()) {
    SCOPED_TRACE(row.file);
    Result<OpenedProgram> opened = OpenProgram(test_support::CorpusPath(row));
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    const ProgramView& view = opened->view;
    Result<PlanResult> made = MakePlan(view, ShareAuto(), WithStrategy(Strategy::kBest, 0));
    ASSERT_TRUE(made.ok()) << made.error().message;
    const PlanSaving saving = DescribeSaving(view, *made, PlanChangesProgram(made->plan), true);
    ++programs;
    const MemoryCost cost = ComputeMemoryCost(made->plan);
    if (saving.shares()) {
      EXPECT_EQ(saving.before, saving.kind == SavingKind::kShared ? cost.total.separate_before
                                                                  : cost.total.one_set_before);
      continue;
    }
    EXPECT_NE(saving.reason, NoShareReason::kNone);
    EXPECT_EQ(saving.before, cost.total.one_set_before);
    EXPECT_EQ(saving.after, cost.total.one_set_after);
    EXPECT_LE(saving.after, saving.before) << "a replan never grows the arenas";
    std::vector<std::string> backends;
    for (const MethodView& m : view.methods) {
      for (const auto& id : m.delegate_ids) {
        const std::string backend = id && !id->empty() ? std::string(*id) : "?";
        if (std::find(backends.begin(), backends.end(), backend) == backends.end())
          backends.push_back(backend);
      }
    }
    std::vector<std::string> named;
    for (const DelegateUse& d : saving.delegates) named.push_back(d.backend);
    EXPECT_EQ(named, backends);
    const bool has_state = std::any_of(view.methods.begin(), view.methods.end(), [](const auto& m) {
      return std::any_of(m.tensors.begin(), m.tensors.end(),
                         [](const TensorValue& t) { return t.is_mutable_buffer(); });
    });
    const bool in_delegate = saving.running_methods.size() >= 2 && !has_state && !backends.empty();
    EXPECT_EQ(saving.reason == NoShareReason::kStateInDelegate, in_delegate);
    delegate_state += in_delegate;
    if (std::find(backends.begin(), backends.end(), "QnnBackend") != backends.end() &&
        saving.running_methods.size() >= 2) {
      EXPECT_EQ(saving.reason, NoShareReason::kStateInDelegate);
    }
  }
  EXPECT_EQ(programs, test_support::CorpusManifestTotals().programs);
  EXPECT_GT(delegate_state, 0u) << "the corpus has QNN LLMs whose state is the delegate's";
}

}  // namespace
}  // namespace pteshare
