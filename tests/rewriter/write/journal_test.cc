// The rollback journal: its encoding, the check that a journal belongs to
// the file beside it (per byte, so a torn range still counts), rollback,
// and recovery as every command runs it (stale journals refused).
#include "rewriter/write/journal.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include "rewriter/io/file_io.h"
#include "rewriter/open_program.h"
#include "rewriter/rewrite.h"
#include "tests/filesystem_fixtures.h"
#include "tests/rewrite_fixtures.h"
#include "tools/synth/synth_llm.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
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
  ASSERT_TRUE(WriteJournalDurably(file, SampleJournal(), 8).ok());
  // F10: a user's file that merely looks like an old pteshare temporary is
  // not ours to delete.
  WriteFileBytes(dir / "f.pteshare-tmp", "user data");
  Result<Recovery> r = RecoverInterruptedRewrite(file);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, Recovery::kRolledBack);
  EXPECT_EQ(ReadFileBytes(file), "abcdefgh");
  EXPECT_FALSE(fs::exists(JournalPath(file)));
  EXPECT_EQ(ReadFileBytes(dir / "f.pteshare-tmp"), "user data");
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

void ExpectOneLineRefusal(const CommandOutput& out, const std::string& file,
                          const std::string& what) {
  EXPECT_EQ(out.exit_status, 2) << out.err;
  EXPECT_EQ(out.err.find("pteshare: " + file + ": journal "), 0u) << out.err;
  EXPECT_NE(out.err.find(what), std::string::npos) << out.err;
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
}

// F4: a 100 GB journal made every command abort with std::bad_alloc (exit
// 134) or read it into memory. Only a journal no larger than the file's
// header allows is read.
TEST(Journal, OversizedJournalIsAOneLineErrorNotAnAbort) {
  TempDir dir;
  const fs::path file = dir / "m.pte";
  WriteBytes(file, Build(SharedCacheSpec()));
  WriteFileBytes(JournalPath(file), "");
  fs::resize_file(JournalPath(file), uint64_t{100} << 30);  // sparse
  // Refused from its size (the message says which), so none of it is read.
  CommandOutput out = RunTool("pteshare", {"inspect", file.string()});
  ExpectOneLineRefusal(out, file.string(), "is 107374182400 bytes, more than the ");
}

// F5: a FIFO named like the journal made every command hang.
TEST(Journal, FifoJournalIsRefusedWithoutBlocking) {
  TempDir dir;
  const fs::path file = dir / "m.pte";
  WriteBytes(file, Build(SharedCacheSpec()));
  ASSERT_EQ(::mkfifo(JournalPath(file).c_str(), 0644), 0);
  for (const char* command : {"inspect", "verify"}) {
    CommandOutput out = RunTool("pteshare", {command, file.string()});
    ExpectOneLineRefusal(out, file.string(), "is a FIFO, not a regular file");
  }
  fs::remove(JournalPath(file));
  fs::create_symlink(file, JournalPath(file));
  ExpectOneLineRefusal(RunTool("pteshare", {"inspect", file.string()}), file.string(),
                       "is a symbolic link");
}

// F11: a full disk while the journal was written left
// FILE.pteshare-journal.tmp behind. The journal now has no name until it is
// complete; a write that fails (here: past RLIMIT_FSIZE, as on a full disk)
// leaves no file at all.
TEST(Journal, FailedJournalWriteLeavesNoFile) {
  TempDir dir;
  const fs::path file = dir / "f";
  WriteFileBytes(file, "abcdefgh");
  Journal big = SampleJournal();
  big.ranges[1].new_bytes.resize(1 << 20, 'x');
  ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit old_limit;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  struct rlimit small = old_limit;
  small.rlim_cur = 64 << 10;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  Status written = WriteJournalDurably(file, big, uint64_t{1} << 20);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old_limit), 0);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("cannot write the journal"), std::string::npos)
      << written.error().message;
  EXPECT_EQ(FolderNames(dir.path()), std::vector<std::string>{"f"});
}

