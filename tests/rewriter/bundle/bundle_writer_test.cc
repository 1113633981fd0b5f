// BundleWriter (bundle_writer.h): `rewrite` of a bundled program in the
// library. The program inside is patched in memory with the PatchSet made
// for it, so the new bundle's program is byte for byte the rewrite of the
// extracted program; an empty patch gives the bundle unchanged; the check
// before a new bundle may stand refuses each kind of wrong bundle; and
// WriteRewrittenBundle puts exactly the in-memory bundle on disk, as a new
// name or over the input. The same through the command line, on the
// corpus's bundles, is bundle_command_test.cc's.
#include "rewriter/bundle/bundle_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "rewriter/bundle/bundle_builder.h"
#include "rewriter/program/bundle.h"
#include "tests/bundle_fixtures.h"
#include "tests/rewrite_fixtures.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

// SharedCacheSpec in a bundle, opened as `rewrite` opens it, with the plan
// that shares the cache and its patch. The bundle's bytes stay where the
// opened program points.
struct Bundled {
  std::vector<uint8_t> program;
  std::vector<uint8_t> bundle;
  std::unique_ptr<OpenedProgram> opened;
  Plan plan;
  PatchSet patch;
};

std::unique_ptr<Bundled> OpenBundled(std::vector<uint8_t> bundle) {
  auto b = std::make_unique<Bundled>();
  b->bundle = std::move(bundle);
  Result<OpenedProgram> opened = OpenProgramBytes(b->bundle);
  EXPECT_TRUE(opened.ok()) << opened.error().message;
  if (!opened.ok()) return nullptr;
  b->opened = std::make_unique<OpenedProgram>(std::move(opened).value());
  EXPECT_TRUE(b->opened->file.bundle().has_value());
  const std::span<const uint8_t> inner = b->opened->file.bytes();
  b->program.assign(inner.begin(), inner.end());
  b->plan = PlanSharing(b->opened->view);
  Result<PatchSet> patch = MakePatchSet(inner, b->opened->view, b->plan);
  EXPECT_TRUE(patch.ok()) << patch.error().message;
  if (!patch.ok()) return nullptr;
  b->patch = std::move(patch).value();
  return b;
}

std::string CheckError(std::span<const uint8_t> written, const Bundled& b,
                       const RewrittenBundle& expected, const Plan& plan) {
  Status checked = CheckRewrittenBundle(written, b.opened->file, expected, b.patch, plan);
  return checked.ok() ? std::string("(passed)") : checked.error().message;
}

TEST(BundleWriter, TheProgramInsideIsByteForByteTheRewriteOfTheExtractedProgram) {
  const std::vector<uint8_t> program = Build(SharedCacheSpec());
  auto b = OpenBundled(MakeBundle(program));
  ASSERT_NE(b, nullptr);
  ASSERT_FALSE(b->patch.empty());
  EXPECT_EQ(b->program, program);

  // The program rewritten on its own, as `rewrite` on the extracted .pte.
  ReadProgram alone = Read(program);
  Result<PatchSet> own = MakePatchSet(program, alone.view, PlanSharing(alone.view));
  ASSERT_TRUE(own.ok()) << own.error().message;
  const std::vector<uint8_t> expected = ApplyPatch(program, *own);

  Result<RewrittenBundle> rewritten = RewriteBundleInMemory(b->opened->file, b->patch);
  ASSERT_TRUE(rewritten.ok()) << rewritten.error().message;
  EXPECT_EQ(rewritten->program, expected);
  Result<BundleInfo> info = ReadBundle(rewritten->bundle);
  ASSERT_TRUE(info.ok()) << info.error().message;
  const std::span<const uint8_t> inner = ProgramInBundle(rewritten->bundle, *info);
  EXPECT_EQ(std::vector<uint8_t>(inner.begin(), inner.end()), expected);
  Status kept = CheckTestCasesKept(b->bundle, rewritten->bundle);
  EXPECT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_EQ(CheckError(rewritten->bundle, *b, *rewritten, b->plan), "(passed)");
}

// Rewriting the result again plans nothing new: the empty patch copies the
// bundle as it is, so a second rewrite changes no byte (I7).
TEST(BundleWriter, ASecondRewriteHasAnEmptyPatchAndKeepsEveryByte) {
  auto first = OpenBundled(MakeBundle(Build(SharedCacheSpec())));
  ASSERT_NE(first, nullptr);
  Result<RewrittenBundle> rewritten = RewriteBundleInMemory(first->opened->file, first->patch);
  ASSERT_TRUE(rewritten.ok()) << rewritten.error().message;
  auto second = OpenBundled(rewritten->bundle);
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(second->patch.empty());
  Result<RewrittenBundle> again = RewriteBundleInMemory(second->opened->file, second->patch);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->bundle, rewritten->bundle);
  EXPECT_EQ(again->program, rewritten->program);
}

