// Bundled programs (.bpte) through the command line, as a user runs them:
// every command works on the program inside and says so; `rewrite` gives a
// bundle whose program is exactly the rewrite of the extracted program,
// with the test cases kept, through -o and --in-place alike; a malformed
// bundle is one line and exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "rewriter/bundle/bundle_builder.h"
#include "rewriter/program/bundle.h"
#include "runtime_check/alias_check.h"
#include "tests/bundle_fixtures.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using test_support::CommandOutput;
using test_support::Contains;
using test_support::ReadBytes;
using test_support::RunTool;
using test_support::TempDir;
namespace fs = std::filesystem;

void WriteBytes(const fs::path& path, std::span<const uint8_t> bytes) {
  test_support::WriteFileBytes(path, std::string(bytes.begin(), bytes.end()));
}

// The program inside a bundle file, as bytes.
std::vector<uint8_t> Extract(const fs::path& bundle) {
  const std::vector<uint8_t> bytes = ReadBytes(bundle);
  Result<BundleInfo> info = ReadBundle(bytes);
  EXPECT_TRUE(info.ok()) << bundle << ": " << info.error().message;
  if (!info.ok()) return {};
  const std::span<const uint8_t> inner = ProgramInBundle(bytes, *info);
  return {inner.begin(), inner.end()};
}

// The one property of a bundle rewrite: with the same options, the program
// in the rewritten bundle is the rewrite of the extracted program, every
// test case is kept, -o and --in-place agree and a second run changes no
// byte. Returns the rewritten bundle's path.
fs::path ExpectBundleRewriteIsTheProgramRewrite(const TempDir& dir, const fs::path& bundle,
                                                const std::vector<std::string>& options) {
  const fs::path extracted = dir / "extracted.pte", program_out = dir / "extracted.out.pte";
  const fs::path bundle_out = dir / "out.bpte", in_place = dir / "in_place.bpte";
  WriteBytes(extracted, Extract(bundle));
  auto rewrite = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "rewrite");
    args.insert(args.end(), options.begin(), options.end());
    return RunTool("pteshare", args);
  };
  CommandOutput plain = rewrite({extracted.string(), "-o", program_out.string()});
  EXPECT_EQ(plain.exit_status, 0) << plain.err;
  CommandOutput bundled = rewrite({bundle.string(), "-o", bundle_out.string()});
  EXPECT_EQ(bundled.exit_status, 0) << bundled.err;
  EXPECT_EQ(Extract(bundle_out), ReadBytes(program_out));
  Status kept = CheckTestCasesKept(ReadBytes(bundle), ReadBytes(bundle_out));
  EXPECT_TRUE(kept.ok()) << kept.error().message;

  fs::copy_file(bundle, in_place);
  fs::permissions(in_place, fs::perms::owner_read | fs::perms::owner_write);
  CommandOutput inplace = rewrite({in_place.string(), "--in-place"});
  EXPECT_EQ(inplace.exit_status, 0) << inplace.err;
  EXPECT_EQ(ReadBytes(in_place), ReadBytes(bundle_out));

  CommandOutput again = rewrite({bundle_out.string(), "-o", (dir / "again.bpte").string()});
  EXPECT_EQ(again.exit_status, 0) << again.err;
  // Unchanged: the shared state already placed, or nothing to share.
  EXPECT_TRUE(Contains(again.out, ": already planned, no change: ") ||
              Contains(again.out, ": no change, nothing to share: "))
      << again.out;
  EXPECT_EQ(ReadBytes(dir / "again.bpte"), ReadBytes(bundle_out));
  return bundle_out;
}

