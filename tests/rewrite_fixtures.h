// Fixtures shared by the rewrite tests (patcher, writer, journal, rewrite
// command): a small two-method program whose shared buffer `cache` sits at
// different offsets, the plan for it, and byte-level helpers (apply a
// PatchSet in memory, list the bytes two files differ in, the segments).
#pragma once

#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "rewriter/open_program.h"
#include "rewriter/patch/patched_bytes.h"
#include "rewriter/patch/patcher.h"
#include "rewriter/plan/planner.h"
#include "rewriter/write/journal.h"
#include "tests/test_support.h"
#include "tools/synth/operators.h"
#include "tools/synth/program_builder.h"
#include "tools/synth/spec_helpers.h"
#include "tools/synth/synth_llm.h"

namespace pteshare::test_support {

namespace b = pteshare::synth;

inline constexpr char kCacheName[] = "cache";
inline constexpr uint64_t kFiveGiB = uint64_t{5} << 30;

// A float32 tensor of `floats` elements at a fixed place.
inline b::Tensor FixedTensor(int32_t floats, uint64_t offset) {
  b::Tensor t;
  t.sizes = {floats};
  t.memory = b::FixedPlacement{1, offset};
  return t;
}

/// prefill: z@0, x@high+1024, y@high+1088, cache@high+2048 (1 KiB).
/// decode:  z@0, cache@high+1024, x@high+2048, y@high+2112.
/// Sharing `cache` moves z (offset 0, low word absent on the wire) to 1024
/// in both methods, which needs one appended table. `high` = 5 GiB gives
/// 64-bit offsets without allocating anything. With `with_segments` the
/// cache has an initial state and the methods a constant, so the file has
/// two segments.
inline b::ProgramSpec SharedCacheSpec(uint64_t high = 0, bool with_segments = true) {
  b::ProgramSpec spec;
  for (const char* name : {"prefill", "decode"}) {
    const bool prefill = std::string(name) == "prefill";
    b::MethodSpec& m = spec.methods.emplace_back();
    m.name = name;
    b::Tensor cache = FixedTensor(256, high + (prefill ? 2048 : 1024));
    cache.fully_qualified_name = kCacheName;
    if (with_segments) cache.initial_state = std::vector<uint8_t>(1024, 7);
    m.Add(cache);
    b::ValueIndex z = m.Add(FixedTensor(16, 0));
    b::ValueIndex x = m.Add(FixedTensor(16, high + (prefill ? 1024 : 2048)));
    b::ValueIndex y = m.Add(FixedTensor(16, high + (prefill ? 1088 : 2112)));
    if (with_segments) {
      std::vector<uint8_t> weights(64);
      for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<uint8_t>(i * 37 + 1);
      b::AddConstant(m, {16}, weights);
    }
    b::CallOut(m, b::ops::kRelu, {x}, y);
    b::CallOut(m, b::ops::kRelu, {y}, z);
    m.inputs = {x};
    m.outputs = {z};
    m.non_const_buffer_sizes = std::vector<int64_t>{0, static_cast<int64_t>(high + 4096)};
  }
  return spec;
}

inline std::vector<uint8_t> Build(const b::ProgramSpec& spec, const b::BuildOptions& options = {}) {
  Result<std::vector<uint8_t>> bytes = b::BuildProgram(spec, options);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>{};
}

/// A program read from bytes held by the caller.
struct ReadProgram {
  PteLayout layout;
  ProgramView view;
};

inline ReadProgram Read(const std::vector<uint8_t>& bytes) {
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(bytes, &program);
  EXPECT_TRUE(layout.ok()) << layout.error().message;
  if (!layout.ok()) return {};
  Result<ProgramView> view = ReadProgramView(*program, *layout);
  EXPECT_TRUE(view.ok()) << view.error().message;
  return {*layout, view.ok() ? std::move(view).value() : ProgramView{}};
}

/// An exporter-like LLM (named caches, the exporter's segment alignment of
/// 128) whose padding is smaller than what sharing its caches with
/// share_auto appends, so the segments must move: the fewest layers from 2
/// up that give one. Searched, not fixed: how much padding a layer count
/// leaves depends on the flatbuffer's size modulo 128, which any change to
/// the synthesizer shifts.
inline std::vector<uint8_t> LlmThatOutgrowsItsPadding() {
  for (int32_t layers = 2; layers <= 32; ++layers) {
    Result<b::ProgramSpec> spec = b::SynthesizeLlm({.layers = layers, .named = true});
    if (!spec.ok()) break;
    std::vector<uint8_t> bytes = Build(*spec);
    const ReadProgram program = Read(bytes);
    ShareRequest request;
    request.share_auto = true;
    Result<PlanResult> plan = MakePlan(program.view, request, PlanOptions{});
    if (!plan.ok()) break;
    Result<PatchSet> patch = MakePatchSet(bytes, program.view, plan->plan);
    if (patch.ok() && patch->segments_move()) return bytes;
  }
  ADD_FAILURE() << "no synthesized LLM of 2 to 32 layers outgrows its padding";
  return {};
}

inline Plan PlanSharing(const ProgramView& view, std::vector<std::string> names = {kCacheName}) {
  ShareRequest request;
  request.names = std::move(names);
  Result<PlanResult> input = MakePlan(view, request, PlanOptions{});
  EXPECT_TRUE(input.ok()) << input.error().message;
  return input.ok() ? input->plan : Plan{};
}

/// The file `patch` describes, built in memory (patched_bytes.h), which the
/// writer tests compare with what the writers put on disk.
inline std::vector<uint8_t> ApplyPatch(const std::vector<uint8_t>& in, const PatchSet& patch) {
  Result<std::vector<uint8_t>> out = ApplyPatchInMemory(in, patch);
  EXPECT_TRUE(out.ok()) << out.error().message;
  return out.ok() ? std::move(out).value() : std::vector<uint8_t>{};
}

/// Offsets where `a` and `b` differ (over the longer of the two).
inline std::vector<uint64_t> DifferingOffsets(const std::vector<uint8_t>& a,
                                              const std::vector<uint8_t>& b) {
  std::vector<uint64_t> offsets;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i >= a.size() || i >= b.size() || a[i] != b[i]) offsets.push_back(i);
  }
  return offsets;
}

