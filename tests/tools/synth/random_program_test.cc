// The random program generator: the same seed gives the same bytes, and
// over a few hundred seeds every feature it promises shows up, so the
// differential test really exercises them.
#include "tools/synth/random_program.h"

#include <gtest/gtest.h>

#include <set>

#include "tools/synth/operators.h"
#include "tools/synth/program_builder.h"

namespace pteshare::synth {
namespace {

TEST(RandomProgram, SameSeedGivesTheSameBytes) {
  for (uint64_t seed : {1u, 2u, 77u}) {
    Result<RandomProgram> a = GenerateRandomProgram(seed), b = GenerateRandomProgram(seed);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*BuildProgram(a->spec), *BuildProgram(b->spec)) << "seed " << seed;
  }
}

TEST(RandomProgram, FeaturesTheDifferentialTestReliesOnAllOccur) {
  std::set<std::string> seen;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Result<RandomProgram> program = GenerateRandomProgram(seed);
    ASSERT_TRUE(program.ok()) << "seed " << seed;
    Result<std::vector<uint8_t>> bytes = BuildProgram(program->spec);
    ASSERT_TRUE(bytes.ok()) << "seed " << seed << ": " << bytes.error().message;
    if (!program->namings.empty()) seen.insert("unnamed buffer");
    if (program->spec.methods.size() == 3) seen.insert("three methods");
    for (const MethodSpec& m : program->spec.methods) {
      if (!m.arena_devices.empty()) seen.insert("device arena");
      for (const Instruction& instruction : m.instructions) {
        if (std::holds_alternative<MoveCall>(instruction)) seen.insert("move");
        if (std::holds_alternative<FreeCall>(instruction)) seen.insert("free");
        if (std::holds_alternative<DelegateCall>(instruction)) seen.insert("delegate");
        if (const auto* jump = std::get_if<JumpFalseCall>(&instruction)) {
          if (jump->destination >= 0) seen.insert("loop");
        }
        if (const auto* call = std::get_if<KernelCall>(&instruction)) {
          if (call->op == ops::kUpdateCache) seen.insert("update_cache");
          if (call->op == ops::kCat) seen.insert("cat");
        }
      }
      for (const Value& value : m.values) {
        const auto* t = std::get_if<Tensor>(&value);
        if (t == nullptr) continue;
        if (std::holds_alternative<AliasOf>(t->memory)) seen.insert("alias");
        if (std::holds_alternative<NotPlanned>(t->memory) && !t->constant_data) {
          seen.insert("unplanned activation");
        }
        if (const auto* arena = std::get_if<PlanInArena>(&t->memory)) {
          if (arena->memory_id == 3) seen.insert("third arena");
        }
        if (TensorNbytes(*t) == 0) seen.insert("empty tensor");
        if (t->initial_state) seen.insert("initial state");
      }
    }
  }
  for (const char* feature :
       {"unnamed buffer", "three methods", "device arena", "move", "free", "delegate", "loop",
        "update_cache", "cat", "alias", "unplanned activation", "third arena", "empty tensor",
        "initial state"}) {
    EXPECT_TRUE(seen.contains(feature)) << feature;
  }
}

}  // namespace
}  // namespace pteshare::synth