// Each kind of wrong bundle the writer could have produced is refused
// before it may stand, in words that say which check failed.
TEST(BundleWriter, TheCheckRefusesAWrongProgramChangedTestsOrAnotherPlan) {
  auto b = OpenBundled(MakeBundle(Build(SharedCacheSpec())));
  ASSERT_NE(b, nullptr);
  Result<RewrittenBundle> expected = RewriteBundleInMemory(b->opened->file, b->patch);
  ASSERT_TRUE(expected.ok()) << expected.error().message;

  EXPECT_EQ(CheckError(b->bundle, *b, *expected, b->plan),
            "the program in the new bundle is not the rewritten program")
      << "the input, not rewritten";
  BundleSpec changed;
  changed.data_bias = 1;
  EXPECT_EQ(CheckError(MakeBundle(expected->program, changed), *b, *expected, b->plan),
            "the new bundle does not keep the test cases: test suite 0 (forward), test case 0, "
            "input 0 differs");
  Plan other = b->plan;
  other.methods[1].arena_sizes_after[0] += 16;
  const std::string wrong_plan = CheckError(expected->bundle, *b, *expected, other);
  EXPECT_TRUE(Contains(wrong_plan, "the rewritten file: method decode: arena 1 is")) << wrong_plan;
  EXPECT_EQ(CheckError(expected->program, *b, *expected, b->plan),
            "not a bundled program: identifier at byte 4 is not 'BP08'");
}

TEST(BundleWriter, AProgramThatIsNoBundleIsRefusedAndNothingIsWritten) {
  const std::vector<uint8_t> program = Build(SharedCacheSpec());
  Result<PteFile> plain = PteFile::FromBytes(program);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  PatchSet none;
  none.old_file_size = none.new_file_size = program.size();
  Result<RewrittenBundle> rewritten = RewriteBundleInMemory(*plain, none);
  ASSERT_FALSE(rewritten.ok());
  EXPECT_EQ(rewritten.error().message, "is not a bundled program");

  TempDir dir;
  Result<uint64_t> written = WriteRewrittenBundle(*plain, -1, none, Plan{}, dir / "out.bpte");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message, "is not a bundled program");
  EXPECT_FALSE(fs::exists(dir / "out.bpte"));
}

// On disk: exactly the in-memory bundle, to a new name (which gets the
// input's mode) and over the input itself (--in-place renames the new
// file over it); verbose progress says what happened, with both sizes.
TEST(BundleWriter, WrittenBundleIsTheInMemoryOneAsANewNameAndInPlace) {
  TempDir dir;
  const fs::path in = dir / "in.bpte";
  WriteBytes(in, MakeBundle(Build(SharedCacheSpec())));
  fs::permissions(in, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  const int fd = ::open(in.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::vector<std::string> progress;
  WriteOptions options;
  options.verbose = true;
  options.progress = [&](const std::string& line) { progress.push_back(line); };
  {
    Result<OpenedProgram> opened = OpenProgram(in);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    const Plan plan = PlanSharing(opened->view);
    Result<PatchSet> patch = MakePatchSet(opened->file.bytes(), opened->view, plan);
    ASSERT_TRUE(patch.ok()) << patch.error().message;
    Result<RewrittenBundle> expected = RewriteBundleInMemory(opened->file, *patch);
    ASSERT_TRUE(expected.ok()) << expected.error().message;

    Result<uint64_t> size =
        WriteRewrittenBundle(opened->file, fd, *patch, plan, dir / "out.bpte", options);
    ASSERT_TRUE(size.ok()) << size.error().message;
    EXPECT_EQ(*size, expected->bundle.size());
    EXPECT_EQ(ReadBytes(dir / "out.bpte"), expected->bundle);
    EXPECT_EQ(fs::status(dir / "out.bpte").permissions(), fs::status(in).permissions());
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.front(), "bundled program: the program inside rewritten (" +
                                    std::to_string(opened->file.bytes().size()) + " -> " +
                                    std::to_string(expected->program.size()) +
                                    " bytes), the bundle serialised again");

    Result<uint64_t> in_place = WriteRewrittenBundle(opened->file, fd, *patch, plan, in);
    ASSERT_TRUE(in_place.ok()) << in_place.error().message;
    EXPECT_EQ(ReadBytes(in), expected->bundle);
  }
  ::close(fd);
  Result<OpenedProgram> reopened = OpenProgram(in);
  ASSERT_TRUE(reopened.ok()) << reopened.error().message;
  EXPECT_TRUE(reopened->file.bundle().has_value());
}

}  // namespace
}  // namespace pteshare
