// The rollback journal: its encoding, the check that a journal belongs to
// the file beside it (per byte, so a torn range still counts), rollback,
// and recovery as every command runs it (stale journals refused).
#include "rewriter/journal.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include "rewriter/file_io.h"
#include "tests/filesystem_fixtures.h"
#include "tests/rewrite_fixtures.h"

namespace pteshare {
namespace {

using namespace pteshare::testing;
namespace fs = std::filesystem;

Journal SampleJournal() {
  Journal j;
  j.old_file_size = 8;
  j.new_file_size = 12;
  j.ranges.push_back({2, {'c', 'd'}, {'C', 'D'}});
  j.ranges.push_back({6, {'g', 'h'}, {'G', 'H', 'I', 'J', 'K', 'L'}});  // grows the file
  return j;
}

UniqueFd OpenRw(const fs::path& path) {
  Result<UniqueFd> fd = OpenFd(path, O_RDWR);
  EXPECT_TRUE(fd.ok());
  return fd.ok() ? std::move(fd).value() : UniqueFd();
}

TEST(Journal, EncodingRoundTrips) {
  Journal j = SampleJournal();
  Result<Journal> back = DecodeJournal(EncodeJournal(j));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->old_file_size, 8u);
  EXPECT_EQ(back->new_file_size, 12u);
  ASSERT_EQ(back->ranges.size(), 2u);
  EXPECT_EQ(back->ranges[1].new_bytes.size(), 6u);
  EXPECT_EQ(back->ranges[1].old_bytes, (std::vector<uint8_t>{'g', 'h'}));
}

TEST(Journal, CorruptEncodingIsRefused) {
  std::vector<uint8_t> bytes = EncodeJournal(SampleJournal());
  bytes[30] ^= 1;
  Result<Journal> back = DecodeJournal(bytes);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("checksum"), std::string::npos) << back.error().message;
  EXPECT_FALSE(DecodeJournal(std::vector<uint8_t>(20, 0)).ok());
}

TEST(Journal, BelongsWhenEveryByteIsOldOrNewEvenTorn) {
  TempDir dir;
  WriteFileBytes(dir / "f", "abcdefgh");
  UniqueFd fd = OpenRw(dir / "f");
  EXPECT_TRUE(CheckJournalBelongs(fd.get(), SampleJournal()).ok());
  WriteFileBytes(dir / "g", "abCdefgh");  // range 0 torn: one byte new, one old
  UniqueFd torn = OpenRw(dir / "g");
  EXPECT_TRUE(CheckJournalBelongs(torn.get(), SampleJournal()).ok());
}

TEST(Journal, ForeignBytesOrSizeMeanItBelongsToAnotherFile) {
  TempDir dir;
  WriteFileBytes(dir / "f", "abXdefgh");
  UniqueFd fd = OpenRw(dir / "f");
  Status s = CheckJournalBelongs(fd.get(), SampleJournal());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "journal range 0 (2 bytes at offset 2) matches neither its recorded old nor new "
            "bytes at offset 2");
  WriteFileBytes(dir / "g", "abcdefghi");
  UniqueFd sized = OpenRw(dir / "g");
  Status wrong_size = CheckJournalBelongs(sized.get(), SampleJournal());
  ASSERT_FALSE(wrong_size.ok());
  EXPECT_EQ(wrong_size.error().message,
            "the file is 9 bytes but the journal was written for a file of 8 bytes (12 after the "
            "rewrite)");
}

TEST(Journal, RollBackRestoresBytesAndSize) {
  TempDir dir;
  WriteFileBytes(dir / "f", "abCDefGHIJKL");  // fully new
  UniqueFd fd = OpenRw(dir / "f");
  ASSERT_TRUE(CheckJournalBelongs(fd.get(), SampleJournal()).ok());
  ASSERT_TRUE(RollBack(fd.get(), SampleJournal()).ok());
  EXPECT_EQ(ReadFileBytes(dir / "f"), "abcdefgh");
}

TEST(Journal, RecoveryRollsBackThenLeavesNothingBehind) {
  TempDir dir;
  const fs::path file = dir / "f";
  WriteFileBytes(file, "abCdefGHIJKL");
  ASSERT_TRUE(WriteJournalDurably(file, SampleJournal()).ok());
  WriteFileBytes(InPlaceTempPath(file), "leftover");
  Result<Recovery> r = RecoverInterruptedRewrite(file);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, Recovery::kRolledBack);
  EXPECT_EQ(ReadFileBytes(file), "abcdefgh");
  EXPECT_FALSE(fs::exists(JournalPath(file)));
  EXPECT_FALSE(fs::exists(InPlaceTempPath(file)));
  Result<Recovery> again = RecoverInterruptedRewrite(file);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, Recovery::kNothingToDo);
}

