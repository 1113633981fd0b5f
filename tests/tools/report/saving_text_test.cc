// The saving in words and JSON (saving_text.h): the first line's parts for
// each kind of plan, the delegate's memory named, and a batch's totals.
#include "tools/report/saving_text.h"

#include <gtest/gtest.h>

namespace pteshare::cli {
namespace {

PlanSaving Shared() {
  PlanSaving s;
  s.kind = SavingKind::kShared;
  s.share_asked = true;
  s.before = 4'560'144;
  s.after = 2'408'960;
  s.before_is_separate_sets = true;
  s.planning_methods = {"prefill", "decode"};
  s.running_methods = s.planning_methods;
  s.shared_buffers = 64;
  return s;
}

TEST(SavingText, SharedStateSaysOneSetAgainstSeparateSetsWithExactBytes) {
  EXPECT_EQ(SavingLine(Shared()),
            "memory for one set of arenas: 2.30 MiB instead of 4.35 MiB for separate sets "
            "(-47%; 2,408,960 vs 4,560,144 bytes), 64 shared buffers");
}

TEST(SavingText, SmallChangesKeepADecimal) {
  PlanSaving s = Shared();
  s.after = s.before - s.before / 200;  // -0.5%
  EXPECT_NE(SavingLine(s).find("(-0.5%; "), std::string::npos) << SavingLine(s);
}

TEST(SavingText, AlreadyPlannedSaysSo) {
  PlanSaving s = Shared();
  s.kind = SavingKind::kAlreadyShared;
  s.before = s.after;
  EXPECT_EQ(SavingLine(s),
            "already planned, no change: 64 shared buffers sit at one placement in every "
            "method; memory for one set of arenas: 2.30 MiB (2,408,960 bytes)");
}

TEST(SavingText, StateInADelegateNamesTheBackendAndItsMethods) {
  PlanSaving s;
  s.kind = SavingKind::kUnchanged;
  s.reason = NoShareReason::kStateInDelegate;
  s.running_methods = {"kv_forward", "prefill_forward"};
  s.delegates = {{"QnnBackend", {"kv_forward", "prefill_forward"}, 2}};
  EXPECT_EQ(NoShareText(s),
            "no method has mutable state outside delegates, so any state (a KV cache) lives "
            "inside QnnBackend (in kv_forward, prefill_forward), which plans its own memory: "
            "nothing pteshare can share");
  EXPECT_EQ(SavingLine(s), "no change, nothing to share: " + NoShareText(s) +
                               "; the program plans no memory of its own");
}

TEST(SavingText, OneMethodWithADelegateSaysTheDelegateMemoryIsNotCounted) {
  PlanSaving s;
  s.kind = SavingKind::kReplanned;
  s.reason = NoShareReason::kOneMethod;
  s.before = 2048;
  s.after = 1024;
  s.planning_methods = s.running_methods = {"forward"};
  s.delegates = {{"XnnpackBackend", {"forward"}, 1}};
  EXPECT_EQ(SavingLine(s),
            "nothing to share: the program runs one method (forward), so there is no other "
            "method to share with; replanned, memory for the arenas: 1.00 KiB instead of "
            "2.00 KiB (-50%; 1,024 vs 2,048 bytes); XnnpackBackend (in forward) plans its own "
            "memory, not counted here");
}

TEST(SavingText, JsonHasTheLinesNumbersAndTheReason) {
  PlanSaving s;
  s.kind = SavingKind::kUnchanged;
  s.reason = NoShareReason::kNoState;
  s.before = s.after = 96;
  s.running_methods = {"a", "b"};
  JsonWriter json;
  json.BeginObject();
  WriteSavingJson(json, s);
  json.EndObject();
  const std::string& text = json.str();
  EXPECT_NE(text.find("\"summary\": \"" + SavingLine(s) + "\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"outcome\": \"unchanged\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"reason\": \"no_state\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"before_bytes\": 96"), std::string::npos) << text;
  EXPECT_NE(text.find("\"saved_bytes\": 0"), std::string::npos) << text;
}

TEST(SavingText, TotalsAddEveryFileAndCountEachKind) {
  SavingTotals totals;
  totals.Add(Shared());
  PlanSaving delegate;
  delegate.kind = SavingKind::kUnchanged;
  delegate.reason = NoShareReason::kStateInDelegate;
  totals.Add(delegate);
  PlanSaving replanned;
  replanned.kind = SavingKind::kReplanned;
  replanned.reason = NoShareReason::kOneMethod;
  replanned.before = 2048;
  replanned.after = 1024;
  totals.Add(replanned);
  EXPECT_EQ(totals.before, 4'560'144u + 2048u);
  EXPECT_EQ(totals.after, 2'408'960u + 1024u);
  EXPECT_EQ(TotalsLine(totals, 4, 1),
            "4 files: memory 2.30 MiB instead of 4.35 MiB (-47%; 2,409,984 vs 4,562,192 bytes "
            "over 3 planned); 1 share state, 2 nothing to share (1 of them replanned smaller, "
            "1 with any state inside a delegate), 1 failed");
}

}  // namespace
}  // namespace pteshare::cli
