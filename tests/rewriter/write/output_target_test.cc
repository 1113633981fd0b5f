// Where `-o` may write (output_target.h): only a regular file or a new name.
// A device, FIFO, socket or /dev/stdout is refused with exit 2 and left as
// it was (F3: as root, `-o null` on a copy of /dev/null replaced the node);
// a folder means FOLDER/BASENAME for one input as for several (F13); a
// replaced file keeps its owner, group and mode with set-id bits cleared
// (F2); a file with several names is not split from them.
#include "rewriter/write/output_target.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "tests/rewrite_fixtures.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

fs::path Input(const TempDir& dir) {
  const fs::path in = dir / "in.pte";
  b::BuildOptions options;
  options.segment_alignment = 4096;
  WriteBytes(in, Build(SharedCacheSpec(), options));
  return in;
}

CommandOutput RewriteTo(const fs::path& in, const std::string& out) {
  return RunTool("pteshare", {"rewrite", in.string(), "--share", kCacheName, "-o", out});
}

void ExpectRefused(const CommandOutput& out, const std::string& what) {
  EXPECT_EQ(out.exit_status, 2) << out.err;
  EXPECT_NE(out.err.find(what), std::string::npos) << out.err;
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  EXPECT_EQ(out.out, "");
}

TEST(OutputTarget, DeviceNodeIsRefusedAndLeftAsItWas) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod of a character device needs root: skipped";
  TempDir dir;
  const fs::path null = dir / "null";
  ASSERT_EQ(::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  ExpectRefused(RewriteTo(Input(dir), null.string()), "is a character device");
  struct stat st;
  ASSERT_EQ(::lstat(null.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device node must still be there";
}

TEST(OutputTarget, FifoSocketAndDescriptorNamesAreRefused) {
  TempDir dir;
  const fs::path in = Input(dir);
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  ExpectRefused(RewriteTo(in, fifo.string()), "is a FIFO");
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));

  const fs::path sock = dir / "sock";
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, sock.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ExpectRefused(RewriteTo(in, sock.string()), "is a socket");
  ::close(fd);

  // Whatever stdout is (here a regular file the test reads), /dev/stdout is a
  // descriptor, not a name the user gave: refused, and stdout is not replaced.
  ExpectRefused(RewriteTo(in, "/dev/stdout"), "names an open descriptor");
  // A link to a FIFO is refused like the FIFO.
  fs::create_symlink(fifo, dir / "link");
  ExpectRefused(RewriteTo(in, (dir / "link").string()), "is a symbolic link to a FIFO");
}

TEST(OutputTarget, AFolderMeansFolderSlashBasenameForOneInput) {
  TempDir dir;
  const fs::path in = Input(dir);
  fs::create_directory(dir / "out");
  for (const std::string& out : {(dir / "out").string() + "/", (dir / "out").string()}) {
    SCOPED_TRACE(out);
    fs::remove(dir / "out" / "in.pte");
    CommandOutput written = RewriteTo(in, out);
    ASSERT_EQ(written.exit_status, 0) << written.err;
    EXPECT_TRUE(fs::is_regular_file(dir / "out" / "in.pte"));
    EXPECT_NE(written.out.find(" -> " + (dir / "out" / "in.pte").string() + ": "),
              std::string::npos)
        << written.out;
  }
  // A folder named with a trailing '/' is made, as for several inputs.
  ASSERT_EQ(RewriteTo(in, (dir / "new").string() + "/").exit_status, 0);
  EXPECT_TRUE(fs::is_regular_file(dir / "new" / "in.pte"));
}

TEST(OutputTarget, ReplacedFileKeepsOwnerGroupAndModeWithoutSetIdBits) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a file another owner needs root: skipped";
  TempDir dir;
  const fs::path in = Input(dir);
  const fs::path out = dir / "out.pte";
  WriteFileBytes(out, "old contents");
  ASSERT_EQ(::chown(out.c_str(), 1234, 5678), 0);
  ASSERT_EQ(::chmod(out.c_str(), 06751), 0);
  CommandOutput written = RewriteTo(in, out.string());
  ASSERT_EQ(written.exit_status, 0) << written.err;
  struct stat st;
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 1234u);
  EXPECT_EQ(st.st_gid, 5678u);
  EXPECT_EQ(st.st_mode & 07777, 0751u) << "set-id bits cleared, the rest kept";
}

TEST(OutputTarget, NewFileGetsTheInputsModeWithoutSetIdBits) {
  TempDir dir;
  const fs::path in = Input(dir);
  ASSERT_EQ(::chmod(in.c_str(), 04640), 0);
  ASSERT_EQ(RewriteTo(in, (dir / "new.pte").string()).exit_status, 0);
  struct stat st;
  ASSERT_EQ(::stat((dir / "new.pte").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

TEST(OutputTarget, FileWithSeveralNamesIsNotReplaced) {
  TempDir dir;
  const fs::path in = Input(dir);
  WriteFileBytes(dir / "out.pte", "old contents");
  fs::create_hard_link(dir / "out.pte", dir / "other-name.pte");
  ExpectRefused(RewriteTo(in, (dir / "out.pte").string()), "has 2 names (hard links)");
  EXPECT_EQ(ReadFileBytes(dir / "out.pte"), "old contents");
  EXPECT_EQ(fs::hard_link_count(dir / "out.pte"), 2u);
}

TEST(OutputTarget, ALinkIsFollowedAndStaysALink) {
  TempDir dir;
  const fs::path in = Input(dir);
  WriteFileBytes(dir / "target.pte", "old contents");
  fs::create_symlink("target.pte", dir / "link.pte");
  CommandOutput written = RewriteTo(in, (dir / "link.pte").string());
  ASSERT_EQ(written.exit_status, 0) << written.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.pte"));
  EXPECT_NE(ReadFileBytes(dir / "target.pte"), "old contents");
  fs::create_symlink("nowhere.pte", dir / "dangling.pte");
  ExpectRefused(RewriteTo(in, (dir / "dangling.pte").string()),
                "is a symbolic link to a file that does not exist");
}

}  // namespace
}  // namespace pteshare