/// Every segment's bytes, in order; and checks each keeps the alignment it
/// had in `before` (largest power of two up to 4096 dividing its offset).
inline std::vector<std::string> SegmentContents(const std::vector<uint8_t>& bytes) {
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(bytes, &program);
  EXPECT_TRUE(layout.ok()) << layout.error().message;
  std::vector<std::string> segments;
  if (!layout.ok()) return segments;
  for (const SegmentExtent& s : layout->segments) {
    segments.emplace_back(reinterpret_cast<const char*>(bytes.data()) + s.file_offset, s.size);
  }
  return segments;
}

/// Largest power of two, capped at kSegmentShiftUnit (4096), dividing
/// `file_offset`: the alignment a segment at that offset keeps when
/// segments move by whole multiples of kSegmentShiftUnit.
inline uint64_t SegmentAlignment(uint64_t file_offset) {
  if (file_offset == 0) return kSegmentShiftUnit;
  return std::min<uint64_t>(kSegmentShiftUnit, file_offset & (~file_offset + 1));
}

inline void ExpectSegmentsKept(const std::vector<uint8_t>& before,
                               const std::vector<uint8_t>& after) {
  EXPECT_EQ(SegmentContents(before), SegmentContents(after));
  const fb::Program* p = nullptr;
  Result<PteLayout> a = ReadPteLayout(before, &p), b = ReadPteLayout(after, &p);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->segments.size(), b->segments.size());
  for (size_t i = 0; i < a->segments.size(); ++i) {
    const uint64_t alignment = SegmentAlignment(a->segments[i].file_offset);
    EXPECT_EQ(b->segments[i].file_offset % alignment, 0u)
        << "segment " << i << " moved from " << a->segments[i].file_offset << " to "
        << b->segments[i].file_offset;
  }
}

/// An in-place rewrite of SharedCacheSpec (built into `dir`/m.pte with
/// room for its tables before the segments) stopped right after its
/// journal is durable, as a power loss would stop it; the file, whose
/// bytes are still the input (`input`, if given).
inline std::filesystem::path CrashedAfterJournal(const TempDir& dir,
                                                 std::vector<uint8_t>* input = nullptr) {
  const std::filesystem::path file = dir / "m.pte";
  b::BuildOptions in_slack;
  in_slack.segment_alignment = 4096;
  const std::vector<uint8_t> bytes = Build(SharedCacheSpec(), in_slack);
  WriteBytes(file, bytes);
  if (input != nullptr) *input = bytes;
  ::setenv("PTESHARE_TEST_CRASH_AT", "after-journal", 1);
  CommandOutput crashed =
      RunTool("pteshare", {"rewrite", file.string(), "--in-place", "--share", kCacheName});
  ::unsetenv("PTESHARE_TEST_CRASH_AT");
  EXPECT_EQ(crashed.exit_status, 99) << crashed.err;
  EXPECT_TRUE(std::filesystem::exists(JournalPath(file)));
  return file;
}

}  // namespace pteshare::test_support
