// BundleBuilder (bundle_builder.h): a bundle serialised again around a
// new program, laid out as the exporter lays it out (root, program aligned
// to 32, then the suites), with the version and every test value kept;
// CheckTestCasesKept naming the first difference; and the refusals (a
// field or a value type this schema does not know, a type without its
// value). Reading bundles is bundle_test.cc's; rewriting one,
// bundle_writer_test.cc's.
#include "rewriter/bundle/bundle_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bundle_bytes.h"
#include "rewriter/program/bundle.h"
#include "tests/bundle_fixtures.h"
#include "tests/rewrite_fixtures.h"

namespace pteshare {
namespace {

using test_support::BundleSpec;
using test_support::MakeBundle;
using test_support::ReadBytes;
namespace fs = std::filesystem;

// A real program to wrap, made here (no corpus needed).
std::vector<uint8_t> Program() { return test_support::Build(test_support::SharedCacheSpec()); }

std::string KeptError(std::span<const uint8_t> old_bundle, std::span<const uint8_t> new_bundle) {
  Status kept = CheckTestCasesKept(old_bundle, new_bundle);
  return kept.ok() ? std::string("(kept)") : kept.error().message;
}

TEST(BundleBuilder, CorpusBundleRebuiltAroundItsProgramKeepsEveryTestCase) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  for (const fs::path& path : test_support::CorpusBundleFiles()) {
    SCOPED_TRACE(path.filename().string());
    const std::vector<uint8_t> bytes = ReadBytes(path);
    Result<BundleInfo> info = ReadBundle(bytes);
    ASSERT_TRUE(info.ok()) << info.error().message;
    const std::span<const uint8_t> program = ProgramInBundle(bytes, *info);
    Result<std::vector<uint8_t>> rebuilt = RebuildBundle(bytes, program);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.error().message;
    Status kept = CheckTestCasesKept(bytes, *rebuilt);
    EXPECT_TRUE(kept.ok()) << kept.error().message;
    Result<BundleInfo> again = ReadBundle(*rebuilt);
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(again->test_cases, info->test_cases);
    EXPECT_EQ(again->version, info->version);
    const std::span<const uint8_t> inner = ProgramInBundle(*rebuilt, *again);
    EXPECT_TRUE(std::equal(inner.begin(), inner.end(), program.begin(), program.end()));
    // Deterministic, and a fixed point: rebuilding the result gives it back.
    Result<std::vector<uint8_t>> twice = RebuildBundle(*rebuilt, inner);
    ASSERT_TRUE(twice.ok());
    EXPECT_EQ(*twice, *rebuilt);
  }
}

TEST(BundleBuilder, AChangedTestValueIsCaught) {
  const std::vector<uint8_t> a = MakeBundle(Program());
  BundleSpec changed;
  changed.data_bias = 1;
  const std::vector<uint8_t> b = MakeBundle(Program(), changed);
  Status kept = CheckTestCasesKept(a, b);
  ASSERT_FALSE(kept.ok());
  EXPECT_EQ(kept.error().message,
            "the new bundle does not keep the test cases: test suite 0 (forward), test case 0, "
            "input 0 differs");
}

TEST(BundleBuilder, AFieldTheSchemaDoesNotKnowIsRefusedNotDropped) {
  BundleSpec spec;
  spec.unknown_int_field = true;
  const std::vector<uint8_t> bundle = MakeBundle(Program(), spec);
  ASSERT_TRUE(ReadBundle(bundle).ok());  // readable: the program is all we need
  Result<std::vector<uint8_t>> rebuilt = RebuildBundle(bundle, Program());
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_EQ(rebuilt.error().message,
            "bundled program: test suite 0 (forward), test case 0, expected output 0 (int) stores "
            "a field this schema does not know (a newer bundle format?); rewriting would drop it");
}

TEST(BundleBuilder, AValueTypeTheSchemaDoesNotKnowIsRefused) {
  BundleSpec spec;
  spec.unknown_value_type = 9;
  const std::vector<uint8_t> bundle = MakeBundle(Program(), spec);
  Result<std::vector<uint8_t>> rebuilt = RebuildBundle(bundle, Program());
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_EQ(rebuilt.error().message,
            "bundled program: test suite 0 (forward), test case 0, input 0 has value type 9, "
            "which this schema does not know (a newer bundle format?)");
}

// Found by fuzz_read_bundle: a union type without its value passes the
// verifier; the copy must refuse it, not follow a null table.
TEST(BundleBuilder, AValueTypeWithoutAValueIsRefused) {
  BundleSpec spec;
  spec.tensor_without_value = true;
  const std::vector<uint8_t> bundle = MakeBundle(std::vector<uint8_t>(256, 'x'), spec);
  ASSERT_TRUE(ReadBundle(bundle).ok());
  Result<std::vector<uint8_t>> rebuilt = RebuildBundle(bundle, std::vector<uint8_t>(64, 'y'));
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_EQ(rebuilt.error().message,
            "bundled program: test suite 0 (forward), test case 0, input 0 has value type 1 but "
            "no value");
  EXPECT_TRUE(CheckTestCasesKept(bundle, bundle).ok());  // compared without following it
}

// Found by fuzz_read_bundle: a NONE value with a body stored beside it is
// copied as NONE (the body means nothing) and compares equal.
TEST(BundleBuilder, ANoneValueWithABodyIsKeptAsNone) {
  BundleSpec spec;
  spec.none_with_body = true;
  const std::vector<uint8_t> bundle = MakeBundle(std::vector<uint8_t>(256, 'x'), spec);
  Result<std::vector<uint8_t>> rebuilt = RebuildBundle(bundle, std::vector<uint8_t>(64, 'y'));
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.error().message;
  Status kept = CheckTestCasesKept(bundle, *rebuilt);
  EXPECT_TRUE(kept.ok()) << kept.error().message;
}

// A larger program (64-bit offsets, another size) in the place of the old
// one: the bundle reads back with it byte for byte at a multiple of 32, the
// version kept, and the suites after the program, where the exporter puts
// them. The same inputs give the same bytes.
TEST(BundleBuilder, ANewProgramIsWrappedAlignedWithTheSuitesAfterIt) {
  BundleSpec spec;
  spec.version = 7;
  spec.test_cases = 2;
  const std::vector<uint8_t> bundle = MakeBundle(Program(), spec);
  const std::vector<uint8_t> other =
      test_support::Build(test_support::SharedCacheSpec(test_support::kFiveGiB));
  ASSERT_NE(other.size(), Program().size());
  Result<std::vector<uint8_t>> rebuilt = RebuildBundle(bundle, other);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.error().message;
  EXPECT_EQ(KeptError(bundle, *rebuilt), "(kept)");
  Result<BundleInfo> info = ReadBundle(*rebuilt);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->version, 7u);
  EXPECT_EQ(info->test_cases, 2u);
  EXPECT_EQ(info->program_offset % 32, 0u);
  const std::span<const uint8_t> inner = ProgramInBundle(*rebuilt, *info);
  EXPECT_EQ(std::vector<uint8_t>(inner.begin(), inner.end()), other);
  const auto* suites = bundle::GetBundledProgram(rebuilt->data())->method_test_suites();
  ASSERT_NE(suites, nullptr);
  const auto suites_at =
      static_cast<uint64_t>(reinterpret_cast<const uint8_t*>(suites) - rebuilt->data());
  EXPECT_GE(suites_at, info->program_offset + info->program_size) << "root, program, suites";
  Result<std::vector<uint8_t>> again = RebuildBundle(bundle, other);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *rebuilt);
}