TEST(BundleCommand, EveryCorpusBundleInspectsPlansVerifiesAndPlots) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  const std::vector<fs::path> bundles = test_support::CorpusBundleFiles();
  ASSERT_EQ(bundles.size(), test_support::CorpusBundleCount());
  TempDir dir;
  for (const fs::path& path : bundles) {
    SCOPED_TRACE(path.filename().string());
    const std::string said = path.string() + ": the program inside a bundled program (BP08, ";
    CommandOutput inspect = RunTool("pteshare", {"inspect", path.string()});
    EXPECT_EQ(inspect.exit_status, 0) << inspect.err;
    EXPECT_EQ(inspect.out.find(said), 0u) << inspect.out;
    EXPECT_TRUE(Contains(inspect.out, "ET12 program (inside the bundle), 1 method")) << inspect.out;
    CommandOutput json = RunTool("pteshare", {"inspect", "--json", path.string()});
    EXPECT_EQ(json.exit_status, 0) << json.err;
    EXPECT_TRUE(Contains(json.out, "\"bundle\": {\n    \"bundle_size\": " +
                                       std::to_string(fs::file_size(path)) + ","))
        << json.out;
    CommandOutput plan = RunTool("pteshare", {"plan", path.string()});
    EXPECT_EQ(plan.exit_status, 0) << plan.err;
    // The answer first, then which program of the bundle it is about.
    EXPECT_EQ(plan.out.find(path.string() + ": "), 0u) << plan.out;
    EXPECT_EQ(plan.out.find("\n" + said), plan.out.find('\n')) << plan.out;
    CommandOutput verify = RunTool("pteshare", {"verify", path.string()});
    EXPECT_EQ(verify.exit_status, 0) << verify.err;
    EXPECT_EQ(verify.out.find(said), 0u) << verify.out;
    const fs::path svg = dir / (path.stem().string() + ".svg");
    CommandOutput plot = RunTool("pteshare", {"plot", path.string(), "-o", svg.string()});
    EXPECT_EQ(plot.exit_status, 0) << plot.err;
    EXPECT_EQ(plot.out.find(path.string() + ": "), 0u) << plot.out;  // the answer first
    EXPECT_EQ(plot.out.find("\n" + said), plot.out.find('\n')) << plot.out;
    EXPECT_TRUE(fs::exists(svg));
  }
}

TEST(BundleCommand, RewrittenCorpusBundleHoldsTheRewriteOfTheExtractedProgram) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  for (const fs::path& path : test_support::CorpusBundleFiles()) {
    SCOPED_TRACE(path.filename().string());
    TempDir dir;
    const fs::path out = ExpectBundleRewriteIsTheProgramRewrite(dir, path, {});
    const std::vector<uint8_t> bytes = ReadBytes(out);
    runtime_check::Report report = runtime_check::CheckProgram(bytes.data(), bytes.size(), {});
    EXPECT_TRUE(report.ok()) << report.Summary();
  }
}

TEST(BundleCommand, SharedStateLlmInABundleIsRewrittenAndStillSharesItsState) {
  TempDir dir;
  const std::string llm = test_support::SynthLlm(dir.path(), "llm.pte");
  const fs::path bundle = dir / "llm.bpte";
  WriteBytes(bundle, test_support::MakeBundle(ReadBytes(llm)));
  TempDir work;
  const fs::path out = ExpectBundleRewriteIsTheProgramRewrite(work, bundle, {"--share-auto"});
  // The bundle changed (the program grew its shared front regions) and
  // verify, on the bundle, finds the state shared.
  EXPECT_NE(ReadBytes(out), ReadBytes(bundle));
  CommandOutput summary = RunTool(
      "pteshare", {"rewrite", bundle.string(), "--share-auto", "-o", (dir / "x.bpte").string()});
  EXPECT_TRUE(Contains(summary.out, "bundled program: the program inside rewritten ("))
      << summary.out;
  EXPECT_TRUE(Contains(summary.out, "1 test case kept; bundle ")) << summary.out;
  CommandOutput verify = RunTool("pteshare", {"verify", out.string(), "--share-auto"});
  EXPECT_EQ(verify.exit_status, 0) << verify.out << verify.err;
  CommandOutput selfcheck = RunTool("pteshare-selfcheck", {out.string()});
  EXPECT_EQ(selfcheck.exit_status, 0) << selfcheck.out << selfcheck.err;
}

