// Bundled programs (.bpte) in the library: the program found inside a
// verified bundle (by the reader and by runtime_check), and malformed
// bundles refused with one clear line. The bundle built again around a
// program is bundle_builder_test.cc's.
#include "rewriter/program/bundle.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bundle_bytes.h"
#include "rewriter/program/pte_file.h"
#include "runtime_check/alias_check.h"
#include "tests/bundle_fixtures.h"
#include "tests/fuzz/bundle_properties.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using test_support::BundleSpec;
using test_support::MakeBundle;
using test_support::ReadBytes;
namespace fs = std::filesystem;

std::string BundleError(const std::vector<uint8_t>& bytes) {
  Result<BundleInfo> info = ReadBundle(bytes);
  return info.ok() ? std::string("(read)") : info.error().message;
}

std::string OpenError(const std::vector<uint8_t>& bytes) {
  test_support::TempDir dir;
  test_support::WriteFileBytes(dir / "b.bpte", std::string(bytes.begin(), bytes.end()));
  Result<PteFile> file = PteFile::Open(dir / "b.bpte");
  return file.ok() ? std::string("(opened)") : file.error().message;
}

TEST(Bundle, EveryCorpusBundleOpensAsTheProgramInside) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  const std::vector<fs::path> bundles = test_support::CorpusBundleFiles();
  EXPECT_EQ(bundles.size(), test_support::CorpusBundleCount());
  for (const fs::path& path : bundles) {
    SCOPED_TRACE(path.filename().string());
    const std::vector<uint8_t> bytes = ReadBytes(path);
    Result<PteFile> file = PteFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    ASSERT_TRUE(file->bundle().has_value());
    const BundleInfo& info = *file->bundle();
    EXPECT_EQ(info.file_size, bytes.size());
    EXPECT_EQ(info.program_offset % 32, 0u);
    EXPECT_GT(info.test_cases, 0u);
    EXPECT_EQ(file->bundle_bytes().size(), bytes.size());
    // bytes() are the program, exactly the vector's contents.
    const std::vector<uint8_t> inner(bytes.begin() + info.program_offset,
                                     bytes.begin() + info.program_offset + info.program_size);
    EXPECT_EQ(std::vector<uint8_t>(file->bytes().begin(), file->bytes().end()), inner);
    EXPECT_EQ(file->layout().file_size, info.program_size);
    EXPECT_NE(file->program(), nullptr);
  }
}

TEST(Bundle, RuntimeCheckReadsTheProgramInside) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  for (const fs::path& path : test_support::CorpusBundleFiles()) {
    const std::vector<uint8_t> bytes = ReadBytes(path);
    runtime_check::Report report = runtime_check::CheckProgram(bytes.data(), bytes.size(), {});
    EXPECT_TRUE(report.readable()) << path << ": " << report.Summary();
    EXPECT_TRUE(report.ok()) << path << ": " << report.Summary();
    EXPECT_FALSE(report.methods.empty()) << path;
  }
}

// ---- Malformed bundles -------------------------------------------------------------

TEST(MalformedBundle, TruncatedFailsVerificationBeforeAnyOffsetIsUsed) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  std::vector<uint8_t> bytes = MakeBundle(test_support::SmallCorpusProgram());
  bytes.resize(bytes.size() / 2);
  const std::string expected = "bundled program: the bundle's flatbuffer [0, " +
                               std::to_string(bytes.size()) +
                               ") fails FlatBuffers verification (corrupt offsets or truncated "
                               "tables)";
  EXPECT_EQ(BundleError(bytes), expected);
  EXPECT_EQ(OpenError(bytes), expected);
}

TEST(MalformedBundle, RootOffsetPastTheEnd) {
  std::vector<uint8_t> bytes = {0xf0, 0, 0, 0, 'B', 'P', '0', '8'};
  bytes.resize(64, 0);
  EXPECT_NE(BundleError(bytes).find("fails FlatBuffers verification"), std::string::npos);
}

TEST(MalformedBundle, NoProgram) {
  BundleSpec spec;
  spec.with_program = false;
  const std::vector<uint8_t> bytes = MakeBundle({}, spec);
  EXPECT_EQ(BundleError(bytes), "bundled program: it holds no program bytes");
  EXPECT_EQ(OpenError(bytes), "bundled program: it holds no program bytes");
}

