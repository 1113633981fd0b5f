// Gaps inside a file (insert_range.h) on real files: OpenGap shifts what
// follows up and leaves zeros where the filesystem can insert a range (ext4,
// XFS), says kUnsupported and changes nothing where it cannot (a tmpfs),
// grows the file for a gap at its end on any filesystem; CloseGap undoes
// each; ReadAsIfOpen reads what opening would give without opening; other
// errors come back naming the gap. The writer's use of them is tested end
// to end in writer_test.cc and journal_test.cc.
#include "rewriter/write/insert_range.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include "rewriter/io/file_io.h"
#include "tests/filesystem_fixtures.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

constexpr uint64_t kFileSize = 3 * kGapUnit;

// Bytes that say where they came from, so a shift shows.
std::string Numbered(size_t n) {
  std::string bytes(n, 0);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>(i * 7 + i / 4096);
  return bytes;
}

// `bytes` with `gap.length` zeros inserted at `gap.offset` (past the end:
// zeros up to it).
std::string WithGap(std::string bytes, const FileGap& gap) {
  if (bytes.size() < gap.offset) bytes.resize(gap.offset, '\0');
  bytes.insert(gap.offset, std::string(gap.length, '\0'));
  return bytes;
}

UniqueFd Open(const fs::path& path, int flags = O_RDWR) {
  Result<UniqueFd> fd = OpenFd(path, flags);
  EXPECT_TRUE(fd.ok()) << fd.error().message;
  return fd.ok() ? std::move(fd).value() : UniqueFd();
}

TEST(InsertRange, AGapInsideShiftsWhatFollowsAndCloseGapTakesItOut) {
  TempDir dir;
  if (!CanInsertRange(dir.path())) {
    GTEST_SKIP() << dir.path() << ": this filesystem cannot insert a range: skipped";
  }
  const std::string input = Numbered(kFileSize);
  for (const FileGap gap : {FileGap{0, kGapUnit}, FileGap{kGapUnit, 2 * kGapUnit}}) {
    SCOPED_TRACE(gap.offset);
    WriteFileBytes(dir / "f", input);
    UniqueFd fd = Open(dir / "f");
    Result<GapOpened> opened = OpenGap(fd.get(), gap, kFileSize);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    EXPECT_EQ(*opened, GapOpened::kInserted);
    EXPECT_EQ(ReadFileBytes(dir / "f"), WithGap(input, gap));
    ASSERT_TRUE(CloseGap(fd.get(), gap, kFileSize).ok());
    EXPECT_EQ(ReadFileBytes(dir / "f"), input);
  }
}

TEST(InsertRange, WhereTheFilesystemCannotInsertNothingChanges) {
  TmpfsMount tmpfs;
  if (!tmpfs.mounted())
    GTEST_SKIP() << "mounting a tmpfs failed (" << tmpfs.why_not() << "): skipped";
  if (CanInsertRange(tmpfs.path())) GTEST_SKIP() << "this kernel's tmpfs inserts ranges: skipped";
  const std::string input = Numbered(kFileSize);
  WriteFileBytes(tmpfs / "f", input);
  UniqueFd fd = Open(tmpfs / "f");
  Result<GapOpened> opened = OpenGap(fd.get(), FileGap{kGapUnit, kGapUnit}, kFileSize);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(*opened, GapOpened::kUnsupported);
  EXPECT_EQ(ReadFileBytes(tmpfs / "f"), input);
}

// At or past the end nothing has to move: any filesystem grows the file,
// and closing truncates it back.
TEST(InsertRange, AGapAtTheEndGrowsTheFileOnAnyFilesystem) {
  TmpfsMount tmpfs;
  TempDir dir;
  const fs::path folder = tmpfs.mounted() ? tmpfs.path() : dir.path();
  const std::string input = Numbered(kFileSize);
  for (const FileGap gap :
       {FileGap{kFileSize, kGapUnit}, FileGap{kFileSize + kGapUnit, kGapUnit}}) {
    SCOPED_TRACE(gap.offset);
    WriteFileBytes(folder / "f", input);
    UniqueFd fd = Open(folder / "f");
    Result<GapOpened> opened = OpenGap(fd.get(), gap, kFileSize);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    EXPECT_EQ(*opened, GapOpened::kInserted);
    EXPECT_EQ(ReadFileBytes(folder / "f"), WithGap(input, gap));
    ASSERT_TRUE(CloseGap(fd.get(), gap, kFileSize).ok());
    EXPECT_EQ(ReadFileBytes(folder / "f"), input);
  }
}

// Below, across and inside the gap, and above it: the bytes the file will
// hold once the gap is open, read from the file without it.
TEST(InsertRange, ReadAsIfOpenGivesTheBytesOfTheFileWithTheGapOpen) {
  TempDir dir;
  const std::string input = Numbered(kFileSize);
  WriteFileBytes(dir / "f", input);
  UniqueFd fd = Open(dir / "f", O_RDONLY);
  const FileGap gap{kGapUnit, kGapUnit};
  const std::string opened = WithGap(input, gap);
  struct Span {
    uint64_t offset, size;
  };
  for (const Span s : {Span{0, 100}, Span{4000, 200}, Span{4096, 4096}, Span{5000, 100},
                       Span{4000, 4200}, Span{8100, 200}, Span{9000, 3000}, Span{0, 16384}}) {
    SCOPED_TRACE(std::to_string(s.offset) + "+" + std::to_string(s.size));
    std::vector<uint8_t> bytes(s.size, 0xEE);
    ASSERT_TRUE(ReadAsIfOpen(fd.get(), gap, s.offset, bytes).ok());
    EXPECT_EQ(std::string(bytes.begin(), bytes.end()), opened.substr(s.offset, s.size));
  }
  EXPECT_EQ(ReadFileBytes(dir / "f"), input) << "the file itself is not touched";
  // Past what the file will hold: an error, as a short read is.
  std::vector<uint8_t> past(100);
  Status read = ReadAsIfOpen(fd.get(), gap, 16384 - 50, past);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("end of the file"), std::string::npos)
      << read.error().message;
}

TEST(InsertRange, OtherErrorsComeBackNamingTheGap) {
  TempDir dir;
  WriteFileBytes(dir / "f", Numbered(kFileSize));
  UniqueFd read_only = Open(dir / "f", O_RDONLY);  // fallocate: EBADF
  const FileGap gap{kGapUnit, kGapUnit};
  Result<GapOpened> opened = OpenGap(read_only.get(), gap, kFileSize);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.error().message.find("inserting 4,096 bytes at offset 4,096 failed"),
            std::string::npos)
      << opened.error().message;
  Status closed = CloseGap(read_only.get(), gap, kFileSize);
  ASSERT_FALSE(closed.ok());
  EXPECT_NE(closed.error().message.find("removing the inserted 4,096 bytes at offset 4,096 failed"),
            std::string::npos)
      << closed.error().message;
  EXPECT_EQ(ReadFileBytes(dir / "f"), Numbered(kFileSize));
}

}  // namespace
}  // namespace pteshare
