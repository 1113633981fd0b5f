// Fuzz properties: a rewrite, entirely in memory. For a program the reader
// accepts and a plan that verifies, MakePatchSet may refuse (a result the
// format cannot hold), but a PatchSet it returns, applied the way the
// Writer applies it, must give a file that
//  - keeps every write inside the new file, sorted and disjoint, overwrites
//    inside the old flatbuffer;
//  - reads back (layout, verifier, ProgramView) with every placement and
//    arena size the plan says, and passes the writer's own last check
//    (CheckRewrittenFile);
//  - keeps the segment bytes, moved by the PatchSet's shift;
//  - changes no byte of the old flatbuffer outside allocation info: every
//    byte that the ownership map (byte_ownership.h) does not give to
//    allocation info alone is the input's byte;
//  - is a fixed point for relocate: the same rewrite on it changes no
//    byte (I7).
// Anything else would be a corrupt file on disk, so it aborts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "rewriter/patch/byte_ownership.h"
#include "rewriter/patch/patcher.h"
#include "rewriter/patch/rewrite_check.h"
#include "rewriter/plan/planner.h"
#include "rewriter/verify/plan_verifier.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/share_requests.h"

namespace pteshare::fuzz {
namespace detail {

inline std::string N(uint64_t v) { return std::to_string(v); }

inline void CheckPatchShape(const PatchSet& patch, size_t input_size) {
  if (patch.old_file_size != input_size) Fail("PatchSet.old_file_size is not the input size");
  if (patch.new_program_size > patch.new_file_size) Fail("new program_size past the new file");
  if (patch.old_program_size + patch.appended.size() > patch.new_file_size) {
    Fail("appended bytes past the new file");
  }
  uint64_t previous_end = 0;
  for (const ByteOverwrite& w : patch.overwrites) {
    if (w.offset < previous_end) Fail("overwrites not sorted and disjoint at " + N(w.offset));
    if (w.end() > patch.old_program_size) {
      Fail("overwrite [" + N(w.offset) + ", " + N(w.end()) + ") outside the old flatbuffer of " +
           N(patch.old_program_size) + " bytes");
    }
    previous_end = w.end();
  }
  if (patch.segments_move()) {
    if (patch.new_segment_base_offset < patch.old_segment_base_offset) Fail("segments move down");
    if (patch.old_segment_base_offset > patch.old_file_size ||
        patch.new_file_size - patch.new_segment_base_offset !=
            patch.old_file_size - patch.old_segment_base_offset) {
      Fail("moved segment data does not keep its size");
    }
  }
}

// The Writer's copy (writer.cc, CopyUnchangedBytes + WriteAll) in memory.
inline std::vector<uint8_t> Apply(std::span<const uint8_t> input, const PatchSet& patch) {
  std::vector<uint8_t> out(patch.new_file_size, 0);
  if (!patch.segments_move()) {
    std::copy_n(input.begin(), std::min<uint64_t>(input.size(), out.size()), out.begin());
  } else {
    std::copy_n(input.begin(), patch.old_program_size, out.begin());
    std::copy(input.begin() + patch.old_segment_base_offset, input.end(),
              out.begin() + patch.new_segment_base_offset);
  }
  for (const ByteOverwrite& w : patch.AllWrites()) {
    if (w.end() > out.size())
      Fail("a write [" + N(w.offset) + ", " + N(w.end()) + ") past the end");
    std::copy(w.bytes.begin(), w.bytes.end(), out.begin() + w.offset);
  }
  return out;
}

inline void CheckSegmentsKept(std::span<const uint8_t> input, std::span<const uint8_t> output,
                              const PteLayout& before, const PatchSet& patch) {
  for (size_t i = 0; i < before.segments.size(); ++i) {
    const SegmentExtent& s = before.segments[i];
    if (s.size == 0) continue;
    const uint64_t moved_to = s.file_offset + patch.segment_shift();
    if (moved_to + s.size > output.size() ||
        std::memcmp(input.data() + s.file_offset, output.data() + moved_to, s.size) != 0) {
      Fail("segment " + N(i) + " bytes changed or lost (was at " + N(s.file_offset) + ")");
    }
  }
}

inline void CheckOnlyAllocationInfoChanged(std::span<const uint8_t> input,
                                           std::span<const uint8_t> output,
                                           const PteLayout& before) {
  const ByteOwnership map = ByteOwnership::Map(input.first(before.program_size), before);
  const std::vector<ByteRange> allowed = map.AllocationOnlyRanges();
  size_t next = 0;
  for (uint64_t i = 0; i < before.program_size; ++i) {
    while (next < allowed.size() && allowed[next].end <= i) ++next;
    if (next < allowed.size() && allowed[next].begin <= i) continue;
    if (i >= output.size() || output[i] != input[i]) {
      Fail("byte " + N(i) + " changed, but it belongs to " + map.OtherOwner(i, 1) +
           ", not to allocation info alone");
    }
  }
}

inline void CheckPlacements(const ProgramView& after, const Plan& plan) {
  if (after.methods.size() != plan.methods.size()) Fail("method count changed");
  for (const MethodPlan& m : plan.methods) {
    const MethodView& method = after.methods[m.method_index];
    for (size_t i = 0; i < method.arenas.size() && i < m.arena_sizes_after.size(); ++i) {
      if (method.arenas[i].size != m.arena_sizes_after[i]) {
        Fail("method " + method.name + " arena " + N(i + 1) + " is " + N(method.arenas[i].size) +
             " bytes, the plan says " + N(m.arena_sizes_after[i]));
      }
    }
    if (method.arenas.size() != m.arena_sizes_after.size()) Fail("arena count changed");
    for (const TensorMove& move : m.moves) {
      const TensorValue* t = method.tensor(move.value_index);
      if (t == nullptr || !t->planned || !(t->placement == move.after)) {
        Fail("method " + method.name + " value " + N(move.value_index) +
             " is not where the plan puts it");
      }
    }
  }
}

// Known and open (tests/fuzz/README.md): in a hostile file whose objects
// overlap (a string whose length runs over the tables after it), a field
// the patcher overwrites is also part of a name, so the rewrite changes
// that name and a second `--share NAME` no longer finds it. No crash and
// nothing but that name changes; the writer's check does not compare names.
inline bool NamesChanged(const ProgramView& before, const ProgramView& after) {
  for (size_t m = 0; m < before.methods.size() && m < after.methods.size(); ++m) {
    const auto& a = before.methods[m].tensors;
    const auto& b = after.methods[m].tensors;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (a[i].name != b[i].name) return true;
    }
  }
  return false;
}

inline void RewriteAndCheck(std::span<const uint8_t> input, const ProgramView& view,
                            const ShareRequest& request, const PlanOptions& options) {
  Result<PlanResult> planned = MakePlan(view, request, options);
  if (!planned.ok()) return;
  if (!VerifyPlan(view, planned->shared, planned->plan).empty()) return;  // fuzz_plan's job
  const Plan& plan = planned->plan;
  Result<PatchSet> patch = MakePatchSet(input, view, plan);
  if (!patch.ok()) return;  // refused, nothing would be written
  CheckPatchShape(*patch, input.size());
  const std::vector<uint8_t> output = Apply(input, *patch);

  std::optional<ProgramView> after = ReadView(output);
  if (!after) {
    Status why = CheckRewrittenFile(output, view.layout, *patch, plan);
    Fail("the rewritten bytes do not read back (" + Describe(request, options) +
         "): " + (why.ok() ? "?" : why.error().message));
  }
  CheckPlacements(*after, plan);
  CheckSegmentsKept(input, output, view.layout, *patch);
  CheckOnlyAllocationInfoChanged(input, output, view.layout);
  Status checked = CheckRewrittenFile(output, view.layout, *patch, plan);
  if (!checked.ok()) Fail("the writer would refuse its own patch: " + checked.error().message);

  // I7: the same rewrite of the result is the identity. (Relocate only:
  // replan may lay an arena out again differently at the same size.)
  if (options.strategy != Strategy::kRelocate) return;
  PlanOptions same = options;
  same.alignment = plan.alignment;
  if (NamesChanged(view, *after)) return;  // known, see below
  Result<PlanResult> again = MakePlan(*after, request, same);
  if (!again.ok()) Fail("the rewritten file cannot be planned again: " + again.error().message);
  if (!VerifyPlan(*after, again->shared, again->plan).empty()) {
    Fail("the second plan fails VerifyPlan");
  }
  Result<PatchSet> second = MakePatchSet(output, *after, again->plan);
  if (!second.ok()) Fail("the second patch is refused: " + second.error().message);
  if (!second->empty()) {
    Fail("rewriting the result again changes " + N(second->overwrites.size()) +
         " ranges and appends " + N(second->appended.size()) + " bytes (I7, " +
         Describe(request, same) + ")");
  }
}

}  // namespace detail

/// The properties above on `bytes` (fuzz_rewrite.cc).
inline void CheckRewrite(std::span<const uint8_t> bytes) {
  const std::span<const uint8_t> input = bytes;
  std::optional<ProgramView> view = ReadView(input);
  if (!view) return;
  const uint8_t choice = !bytes.empty() ? bytes.back() : 0;
  for (const ShareRequest& request : PlausibleRequests(*view, choice)) {
    // The detected alignment, and 16 (below most inputs' own: a plan that
    // keeps every tensor's alignment must still be stable, I7).
    for (Strategy strategy : {Strategy::kRelocate, Strategy::kBest}) {
      for (uint64_t alignment : {uint64_t{0}, uint64_t{16}}) {
        PlanOptions options;
        options.strategy = strategy;
        options.alignment = alignment;
        options.replan_max_steps = 20'000;  // keeps one execution fast
        detail::RewriteAndCheck(input, *view, request, options);
      }
    }
  }
}

}  // namespace pteshare::fuzz