TEST(MalformedBundle, ProgramNotAlignedAsTheSchemaSays) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  // Without force_align the builder aligns the vector to 4 only; some
  // padding of the program puts its start off a multiple of 32.
  BundleSpec spec;
  spec.program_alignment = 0;
  std::vector<uint8_t> program = test_support::SmallCorpusProgram();
  bool found = false;
  for (int extra = 0; extra < 8 && !found; ++extra) {
    const std::vector<uint8_t> bytes = MakeBundle(program, spec);
    const std::string error = BundleError(bytes);
    if (error != "(read)") {
      EXPECT_NE(error.find("not a multiple of 32 as the schema aligns them"), std::string::npos)
          << error;
      found = true;
    }
    program.insert(program.end(), 4, 0);
  }
  EXPECT_TRUE(found) << "no padding put the program off a multiple of 32";
}

TEST(MalformedBundle, ProgramThatIsNoProgram) {
  const std::vector<uint8_t> garbage(256, 'x');
  const std::vector<uint8_t> bytes = MakeBundle(garbage);
  EXPECT_EQ(BundleError(bytes), "(read)");
  EXPECT_EQ(OpenError(bytes),
            "the program inside the bundle: not a .pte program: identifier 'xxxx' at byte 4, "
            "expected 'ET12'");
  runtime_check::Report report = runtime_check::CheckProgram(bytes.data(), bytes.size(), {});
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].kind, runtime_check::FindingKind::kNotAProgram);
  EXPECT_EQ(report.findings[0].message,
            "the program inside the bundle: not a .pte program: identifier 'xxxx' at byte 4, "
            "expected 'ET12'");
}

TEST(MalformedBundle, ABundleInsideABundleIsNoProgram) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  const std::vector<uint8_t> nested = MakeBundle(MakeBundle(test_support::SmallCorpusProgram()));
  EXPECT_NE(OpenError(nested).find("the program inside the bundle: not a .pte program: "
                                   "identifier 'BP08' is a bundled program"),
            std::string::npos)
      << OpenError(nested);
}

TEST(MalformedBundle, RuntimeCheckRefusesATruncatedBundleWithOneFinding) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  std::vector<uint8_t> bytes = MakeBundle(test_support::SmallCorpusProgram());
  bytes.resize(bytes.size() - 100);
  runtime_check::Report report = runtime_check::CheckProgram(bytes.data(), bytes.size(), {});
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].kind, runtime_check::FindingKind::kNotAProgram);
  EXPECT_NE(report.findings[0].message.find("bundled program: the bundle's flatbuffer"),
            std::string::npos);
}

// The fuzz target's properties (tests/fuzz/bundle_properties.h) hold on the
// real bundles, on bundles made here and on the malformed ones above.
TEST(BundleFuzzProperties, HoldOnRealMadeAndMalformedBundles) {
  std::vector<std::vector<uint8_t>> inputs;
  for (const fs::path& path : test_support::CorpusBundleFiles()) inputs.push_back(ReadBytes(path));
  std::vector<uint8_t> program = test_support::SharedDir().empty()
                                     ? std::vector<uint8_t>(256, 'x')
                                     : test_support::SmallCorpusProgram();
  inputs.push_back(MakeBundle(program));
  BundleSpec unknown_field;
  unknown_field.unknown_int_field = true;
  inputs.push_back(MakeBundle(program, unknown_field));
  BundleSpec no_program;
  no_program.with_program = false;
  inputs.push_back(MakeBundle({}, no_program));
  BundleSpec without_value;
  without_value.tensor_without_value = true;
  inputs.push_back(MakeBundle(program, without_value));
  BundleSpec none_with_body;
  none_with_body.none_with_body = true;
  inputs.push_back(MakeBundle(program, none_with_body));
  std::vector<uint8_t> truncated = MakeBundle(program);
  truncated.resize(truncated.size() / 2);
  inputs.push_back(truncated);
  for (const std::vector<uint8_t>& bytes : inputs) {
    try {
      fuzz::CheckReadBundle(bytes);
    } catch (const fuzz::PropertyViolation& v) {
      ADD_FAILURE() << v.what;
    }
  }
}

}  // namespace
}  // namespace pteshare
