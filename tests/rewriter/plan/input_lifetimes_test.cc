// InputLifetimes on a synthetic LLM: an answer is what ComputeLifetimes
// gives for the same arguments, computed once per method and always-live
// values, never reused for other arguments or another program's method;
// and the planner and the verifier given one share each method's walk.
#include "rewriter/plan/input_lifetimes.h"

#include <gtest/gtest.h>

#include "rewriter/plan/planner.h"
#include "rewriter/verify/plan_verifier.h"
#include "tests/plan_options.h"
#include "tests/program_fixture.h"
#include "tools/synth/synth_llm.h"

namespace pteshare {
namespace {

std::unique_ptr<test_support::LoadedProgram> LoadLlm() {
  Result<synth::ProgramSpec> spec = synth::SynthesizeLlm(synth::LlmConfig{.layers = 2});
  EXPECT_TRUE(spec.ok()) << spec.error().message;
  return spec.ok() ? test_support::Load(*spec) : nullptr;
}

void ExpectSame(const MethodLifetimes& a, const MethodLifetimes& b) {
  EXPECT_EQ(a.instruction_count, b.instruction_count);
  EXPECT_EQ(a.live, b.live);
  EXPECT_EQ(a.group_of, b.group_of);
  EXPECT_EQ(a.moments, b.moments);
  EXPECT_EQ(a.lower_bound, b.lower_bound);
  EXPECT_EQ(a.too_complex, b.too_complex);
  ASSERT_EQ(a.groups.size(), b.groups.size());
  for (size_t g = 0; g < a.groups.size(); ++g) {
    EXPECT_EQ(a.groups[g].members, b.groups[g].members) << "group " << g;
    EXPECT_EQ(a.groups[g].live, b.groups[g].live) << "group " << g;
    EXPECT_EQ(a.groups[g].memory_id, b.groups[g].memory_id) << "group " << g;
    EXPECT_EQ(a.groups[g].offset, b.groups[g].offset) << "group " << g;
    EXPECT_EQ(a.groups[g].end, b.groups[g].end) << "group " << g;
  }
}

// The method with the most tensors (prefill), whose first mutable buffer
// is a value to keep live.
const MethodView& Largest(const ProgramView& view) {
  const MethodView* largest = &view.methods[0];
  for (const MethodView& m : view.methods) {
    if (m.tensors.size() > largest->tensors.size()) largest = &m;
  }
  return *largest;
}

uint32_t FirstMutableBuffer(const MethodView& method) {
  for (const TensorValue& t : method.tensors) {
    if (t.is_mutable_buffer()) return t.value_index;
  }
  ADD_FAILURE() << "no mutable buffer in " << method.name;
  return 0;
}

TEST(InputLifetimes, ComputedOnceAndTheSameAsComputeLifetimes) {
  auto p = LoadLlm();
  ASSERT_TRUE(p);
  const MethodView& method = Largest(p->view);
  ASSERT_GT(method.tensors.size(), 10u);
  InputLifetimes lifetimes(p->view);
  const MethodLifetimes& first = lifetimes.For(method, {});
  const MethodLifetimes& again = lifetimes.For(method, {}, LowerBound::kSkip);
  EXPECT_EQ(&first, &again);
  EXPECT_EQ(lifetimes.computed(), 1u);
  ExpectSame(first, ComputeLifetimes(method, {}));
  EXPECT_FALSE(first.lower_bound.empty());
}

TEST(InputLifetimes, OtherAlwaysLiveValuesAreComputedAfresh) {
  auto p = LoadLlm();
  ASSERT_TRUE(p);
  const MethodView& method = Largest(p->view);
  const std::vector<uint32_t> kept{FirstMutableBuffer(method)};
  InputLifetimes lifetimes(p->view);
  const MethodLifetimes& none = lifetimes.For(method, {});
  const MethodLifetimes& with = lifetimes.For(method, kept);
  EXPECT_NE(&none, &with);
  EXPECT_EQ(lifetimes.computed(), 2u);
  ExpectSame(none, ComputeLifetimes(method, {}));
  ExpectSame(with, ComputeLifetimes(method, kept));
  // Both are kept: asked again, neither is computed.
  EXPECT_EQ(&lifetimes.For(method, kept), &with);
  EXPECT_EQ(&lifetimes.For(method, {}), &none);
  EXPECT_EQ(lifetimes.computed(), 2u);
}

TEST(InputLifetimes, TheBoundIsAddedWhenAskedForAfterASkip) {
  auto p = LoadLlm();
  ASSERT_TRUE(p);
  const MethodView& method = Largest(p->view);
  InputLifetimes lifetimes(p->view);
  const MethodLifetimes& skipped = lifetimes.For(method, {}, LowerBound::kSkip);
  EXPECT_TRUE(skipped.lower_bound.empty());
  ExpectSame(skipped, ComputeLifetimes(method, {}, LowerBound::kSkip));
  const MethodLifetimes& bounded = lifetimes.For(method, {}, LowerBound::kCompute);
  EXPECT_EQ(&skipped, &bounded);
  EXPECT_EQ(lifetimes.computed(), 1u);
  ExpectSame(bounded, ComputeLifetimes(method, {}));
}

TEST(InputLifetimes, AMethodOfAnotherProgramIsNeverReused) {
  auto p = LoadLlm();
  ASSERT_TRUE(p);
  const MethodView copy = Largest(p->view);  // equal, but not the view's
  InputLifetimes lifetimes(p->view);
  const MethodLifetimes& a = lifetimes.For(copy, {});
  const MethodLifetimes& b = lifetimes.For(copy, {});
  EXPECT_NE(&a, &b);
  EXPECT_EQ(lifetimes.computed(), 2u);
  ExpectSame(a, b);
}

TEST(InputLifetimes, PlannerAndVerifierShareEachMethodsWalk) {
  auto p = LoadLlm();
  ASSERT_TRUE(p);
  ShareRequest request;
  request.share_auto = true;
  const PlanOptions options = WithStrategy(Strategy::kBest);
  InputLifetimes lifetimes(p->view);
  Result<PlanResult> shared_walk = MakePlan(p->view, request, options, &lifetimes);
  ASSERT_TRUE(shared_walk.ok()) << shared_walk.error().message;
  EXPECT_EQ(lifetimes.computed(), p->view.methods.size());
  EXPECT_TRUE(VerifyPlan(p->view, shared_walk->shared, shared_walk->plan, &lifetimes).empty());
  EXPECT_EQ(lifetimes.computed(), p->view.methods.size());  // none computed again

  // The same plan as without: the lifetimes are the same facts.
  Result<PlanResult> own_walk = MakePlan(p->view, request, options);
  ASSERT_TRUE(own_walk.ok());
  ASSERT_EQ(own_walk->plan.methods.size(), shared_walk->plan.methods.size());
  for (size_t m = 0; m < own_walk->plan.methods.size(); ++m) {
    const MethodPlan& a = own_walk->plan.methods[m];
    const MethodPlan& b = shared_walk->plan.methods[m];
    EXPECT_EQ(a.arena_sizes_after, b.arena_sizes_after) << a.name;
    EXPECT_EQ(a.arena_lower_bounds, b.arena_lower_bounds) << a.name;
    ASSERT_EQ(a.moves.size(), b.moves.size()) << a.name;
    for (size_t i = 0; i < a.moves.size(); ++i) {
      EXPECT_EQ(a.moves[i].value_index, b.moves[i].value_index);
      EXPECT_EQ(a.moves[i].after, b.moves[i].after);
    }
  }
}

}  // namespace
}  // namespace pteshare