TEST(BundleCommand, RewriteJsonGivesTheBundleSizes) {
  TempDir dir;
  const std::string llm = test_support::SynthLlm(dir.path(), "llm.pte");
  const fs::path bundle = dir / "llm.bpte";
  WriteBytes(bundle, test_support::MakeBundle(ReadBytes(llm)));
  CommandOutput out = RunTool("pteshare", {"rewrite", bundle.string(), "--share-auto", "-o",
                                           (dir / "o.bpte").string(), "--json"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(
      Contains(out.out, "\"bundle_size_before\": " + std::to_string(fs::file_size(bundle)) + ","))
      << out.out;
  EXPECT_TRUE(Contains(
      out.out, "\"bundle_size_after\": " + std::to_string(fs::file_size(dir / "o.bpte")) + ","))
      << out.out;
  EXPECT_TRUE(Contains(out.out, "\"test_cases\": 1\n")) << out.out;
}

TEST(BundleCommand, MalformedBundleIsOneLineAndExitTwoForEveryCommand) {
  TempDir dir;
  const std::string llm = test_support::SynthLlm(dir.path(), "llm.pte");
  std::vector<uint8_t> truncated = test_support::MakeBundle(ReadBytes(llm));
  truncated.resize(truncated.size() / 2);
  test_support::BundleSpec no_program;
  no_program.with_program = false;
  const std::vector<std::pair<std::vector<uint8_t>, std::string>> cases = {
      {truncated, "bundled program: the bundle's flatbuffer"},
      {test_support::MakeBundle({}, no_program), "bundled program: it holds no program bytes"},
      {test_support::MakeBundle(std::vector<uint8_t>(256, 'x')),
       "the program inside the bundle: not a .pte program"},
  };
  for (const auto& [bytes, expected] : cases) {
    SCOPED_TRACE(expected);
    const fs::path path = dir / "bad.bpte";
    WriteBytes(path, bytes);
    for (std::vector<std::string> args :
         {std::vector<std::string>{"inspect", path.string()},
          {"plan", path.string()},
          {"verify", path.string()},
          {"plot", path.string(), "-o", (dir / "p.svg").string()},
          {"rewrite", path.string(), "-o", (dir / "out.bpte").string()},
          {"rewrite", path.string(), "--in-place"}}) {
      CommandOutput out = RunTool("pteshare", args);
      EXPECT_EQ(out.exit_status, 2) << args[0];
      EXPECT_EQ(out.err.find("pteshare: " + path.string() + ": " + expected), 0u) << out.err;
      EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
      EXPECT_FALSE(fs::exists(dir / "out.bpte"));
    }
    EXPECT_EQ(ReadBytes(path), bytes) << "--in-place changed a bundle it refused";
  }
}

TEST(BundleCommand, RewriteRefusesABundleWhoseTestsItCannotKeep) {
  TempDir dir;
  const std::string llm = test_support::SynthLlm(dir.path(), "llm.pte");
  test_support::BundleSpec spec;
  spec.unknown_int_field = true;
  const fs::path bundle = dir / "newer.bpte";
  WriteBytes(bundle, test_support::MakeBundle(ReadBytes(llm), spec));
  CommandOutput out = RunTool(
      "pteshare", {"rewrite", bundle.string(), "--share-auto", "-o", (dir / "o.bpte").string()});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Contains(out.err, "stores a field this schema does not know")) << out.err;
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  EXPECT_FALSE(fs::exists(dir / "o.bpte"));
  // Reading it is fine: inspect needs only the program.
  EXPECT_EQ(RunTool("pteshare", {"inspect", bundle.string()}).exit_status, 0);
}

}  // namespace
}  // namespace pteshare
