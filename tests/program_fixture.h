// LoadedProgram: built .pte bytes kept alive together with the ProgramView
// that points into them, for tests that plan or check in memory.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rewriter/plan/planner.h"
#include "rewriter/program/program_view.h"
#include "rewriter/program/pte_layout.h"
#include "rewriter/verify/plan_verifier.h"
#include "tools/synth/fixed_layout.h"
#include "tools/synth/program_builder.h"

namespace pteshare::test_support {

struct LoadedProgram {
  std::vector<uint8_t> bytes;
  ProgramView view;
};

/// Reads `bytes` through the real reader; fails the test on error.
inline std::unique_ptr<LoadedProgram> Load(std::vector<uint8_t> bytes) {
  auto loaded = std::make_unique<LoadedProgram>();
  loaded->bytes = std::move(bytes);
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(loaded->bytes, &program);
  EXPECT_TRUE(layout.ok()) << layout.error().message;
  if (!layout.ok()) return nullptr;
  Result<ProgramView> view = ReadProgramView(*program, *layout);
  EXPECT_TRUE(view.ok()) << view.error().message;
  if (!view.ok()) return nullptr;
  loaded->view = std::move(view).value();
  return loaded;
}

inline std::unique_ptr<LoadedProgram> Load(const synth::ProgramSpec& spec) {
  Result<std::vector<uint8_t>> bytes = synth::BuildProgram(spec);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  if (!bytes.ok()) return nullptr;
  return Load(std::move(bytes).value());
}

inline std::unique_ptr<LoadedProgram> Load(const std::vector<synth::FixedMethod>& methods) {
  return Load(synth::FixedLayoutSpec(methods));
}

/// A request that shares `names` (--share).
inline ShareRequest ShareNames(std::vector<std::string> names) {
  ShareRequest request;
  request.names = std::move(names);
  return request;
}

/// Two methods whose state k, v (64 bytes each, initial state) sits at
/// different offsets of arena 1:
///   prefill: act [0,128), k [128,192), v [192,256), act [256,320)
///   decode:  k [0,64), v [64,128), act [128,160)
inline std::vector<synth::FixedMethod> TwoMethodsSharingKV() {
  return {
      {"prefill", {{128, 1, 0}, {64, 1, 128, "k", true}, {64, 1, 192, "v", true}, {64, 1, 256}}},
      {"decode", {{64, 1, 0, "k", true}, {64, 1, 64, "v", true}, {32, 1, 128}}},
  };
}

/// Writes `spec` as `dir/name` with the builder's defaults; the path.
inline std::string WriteProgram(const std::filesystem::path& dir, const synth::ProgramSpec& spec,
                                const std::string& name) {
  std::filesystem::path path = dir / name;
  Result<synth::PteLayout> written = synth::WritePteFile(spec, {}, path);
  EXPECT_TRUE(written.ok()) << written.error().message;
  return path.string();
}

/// MakePlan, then VerifyPlan: fails the test on an error or on any
/// violation (named by its invariant).
inline PlanResult PlanVerified(const ProgramView& view, const ShareRequest& request,
                               const PlanOptions& options) {
  Result<PlanResult> made = MakePlan(view, request, options);
  EXPECT_TRUE(made.ok()) << made.error().message;
  if (!made.ok()) return {};
  for (const PlanViolation& v : VerifyPlan(view, made->shared, made->plan)) {
    ADD_FAILURE() << InvariantName(v.invariant) << ": " << v.message;
  }
  return std::move(made).value();
}

/// The move of value `value` in method `method` of `plan`; throws (the test
/// fails there) when the plan has none.
inline const TensorMove& MoveOf(const Plan& plan, size_t method, uint32_t value) {
  const TensorMove* move = plan.methods.at(method).Find(value);
  if (move == nullptr) throw std::logic_error("the plan has no value " + std::to_string(value));
  return *move;
}

/// The same, to break a plan by hand.
inline TensorMove& MoveOf(Plan& plan, size_t method, uint32_t value) {
  return const_cast<TensorMove&>(MoveOf(std::as_const(plan), method, value));
}

}  // namespace pteshare::test_support