// A journal made by an interrupted rewrite of one program, found beside
// another program: every command refuses it (exit 2) and changes nothing.
TEST(Journal, StaleJournalFromAnotherFileIsRefusedNotApplied) {
  TempDir dir;
  const fs::path a = dir / "a.pte", other = dir / "b.pte";
  b::BuildOptions in_slack;
  in_slack.segment_alignment = 4096;  // no segment move: the journal path
  WriteBytes(a, Build(SharedCacheSpec(), in_slack));
  WriteBytes(other, Build(SharedCacheSpec(kFiveGiB)));
  ::setenv("PTESHARE_TEST_CRASH_AT", "after-journal", 1);
  CommandOutput crashed =
      RunTool("pteshare", {"rewrite", a.string(), "--in-place", "--share", kCacheName});
  ::unsetenv("PTESHARE_TEST_CRASH_AT");
  ASSERT_EQ(crashed.exit_status, 99) << crashed.err;
  ASSERT_TRUE(fs::exists(JournalPath(a)));
  fs::rename(JournalPath(a), JournalPath(other));

  const std::string before = ReadFileBytes(other);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"inspect", other.string()},
        std::vector<std::string>{"rewrite", other.string(), "--in-place", "--share", kCacheName}}) {
    CommandOutput out = RunTool("pteshare", args);
    EXPECT_EQ(out.exit_status, 2) << out.err;
    EXPECT_EQ(out.err.find("pteshare: " + other.string() + ": stale journal "), 0u) << out.err;
    EXPECT_NE(out.err.find("does not belong to this file"), std::string::npos) << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
    EXPECT_EQ(ReadFileBytes(other), before);
    EXPECT_TRUE(fs::exists(JournalPath(other)));
  }
}

// A 12 KiB file whose bytes say where they came from; a journal that opens a
// 4096-byte gap at 4096 and writes one range across it.
std::string Numbered(size_t n) {
  std::string bytes(n, 0);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>('a' + (i / 512) % 26);
  return bytes;
}

Result<Journal> GapJournal(int fd) {
  Journal j;
  j.old_file_size = 12288;
  j.new_file_size = 16384;
  j.gap = FileGap{4096, 4096};
  JournalRange r;
  r.offset = 4000;
  r.new_bytes.assign(4200, 'N');  // [4000, 8200): across the gap's start and end
  r.old_bytes.resize(4200);
  Status read = ReadAsIfOpen(fd, *j.gap, r.offset, r.old_bytes);
  if (!read.ok()) return read.error();
  j.ranges.push_back(std::move(r));
  return j;
}

TEST(Journal, GapRoundTripsAndAJournalWithoutOneKeepsTheOldEncoding) {
  TempDir dir;
  WriteFileBytes(dir / "f", Numbered(12288));
  UniqueFd fd = OpenRw(dir / "f");
  Result<Journal> j = GapJournal(fd.get());
  ASSERT_TRUE(j.ok()) << j.error().message;
  std::vector<uint8_t> bytes = EncodeJournal(*j);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "PTESHJ02");
  Result<Journal> back = DecodeJournal(bytes);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->gap, j->gap);
  EXPECT_EQ(back->ranges[0].old_bytes, j->ranges[0].old_bytes);
  std::vector<uint8_t> plain = EncodeJournal(SampleJournal());
  EXPECT_EQ(std::string(plain.begin(), plain.begin() + 8), "PTESHJ01");
  EXPECT_FALSE(DecodeJournal(plain)->gap.has_value());
}

// Each state an interrupted insert can leave: not opened yet, opened,
// opened and partly written, closed again with bytes below it still new (a
// rollback cut short); each belongs, and rollback gives the input
// (closing the gap with COLLAPSE_RANGE). Bytes that are neither are refused.
TEST(Journal, EveryStateOfAnInsertRollsBackToTheInput) {
  TempDir dir;
  if (!CanInsertRange(dir.path())) GTEST_SKIP() << dir.path() << " cannot insert a range";
  const std::string input = Numbered(12288);
  for (int state = 0; state < 4; ++state) {
    SCOPED_TRACE(state);
    WriteFileBytes(dir / "f", input);
    UniqueFd fd = OpenRw(dir / "f");
    Result<Journal> j = GapJournal(fd.get());
    ASSERT_TRUE(j.ok());
    if (state == 3) {  // gap not open, but the part of the range below it written
      const std::vector<uint8_t> below(j->ranges[0].new_bytes.begin(),
                                       j->ranges[0].new_bytes.begin() + 96);
      ASSERT_TRUE(WriteAt(fd.get(), 4000, below).ok());
    }
    if (state == 1 || state == 2) {
      Result<GapOpened> opened = OpenGap(fd.get(), *j->gap, 12288);
      ASSERT_TRUE(opened.ok() && *opened == GapOpened::kInserted);
    }
    if (state == 2) {  // torn: the first 100 bytes of the range written
      const std::vector<uint8_t> part(j->ranges[0].new_bytes.begin(),
                                      j->ranges[0].new_bytes.begin() + 100);
      ASSERT_TRUE(WriteAt(fd.get(), 4000, part).ok());
    }
    ASSERT_TRUE(CheckJournalBelongs(fd.get(), *j).ok())
        << CheckJournalBelongs(fd.get(), *j).error().message;
    ASSERT_TRUE(RollBack(fd.get(), *j).ok()) << RollBack(fd.get(), *j).error().message;
    EXPECT_EQ(ReadFileBytes(dir / "f"), input);
  }
  WriteFileBytes(dir / "f", input);
  UniqueFd fd = OpenRw(dir / "f");
  Result<Journal> j = GapJournal(fd.get());
  ASSERT_TRUE(j.ok());
  const std::vector<uint8_t> foreign(1, 'Z');
  ASSERT_TRUE(WriteAt(fd.get(), 9000, foreign).ok());
  EXPECT_TRUE(CheckJournalBelongs(fd.get(), *j).ok()) << "9000 lies past every range";
  // Before the gap opens, range bytes past it are read 4096 lower: 8100
  // of the range is 4004 now.
  ASSERT_TRUE(WriteAt(fd.get(), 4004, foreign).ok());
  EXPECT_FALSE(CheckJournalBelongs(fd.get(), *j).ok());
}

}  // namespace
}  // namespace pteshare
