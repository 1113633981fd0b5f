// runtime_check/check.h, the checker a microcontroller links: memory only
// from the caller's scratch, sized by ScratchBytes; a scratch one byte too
// small (or misaligned) is a finding and nothing is written; with the exact
// size every corpus program gets the host Report's findings; findings and
// summaries reach the sink as they are found.
#include "runtime_check/check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "runtime_check/alias_check.h"
#include "runtime_check/finding_text.h"
#include "tests/test_support.h"
#include "tools/synth/operators.h"
#include "tools/synth/program_builder.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare::runtime_check {
namespace {

namespace b = pteshare::synth;

// What the sink was told.
struct RecordingSink : core::Sink {
  std::vector<FindingKind> kinds;
  std::vector<core::Finding> findings;
  std::vector<std::string> methods;
  std::vector<std::string> shared;
  uint32_t occurrences = 0;

  void OnFinding(const core::Finding& finding) override {
    kinds.push_back(finding.kind);
    findings.push_back(finding);
  }
  void OnMethod(const core::MethodSummary& method) override {
    methods.emplace_back(method.name.data, method.name.size);
  }
  void OnSharedBuffer(const core::SharedBufferSummary& buffer) override {
    shared.emplace_back(buffer.name.data, buffer.name.size);
  }
  void OnOccurrence(const core::Occurrence&) override { ++occurrences; }
};

// Two methods sharing an unnamed mutable buffer (initial state at the front
// of arena 1, as the exporter leaves it), each with an activation.
std::vector<uint8_t> SharedStateProgram() {
  b::ProgramSpec spec;
  for (const char* name : {"prefill", "decode"}) {
    b::MethodSpec& m = spec.methods.emplace_back();
    m.name = name;
    b::Tensor cache = b::PlacedFloats(64, 1, 0);
    cache.initial_state = std::vector<uint8_t>(64 * 4, 0);
    m.Add(cache);
    const b::ValueIndex x = m.Add(b::PlacedFloats(16, 1, 256));
    const b::ValueIndex y = m.Add(b::PlacedFloats(16, 1, 320));
    b::CallOut(m, b::ops::kRelu, {x}, y);
    m.inputs = {x};
    m.outputs = {y};
  }
  Result<std::vector<uint8_t>> bytes = b::BuildProgram(spec, {});
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>{};
}

// A program in 8-byte aligned memory, as a loader holds it.
struct AlignedProgram {
  std::vector<uint64_t> words;
  size_t size = 0;
  explicit AlignedProgram(const std::string& bytes)
      : words((bytes.size() + 7) / 8), size(bytes.size()) {
    std::memcpy(words.data(), bytes.data(), bytes.size());
  }
  explicit AlignedProgram(const std::vector<uint8_t>& bytes)
      : AlignedProgram(std::string(bytes.begin(), bytes.end())) {}
  const void* data() const { return words.data(); }
};

// A scratch of `size` bytes followed by guard bytes, all set to one
// pattern, so a write past (or into) it shows.
struct GuardedScratch {
  static constexpr size_t kGuard = 64;
  static constexpr uint8_t kPattern = 0xA5;
  std::vector<uint64_t> words;
  size_t size;
  explicit GuardedScratch(size_t bytes) : words((bytes + kGuard) / 8 + 1), size(bytes) {
    std::memset(words.data(), kPattern, words.size() * 8);
  }
  core::Scratch span() { return {words.data(), size}; }
  // Whether no byte from `from` on was written.
  bool UntouchedFrom(size_t from) const {
    const auto* bytes = reinterpret_cast<const uint8_t*>(words.data());
    for (size_t i = from; i < words.size() * 8; ++i) {
      if (bytes[i] != kPattern) return false;
    }
    return true;
  }
};

TEST(Check, ScratchOneByteTooSmallIsACleanFindingAndNothingIsWritten) {
  const AlignedProgram program(SharedStateProgram());
  const size_t needed = core::ScratchBytes(program.data(), program.size, {});
  ASSERT_GT(needed, 0u);
  GuardedScratch scratch(needed - 1);
  RecordingSink sink;
  const core::Result result = core::Check(program.data(), program.size, {}, scratch.span(), sink);
  EXPECT_FALSE(result.ok());
  EXPECT_FALSE(result.completed);
  EXPECT_TRUE(result.readable);
  EXPECT_EQ(result.scratch_needed, needed);
  EXPECT_EQ(result.errors, 1u);
  ASSERT_EQ(sink.kinds, std::vector<FindingKind>{FindingKind::kScratchTooSmall});
  EXPECT_EQ(sink.findings[0].reason, 0);
  EXPECT_EQ(sink.findings[0].expected, needed);
  EXPECT_EQ(sink.findings[0].actual, needed - 1);
  EXPECT_TRUE(sink.methods.empty());
  EXPECT_TRUE(scratch.UntouchedFrom(0)) << "a scratch too small must not be written at all";

  // The exact size: the whole check, nothing written past it.
  GuardedScratch exact(needed);
  RecordingSink complete;
  const core::Result ok = core::Check(program.data(), program.size, {}, exact.span(), complete);
  EXPECT_TRUE(ok.ok()) << ok.errors << " errors";
  EXPECT_TRUE(ok.completed);
  EXPECT_TRUE(exact.UntouchedFrom(needed));
  EXPECT_EQ(complete.methods, (std::vector<std::string>{"prefill", "decode"}));
  EXPECT_EQ(complete.shared, std::vector<std::string>{"paired_state.000"});
  EXPECT_EQ(complete.occurrences, 2u);
}

TEST(Check, TheReportSaysWhatTheScratchNeeded) {
  const AlignedProgram program(SharedStateProgram());
  const size_t needed = core::ScratchBytes(program.data(), program.size, {});
  GuardedScratch scratch(needed - 1);
  RecordingSink sink;
  (void)core::Check(program.data(), program.size, {}, scratch.span(), sink);
  EXPECT_EQ(internal::FindingMessage(sink.findings[0], {}),
            "the scratch of " + std::to_string(needed - 1) +
                " bytes is too small: the check needs " + std::to_string(needed) +
                " (8-byte aligned)");
}

TEST(Check, AMisalignedScratchIsAFindingEvenWhenLargeEnough) {
  const AlignedProgram program(SharedStateProgram());
  const size_t needed = core::ScratchBytes(program.data(), program.size, {});
  std::vector<uint64_t> words(needed / 8 + 2);
  auto* misaligned = reinterpret_cast<uint8_t*>(words.data()) + 4;
  RecordingSink sink;
  const core::Result result =
      core::Check(program.data(), program.size, {}, {misaligned, needed + 4}, sink);
  EXPECT_FALSE(result.completed);
  ASSERT_EQ(sink.kinds, std::vector<FindingKind>{FindingKind::kScratchTooSmall});
  EXPECT_EQ(sink.findings[0].reason, 1);
  const std::string message = internal::FindingMessage(sink.findings[0], {});
  EXPECT_NE(message.find("is not 8-byte aligned"), std::string::npos) << message;
}

TEST(Check, TheAllocateCallbackIsAskedOnceForExactlyWhatIsNeeded) {
  const AlignedProgram program(SharedStateProgram());
  const size_t needed = core::ScratchBytes(program.data(), program.size, {});
  struct Pool {
    std::vector<uint64_t> words;
    std::vector<size_t> asked;
  } pool;
  core::Scratch scratch;
  scratch.context = &pool;
  scratch.allocate = [](size_t bytes, void* context) -> void* {
    auto* p = static_cast<Pool*>(context);
    p->asked.push_back(bytes);
    p->words.assign(bytes / 8 + 1, 0);
    return p->words.data();
  };
  RecordingSink sink;
  const core::Result result = core::Check(program.data(), program.size, {}, scratch, sink);
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(pool.asked, std::vector<size_t>{needed});

  // An allocator that has nothing: the finding, not a crash.
  scratch.allocate = [](size_t, void*) -> void* { return nullptr; };
  RecordingSink refused;
  const core::Result none = core::Check(program.data(), program.size, {}, scratch, refused);
  EXPECT_FALSE(none.completed);
  EXPECT_EQ(refused.kinds, std::vector<FindingKind>{FindingKind::kScratchTooSmall});
}

TEST(Check, BytesThatAreNoProgramNeedNoScratchAndSaySo) {
  const std::string junk(256, 'x');
  const AlignedProgram program(junk);
  EXPECT_EQ(core::ScratchBytes(program.data(), program.size, {}), 0u);
  RecordingSink sink;
  const core::Result result = core::Check(program.data(), program.size, {}, {}, sink);
  EXPECT_FALSE(result.readable);
  EXPECT_EQ(sink.kinds, std::vector<FindingKind>{FindingKind::kNotAProgram});
}

// Every real program, in exactly the scratch ScratchBytes asks for: the
// check completes, writes nothing past it, and counts what the host
// Report counts; one byte less is the one clean finding.
TEST(Check, EveryCorpusProgramChecksInExactlyItsScratch) {
  const std::vector<test_support::ManifestRow> rows = test_support::CorpusProgramRows();
  if (rows.empty()) GTEST_SKIP() << "../shared/corpus is absent: no real programs to check";
  size_t checked = 0, largest_scratch = 0;
  for (const test_support::ManifestRow& row : rows) {
    SCOPED_TRACE(row.file);
    const AlignedProgram program(test_support::ReadFileBytes(test_support::CorpusPath(row)));
    const size_t needed = core::ScratchBytes(program.data(), program.size, {});
    ASSERT_GT(needed, 0u);
    largest_scratch = std::max(largest_scratch, needed);
    GuardedScratch exact(needed);
    RecordingSink sink;
    const core::Result result = core::Check(program.data(), program.size, {}, exact.span(), sink);
    EXPECT_TRUE(result.completed);
    EXPECT_TRUE(exact.UntouchedFrom(needed));
    const Report report = CheckProgram(program.data(), program.size, {});
    EXPECT_EQ(result.errors, report.error_count());
    EXPECT_EQ(result.warnings, report.findings.size() - report.error_count());
    EXPECT_EQ(sink.methods.size(), report.methods.size());

    GuardedScratch short_by_one(needed - 1);
    RecordingSink refused;
    const core::Result too_small =
        core::Check(program.data(), program.size, {}, short_by_one.span(), refused);
    EXPECT_FALSE(too_small.completed);
    EXPECT_EQ(refused.kinds, std::vector<FindingKind>{FindingKind::kScratchTooSmall});
    EXPECT_TRUE(short_by_one.UntouchedFrom(0));
    ++checked;
  }
  EXPECT_EQ(checked, rows.size());
  RecordProperty("largest_scratch_bytes", std::to_string(largest_scratch));
}

}  // namespace
}  // namespace pteshare::runtime_check