// Each thing CheckTestCasesKept compares, changed alone, is named.
TEST(BundleBuilder, EachDifferenceInTheTestsIsNamed) {
  const std::vector<uint8_t> program = Program();
  const std::vector<uint8_t> base = MakeBundle(program);
  const std::string prefix = "the new bundle does not keep the test cases: ";
  BundleSpec version;
  version.version = 2;
  EXPECT_EQ(KeptError(base, MakeBundle(program, version)), prefix + "the version differs");
  BundleSpec renamed;
  renamed.method_name = "decode";
  EXPECT_EQ(KeptError(base, MakeBundle(program, renamed)),
            prefix + "test suite 0 (forward): the method name differs");
  BundleSpec two_cases;
  two_cases.test_cases = 2;
  EXPECT_EQ(KeptError(base, MakeBundle(program, two_cases)),
            prefix + "test suite 0 (forward): the number of test cases differs");
  BundleSpec answer;
  answer.expected_int = 43;
  EXPECT_EQ(KeptError(base, MakeBundle(program, answer)),
            prefix + "test suite 0 (forward), test case 0, expected output 0 differs");
  // The program is not compared: that is the writer's check.
  EXPECT_EQ(KeptError(base, MakeBundle(test_support::Build(
                                test_support::SharedCacheSpec(test_support::kFiveGiB)))),
            "(kept)");
}

// A program is not a bundle: both functions say so rather than read it as
// one.
TEST(BundleBuilder, AProgramIsNoBundleToRebuildOrCompare) {
  const std::vector<uint8_t> program = Program();
  const std::vector<uint8_t> bundle = MakeBundle(program);
  const std::string not_a_bundle = "not a bundled program: identifier at byte 4 is not 'BP08'";
  Result<std::vector<uint8_t>> rebuilt = RebuildBundle(program, program);
  ASSERT_FALSE(rebuilt.ok());
  EXPECT_EQ(rebuilt.error().message, not_a_bundle);
  EXPECT_EQ(KeptError(bundle, program), not_a_bundle);
  EXPECT_EQ(KeptError(program, bundle), not_a_bundle);
}

}  // namespace
}  // namespace pteshare