// F11 on a real full disk: a 64 KiB tmpfs.
TEST(Journal, FullDiskWhileWritingTheJournalLeavesNoFile) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root: skipped";
  TempDir dir;
  const fs::path mount_point = dir / "small";
  fs::create_directory(mount_point);
  const std::string target = mount_point.string();
  if (::mount("tmpfs", target.c_str(), "tmpfs", 0, "size=64k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << "): skipped";
  }
  const fs::path file = mount_point / "f";
  WriteFileBytes(file, "abcdefgh");
  Journal big = SampleJournal();
  big.ranges[1].new_bytes.resize(1 << 20, 'x');  // more than the disk holds
  Status written = WriteJournalDurably(file, big, uint64_t{1} << 20);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(mount_point)) names.push_back(e.path().filename());
  ::umount(target.c_str());
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("No space left on device"), std::string::npos)
      << written.error().message;
  EXPECT_EQ(names, std::vector<std::string>{"f"});
}

uint64_t FreeBlocks(const fs::path& folder) {
  struct statvfs fs_stat {};
  if (::statvfs(folder.c_str(), &fs_stat) != 0) return 0;
  return fs_stat.f_bavail * fs_stat.f_frsize / 4096;
}

// Fills the filesystem of `filler` with it until `leave` 4096-byte blocks
// are free (or as close as allocation allows); returns how many are.
uint64_t FillLeaving(const fs::path& filler, uint64_t leave) {
  const int fd = ::open(filler.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return FreeBlocks(filler.parent_path());
  off_t size = 0;
  // Each pass allocates what is still free above `leave`; extent blocks
  // take some of it, so a few passes get there.
  for (int pass = 0; pass < 8; ++pass) {
    const uint64_t free_now = FreeBlocks(filler.parent_path());
    if (free_now <= leave) break;
    off_t grow = static_cast<off_t>((free_now - leave) * 4096);
    while (grow > 0 && ::fallocate(fd, 0, size, grow) != 0) grow -= 4096;
    if (grow <= 0) break;
    size += grow;
  }
  ::fsync(fd);
  ::close(fd);
  return FreeBlocks(filler.parent_path());
}

// Issue 23: with free space about the size of the journal, the write into
// the gap failed with ENOSPC and so did the rollback, which wrote the gap's
// old bytes (zeros) into the same hole, leaving a file with the gap open.
// Now a rollback writes nothing into the gap and only bytes that differ,
// so on a small ext4, with 0, 1, 2, ... free blocks, every rewrite whose
// segments move either gives the result or leaves the input byte for byte
// with no journal, readable at once.
TEST(Journal, AFullDiskAtAnyStepLeavesTheInputOrTheResult) {
  LoopMount disk(LoopFs::kExt4, uint64_t{16} << 20);
  if (!disk.mounted()) GTEST_SKIP() << "no small ext4 to fill (" << disk.why_not() << "): skipped";
  if (!CanInsertRange(disk.path())) GTEST_SKIP() << "this ext4 cannot insert a range: skipped";
  const std::vector<uint8_t> input = LlmThatOutgrowsItsPadding();
  ASSERT_FALSE(input.empty());
  RewriteRequest request;
  request.in_place = true;
  request.share.share_auto = true;
  Result<RewriteOutcome> expected = RewriteBytes(input, request.share, request.options);
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  const std::vector<uint8_t>& full = expected->bytes;
  ASSERT_GT(full.size(), input.size()) << "the segments must move for the gap to open";

  const fs::path file = disk / "m.pte";
  const fs::path filler = disk / "filler";
  request.input = file;
  int steps = 0, succeeded = 0, rolled_back = 0, refused_before = 0;
  for (uint64_t leave = 0; leave < 96 && succeeded < 3; ++leave) {
    fs::remove(file);
    fs::remove(filler);
    WriteBytes(file, input);
    const uint64_t free_blocks = FillLeaving(filler, leave);
    SCOPED_TRACE(std::to_string(free_blocks) + " free blocks");
    Result<RewriteOutcome> done = RewriteFile(request);
    ++steps;
    if (done.ok()) {
      ++succeeded;
      EXPECT_EQ(ReadBytes(file), full);
      continue;
    }
    const std::string& why = done.error().message;
    EXPECT_EQ(ReadBytes(file), input) << why;
    EXPECT_FALSE(fs::exists(JournalPath(file))) << why;
    Result<OpenedProgram> readable = OpenProgram(file);
    EXPECT_TRUE(readable.ok() && readable->notice.empty()) << why;
    (Contains(why, "the file was rolled back") ? rolled_back : refused_before)++;
  }
  std::printf(
      "full disk: %d steps, %d rolled back after the gap opened, %d refused before, %d "
      "succeeded\n",
      steps, rolled_back, refused_before, succeeded);
  EXPECT_GT(rolled_back, 0) << "no step ran out of space after the journal was written";
  EXPECT_GT(succeeded, 0);
}

// Runs `body` as user nobody in a child process; returns what it wrote.
std::string AsNobody(const std::function<std::string()>& body) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::string said = "cannot drop privileges";
    if (::setgid(65534) == 0 && ::setuid(65534) == 0) said = body();
    (void)!::write(pipe_fds[1], said.data(), said.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string said;
  char chunk[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], chunk, sizeof chunk)) > 0;) said.append(chunk, n);
  ::close(pipe_fds[0]);
  ::waitpid(child, nullptr, 0);
  return said;
}

