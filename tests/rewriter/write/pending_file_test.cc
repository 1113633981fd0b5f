// PendingFile: a writer's new file has no name until it is complete, so a
// killed `-o` leaves nothing behind (F8: `.OUT.pteshare-tmp-PID` stayed
// forever, as large as the file). The one window with a name (between
// linkat and rename when OUT is replaced) leaves a name that the next
// writer recognises as provably ours and provably abandoned, and cleans;
// nothing else is ever deleted.
#include "rewriter/write/pending_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rewriter/io/crash_points.h"
#include "tests/rewrite_fixtures.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

CommandOutput RewriteTo(const fs::path& in, const fs::path& out, const std::string& crash_at) {
  if (!crash_at.empty()) ::setenv("PTESHARE_TEST_CRASH_AT", crash_at.c_str(), 1);
  CommandOutput result =
      RunTool("pteshare", {"rewrite", in.string(), "--share", kCacheName, "-o", out.string()});
  ::unsetenv("PTESHARE_TEST_CRASH_AT");
  return result;
}

TEST(PendingFile, KilledOutputWriteLeavesNothingBehind) {
  for (int alignment : {4096, 4}) {  // in the slack, then a segment move
    for (const char* crash_at : {"before-publish", "during-segment-move"}) {
      if (alignment == 4096 && std::string(crash_at) == "during-segment-move") continue;
      SCOPED_TRACE(std::string(crash_at) + ", segment alignment " + std::to_string(alignment));
      TempDir dir;
      b::BuildOptions options;
      options.segment_alignment = alignment;
      WriteBytes(dir / "in.pte", Build(SharedCacheSpec(), options));
      for (bool existing : {false, true}) {
        if (existing) WriteFileBytes(dir / "out.pte", "old");
        CommandOutput crashed = RewriteTo(dir / "in.pte", dir / "out.pte", crash_at);
        ASSERT_EQ(crashed.exit_status, kTestCrashExitStatus) << crashed.err;
        const std::vector<std::string> expected =
            existing ? std::vector<std::string>{"in.pte", "out.pte"}
                     : std::vector<std::string>{"in.pte"};
        EXPECT_EQ(FolderNames(dir.path()), expected);
        if (existing) {
          EXPECT_EQ(ReadFileBytes(dir / "out.pte"), "old");
        }
      }
    }
  }
}

TEST(PendingFile, NameLeftBetweenLinkAndRenameIsCleanedByTheNextWriter) {
  TempDir dir;
  b::BuildOptions options;
  options.segment_alignment = 4096;
  WriteBytes(dir / "in.pte", Build(SharedCacheSpec(), options));
  WriteFileBytes(dir / "out.pte", "old");
  CommandOutput crashed = RewriteTo(dir / "in.pte", dir / "out.pte", "after-temp-link");
  ASSERT_EQ(crashed.exit_status, kTestCrashExitStatus) << crashed.err;
  std::vector<std::string> left = FolderNames(dir.path());
  ASSERT_EQ(left.size(), 3u);
  EXPECT_EQ(left[0].rfind(".out.pte.pteshare-tmp-", 0), 0u) << left[0];
  EXPECT_EQ(ReadFileBytes(dir / "out.pte"), "old") << "OUT is the old file until the rename";

  CommandOutput next = RewriteTo(dir / "in.pte", dir / "out.pte", "");
  ASSERT_EQ(next.exit_status, 0) << next.err;
  EXPECT_EQ(FolderNames(dir.path()), (std::vector<std::string>{"in.pte", "out.pte"}));
}

TEST(PendingFile, OnlyProvablyAbandonedTemporariesAreDeleted) {
  TempDir dir;
  const fs::path out = dir / "out.pte";
  // Looks like ours, but the inode in the name is not its own: a user's.
  WriteFileBytes(dir / ".out.pte.pteshare-tmp-1", "user data");
  WriteFileBytes(dir / "out.pte.pteshare-tmp", "user data");
  {
    Result<PendingFile> live = PendingFile::Create(out, 0644);
    ASSERT_TRUE(live.ok()) << live.error().message;
    struct stat st;
    ASSERT_EQ(::fstat(live->fd(), &st), 0);
    const fs::path named = AbandonedTempName(out, st.st_ino);
    const std::string proc = "/proc/self/fd/" + std::to_string(live->fd());
    ASSERT_EQ(::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW), 0);
    EXPECT_EQ(CleanAbandonedTemps(out), 0u) << "a live writer's file is locked: left alone";
    EXPECT_TRUE(fs::exists(named));
  }  // the writer is gone: its lock is released
  EXPECT_EQ(CleanAbandonedTemps(out), 1u);
  EXPECT_EQ(FolderNames(dir.path()),
            (std::vector<std::string>{".out.pte.pteshare-tmp-1", "out.pte.pteshare-tmp"}));
}

TEST(PendingFile, PublishCreatesANewNameOrReplacesAtomically) {
  TempDir dir;
  const fs::path out = dir / "f";
  {
    Result<PendingFile> file = PendingFile::Create(out, 0640);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(WriteAt(file->fd(), 0, std::vector<uint8_t>{'n', 'e', 'w'}).ok());
    EXPECT_EQ(FolderNames(dir.path()), std::vector<std::string>{}) << "no name before Publish";
    ASSERT_TRUE(file->Publish(/*replace=*/false).ok());
  }
  EXPECT_EQ(ReadFileBytes(out), "new");
  Result<PendingFile> again = PendingFile::Create(out, 0640);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->Publish(/*replace=*/false).ok()) << "a new name must not exist yet";
  ASSERT_TRUE(WriteAt(again->fd(), 0, std::vector<uint8_t>{'2'}).ok());
  ASSERT_TRUE(again->Publish(/*replace=*/true).ok());
  EXPECT_EQ(ReadFileBytes(out), "2");
  EXPECT_EQ(FolderNames(dir.path()), std::vector<std::string>{"f"});
}

}  // namespace
}  // namespace pteshare
