// WriteNewFile (new_file.h) with content of the test's own, as plot -o and
// the bundle writer use it: the new file filled, checked, then linked as a
// new name (with the given or the source's permission bits) or renamed over
// a file (keeping its mode); a refused target, a failed fill or check, and
// a target that changes meanwhile leave the folder as it was, each with its
// words. output_target_test.cc and pending_file_test.cc test the two steps
// underneath through the CLI.
#include "rewriter/write/new_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "rewriter/io/file_io.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

const std::string kContent = "a picture, say";

// Steps that write kContent and check it reads back; what they were told
// and whether each ran is kept.
struct Recorded {
  std::vector<std::string> said;
  bool filled = false, checked = false;
  NewFileSteps steps;

  Recorded() {
    steps.fill = [this](int fd) {
      filled = true;
      return WriteAt(fd, 0,
                     std::span(reinterpret_cast<const uint8_t*>(kContent.data()), kContent.size()));
    };
    steps.check = [this](int fd) -> Status {
      checked = true;
      std::vector<uint8_t> back(kContent.size());
      Status read = ReadAt(fd, 0, back);
      if (!read.ok()) return read;
      if (std::string(back.begin(), back.end()) != kContent) return Error{"wrong bytes"};
      return Status::Ok();
    };
    steps.say = [this](const std::string& line) { said.push_back(line); };
  }
};

unsigned ModeOf(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(NewFile, ANewNameIsFilledCheckedAndLinkedWithTheGivenMode) {
  TempDir dir;
  const fs::path out = dir / "out.svg";
  Recorded r;
  Status written = WriteNewFileWithMode(out, 0640, r.steps);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_TRUE(r.filled && r.checked);
  EXPECT_EQ(ReadFileBytes(out), kContent);
  EXPECT_EQ(ModeOf(out), 0640u);
  EXPECT_EQ(FolderNames(dir.path()), std::vector<std::string>{"out.svg"});
  EXPECT_EQ(r.said, (std::vector<std::string>{"writing a new file for " + out.string(),
                                              "created " + out.string()}));
}

TEST(NewFile, AReplacedFileKeepsItsModeAndIsRenamedOver) {
  TempDir dir;
  const fs::path out = dir / "out.svg";
  WriteFileBytes(out, "old");
  ASSERT_EQ(::chmod(out.c_str(), 0604), 0);
  struct stat before {};
  ASSERT_EQ(::stat(out.c_str(), &before), 0);
  Recorded r;
  Status written = WriteNewFileWithMode(out, 0640, r.steps);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(ReadFileBytes(out), kContent);
  EXPECT_EQ(ModeOf(out), 0604u) << "the replaced file's mode, not the new name's";
  struct stat after {};
  ASSERT_EQ(::stat(out.c_str(), &after), 0);
  EXPECT_NE(after.st_ino, before.st_ino) << "a new file renamed over the old one";
  EXPECT_EQ(FolderNames(dir.path()), std::vector<std::string>{"out.svg"});
  EXPECT_EQ(r.said.back(), "replaced " + out.string());
}

TEST(NewFile, ANewNameGetsTheSourcesPermissionBitsWithoutSetId) {
  TempDir dir;
  WriteFileBytes(dir / "in.pte", "input");
  ASSERT_EQ(::chmod((dir / "in.pte").c_str(), 06751), 0);
  Result<UniqueFd> source = OpenFd(dir / "in.pte", O_RDONLY);
  ASSERT_TRUE(source.ok()) << source.error().message;
  Recorded r;
  Status written = WriteNewFile(dir / "out.pte", source->get(), r.steps);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(ModeOf(dir / "out.pte"), 0751u);
}

TEST(NewFile, AFailedFillOrCheckLeavesTheFolderAsItWas) {
  TempDir dir;
  const fs::path out = dir / "out.svg";
  WriteFileBytes(out, "old");
  {
    Recorded r;
    r.steps.fill = [](int) -> Status { return Error{"the disk said no"}; };
    Status written = WriteNewFileWithMode(out, 0644, r.steps);
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().message, "writing the new file failed: the disk said no");
    EXPECT_FALSE(r.checked) << "nothing to check after a failed fill";
  }
  {
    Recorded r;
    r.steps.check = [](int) -> Status { return Error{"wrong bytes at 12"}; };
    Status written = WriteNewFileWithMode(out, 0644, r.steps);
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().message, "refusing to finish: wrong bytes at 12");
  }
  EXPECT_EQ(ReadFileBytes(out), "old");
  EXPECT_EQ(FolderNames(dir.path()), std::vector<std::string>{"out.svg"});
}

TEST(NewFile, ATargetThatIsNoRegularFileIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  Recorded r;
  Status written = WriteNewFileWithMode(fifo, 0644, r.steps);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message.rfind("refusing to write " + fifo.string() + ": it ", 0), 0u)
      << written.error().message;
  EXPECT_NE(written.error().message.find("FIFO"), std::string::npos) << written.error().message;
  EXPECT_FALSE(r.filled);
  EXPECT_EQ(FolderNames(dir.path()), std::vector<std::string>{"fifo"});
}

// OUT was a new name when inspected; someone creates it while the new
// file is checked: theirs stays and nothing of ours is left.
TEST(NewFile, ATargetThatAppearsWhileTheFileIsBuiltIsLeftToItsWriter) {
  TempDir dir;
  const fs::path out = dir / "out.svg";
  Recorded r;
  r.steps.check = [&](int) -> Status {
    WriteFileBytes(out, "someone else's");
    return Status::Ok();
  };
  Status written = WriteNewFileWithMode(out, 0644, r.steps);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("it changed while the new file was built"),
            std::string::npos)
      << written.error().message;
  EXPECT_EQ(ReadFileBytes(out), "someone else's");
  EXPECT_EQ(FolderNames(dir.path()), std::vector<std::string>{"out.svg"});
}

TEST(NewFile, TheDefaultModeIsReadAndWriteLessTheUmask) {
  const mode_t old = ::umask(027);
  const unsigned with_027 = DefaultNewFileMode();
  ::umask(0);
  const unsigned with_none = DefaultNewFileMode();
  ::umask(old);
  EXPECT_EQ(with_027, 0640u);
  EXPECT_EQ(with_none, 0666u);
  EXPECT_EQ(DefaultNewFileMode(), 0666u & ~static_cast<unsigned>(old)) << "read, not changed";
}

}  // namespace
}  // namespace pteshare