std::string OpenAsReader(const fs::path& file) {
  Result<OpenedProgram> opened = OpenProgram(file);
  return opened.ok() ? "ok" + opened->notice : opened.error().message;
}

// F9: a reader without write permission was told "found an interrupted
// rewrite's journal" for a stray temporary file. Now temporaries are not
// journals (and not its business), and a real journal is described as one.
TEST(Journal, ReaderWithoutWritePermissionIsToldTheTruth) {
  if (::geteuid() != 0) GTEST_SKIP() << "switching to user nobody needs root: skipped";
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  const fs::path file = dir / "m.pte";
  WriteBytes(file, Build(SharedCacheSpec()));
  WriteFileBytes(dir / "m.pte.pteshare-tmp", "stray");
  WriteFileBytes(dir / "m.pte.pteshare-journal.tmp", "stray");
  WriteFileBytes(dir / ".m.pte.pteshare-tmp-12", "stray");
  EXPECT_EQ(AsNobody([&] { return OpenAsReader(file); }), "ok");
  // F10: and no command deletes them (they are not ours), not even root's.
  CommandOutput inspect = RunTool("pteshare", {"inspect", file.string()});
  EXPECT_EQ(inspect.exit_status, 0) << inspect.err;
  for (const char* stray :
       {"m.pte.pteshare-tmp", "m.pte.pteshare-journal.tmp", ".m.pte.pteshare-tmp-12"}) {
    EXPECT_EQ(ReadFileBytes(dir / stray), "stray") << stray;
  }

  TempDir crashed_dir;
  fs::permissions(crashed_dir.path(),
                  fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  const fs::path crashed = CrashedAfterJournal(crashed_dir);
  const std::string said = AsNobody([&] { return OpenAsReader(crashed); });
  EXPECT_NE(said.find("holds an interrupted rewrite that must be rolled back before the file can "
                      "be read, but this user may not write the file (Permission denied)"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("Permission denied"), std::string::npos) << said;
  EXPECT_TRUE(fs::exists(JournalPath(crashed)));
  Result<OpenedProgram> as_root = OpenProgram(crashed);  // and the owner recovers it
  ASSERT_TRUE(as_root.ok()) << as_root.error().message;
  EXPECT_NE(as_root->notice.find("rolled back"), std::string::npos);
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
