// ProgramView against the facts recorded for every corpus file in
// ../shared/corpus/MANIFEST.tsv: method names, planned tensors per method,
// arena sizes. This is also the wire-compatibility proof of our schema:
// every ET12 file verifies and reads with our generated code.
#include "rewriter/program/program_view.h"

#include <gtest/gtest.h>

#include "rewriter/open_program.h"
#include "tests/test_support.h"
#include "tools/synth/program_builder.h"
#include "tools/synth/synth_llm.h"

namespace pteshare {
namespace {

using test_support::SharedDir;

using test_support::ManifestRow;

std::string ArenaSizesText(const MethodView& method) {
  std::string text = "[0";
  for (const Arena& a : method.arenas) text += "," + std::to_string(a.size);
  return text + "]";
}

TEST(ProgramView, EveryCorpusProgramMatchesTheManifest) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  const std::vector<ManifestRow> rows = test_support::CorpusManifest();
  ASSERT_FALSE(rows.empty()) << "MANIFEST.tsv has no rows";
  size_t programs = 0, planned_total = 0;
  for (const ManifestRow& row : rows) {
    SCOPED_TRACE(row.file);
    Result<OpenedProgram> opened = OpenProgram(test_support::CorpusPath(row));
    if (row.identifier == "BP08") {  // the program inside: bundle_test.cc
      ASSERT_TRUE(opened.ok()) << opened.error().message;
      continue;
    }
    if (row.identifier != "ET12") {
      // The 2023 ET02 file, ZIP archives: refused, clearly.
      ASSERT_FALSE(opened.ok());
      EXPECT_FALSE(opened.error().message.empty());
      continue;
    }
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    ++programs;
    const ProgramView& view = opened->view;
    ASSERT_EQ(view.methods.size(), row.methods.size());
    for (size_t m = 0; m < row.methods.size(); ++m) {
      EXPECT_EQ(view.methods[m].name, row.methods[m]);
      EXPECT_EQ(ArenaSizesText(view.methods[m]), row.arena_sizes[m]) << row.methods[m];
      ASSERT_LT(m, row.planned_tensors.size());
      EXPECT_EQ(view.methods[m].planned_count(), row.planned_tensors[m]) << row.methods[m];
      planned_total += view.methods[m].planned_count();
    }
  }
  const test_support::ManifestTotals totals = test_support::CorpusManifestTotals();
  EXPECT_EQ(programs, totals.programs);
  EXPECT_EQ(planned_total, totals.planned_tensors);
}

TEST(ProgramView, ReadsTheLargestCorpusOffset) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  // native_spike_med_output's two planned tensors reach 536,870,916; its
  // arena (536,870,928 in MANIFEST.tsv) keeps exporter padding that no
  // tensor shows, which a replan must preserve.
  uint64_t largest = 0;
  for (const auto& path : test_support::CorpusFiles()) {
    Result<OpenedProgram> opened = OpenProgram(path);
    if (!opened.ok()) continue;
    for (const MethodView& m : opened->view.methods) {
      for (const TensorValue& t : m.tensors) {
        if (t.planned) largest = std::max(largest, t.placement.end());
      }
    }
  }
  EXPECT_EQ(largest, 536870916u);
}

TEST(ProgramView, RecordsWhichAllocationFieldsAreStored) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  // docs/format.md: memory_offset_high is absent everywhere, and
  // memory_offset_low is absent exactly where the offset is 0. Counted over
  // every program the manifest lists (the programs inside bundles are not
  // counted there).
  size_t planned = 0, zero_offsets = 0;
  for (const auto& path : test_support::CorpusFiles()) {
    Result<OpenedProgram> opened = OpenProgram(path);
    if (!opened.ok() || opened->file.bundle()) continue;
    for (const MethodView& m : opened->view.methods) {
      for (const TensorValue& t : m.tensors) {
        if (!t.planned) continue;
        ++planned;
        EXPECT_FALSE(t.stored.offset_high);
        EXPECT_EQ(t.stored.offset_low, t.placement.offset != 0);
        zero_offsets += t.placement.offset == 0;
      }
    }
  }
  EXPECT_EQ(planned, test_support::CorpusManifestTotals().planned_tensors);
  EXPECT_GT(zero_offsets, 0u);  // the absent-field case is exercised
}

// The read-backs of a rewrite skip the instructions' effects: everything
// else reads the same.
TEST(ProgramView, WithoutEffectsReadsTheSameTensorsAndArenas) {
  Result<synth::ProgramSpec> spec = synth::SynthesizeLlm(synth::LlmConfig{.layers = 2});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  Result<std::vector<uint8_t>> bytes = synth::BuildProgram(*spec);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(*bytes, &program);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  Result<ProgramView> full = ReadProgramView(*program, *layout);
  Result<ProgramView> lean = ReadProgramView(*program, *layout, ViewEffects::kSkip);
  ASSERT_TRUE(full.ok() && lean.ok());
  ASSERT_EQ(full->methods.size(), lean->methods.size());
  size_t instructions = 0;
  for (size_t m = 0; m < full->methods.size(); ++m) {
    const MethodView& a = full->methods[m];
    const MethodView& b = lean->methods[m];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.instruction_count, b.instruction_count);
    ASSERT_EQ(a.arenas.size(), b.arenas.size());
    for (size_t i = 0; i < a.arenas.size(); ++i) EXPECT_EQ(a.arenas[i].size, b.arenas[i].size);
    ASSERT_EQ(a.tensors.size(), b.tensors.size());
    for (size_t i = 0; i < a.tensors.size(); ++i) {
      EXPECT_EQ(a.tensors[i].value_index, b.tensors[i].value_index);
      EXPECT_EQ(a.tensors[i].placement, b.tensors[i].placement);
      EXPECT_EQ(a.tensors[i].name, b.tensors[i].name);
      EXPECT_TRUE(a.tensors[i].SameShape(b.tensors[i]));
    }
    instructions += a.effects.instructions.size();
    EXPECT_TRUE(b.effects.instructions.empty());
    EXPECT_TRUE(b.effects.touches.empty());
  }
  EXPECT_GT(instructions, 0u);  // the full read has effects to skip
}

}  // namespace
}  // namespace pteshare
