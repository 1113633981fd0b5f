// Writer: -o and --in-place give the same bytes on every path (in place,
// appended within the slack, segment move, no extended header, 64-bit
// offsets), and so does --in-place by copy on a filesystem that cannot
// insert a range; nothing is left behind; a crash at any step (the insert
// ones included) is recovered by the next run to either the input or the
// full result; two writers on one file do not interleave.
#include "rewriter/write/writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <optional>
#include <set>
#include <thread>

#include "rewriter/io/crash_points.h"
#include "rewriter/io/file_io.h"
#include "rewriter/open_program.h"
#include "rewriter/plan/planner.h"
#include "rewriter/write/gap_writes.h"
#include "rewriter/write/journal.h"
#include "rewriter/write/write_runs.h"
#include "tests/filesystem_fixtures.h"
#include "tests/rewrite_fixtures.h"
#include "tools/synth/synth_llm.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

struct Case {
  const char* name;
  b::ProgramSpec spec;
  b::BuildOptions options;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  b::BuildOptions complete, in_slack, no_slack, no_header;
  complete.force_defaults = true;
  in_slack.segment_alignment = 4096;
  no_slack.segment_alignment = 4;
  no_header.extended_header = false;
  cases.push_back({"in-place fields", SharedCacheSpec(), complete});
  cases.push_back({"appended within slack", SharedCacheSpec(), in_slack});
  cases.push_back({"segment move", SharedCacheSpec(), no_slack});
  cases.push_back({"no extended header", SharedCacheSpec(0, false), no_header});
  cases.push_back({"64-bit offsets", SharedCacheSpec(kFiveGiB), in_slack});
  return cases;
}

// A built program written as in.pte (for -o) and ip.pte (in place), read,
// planned to share its cache, and patched.
struct PatchedInput {
  std::vector<uint8_t> input;
  ReadProgram program;
  Plan plan;
  Result<PatchSet> patch = Error{"not patched"};
};

void PatchInput(const TempDir& dir, const b::ProgramSpec& spec, const b::BuildOptions& options,
                PatchedInput& out) {
  out.input = Build(spec, options);
  WriteBytes(dir / "in.pte", out.input);
  WriteBytes(dir / "ip.pte", out.input);
  out.program = Read(out.input);
  out.plan = PlanSharing(out.program.view);
  out.patch = MakePatchSet(out.input, out.program.view, out.plan);
}

TEST(Writer, CopyAndInPlaceGiveIdenticalVerifiedBytesOnEveryPath) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    PatchedInput patched;
    PatchInput(dir, c.spec, c.options, patched);
    ASSERT_TRUE(patched.patch.ok()) << patched.patch.error().message;
    const std::vector<uint8_t>& input = patched.input;
    const ReadProgram& program = patched.program;
    const Plan& plan = patched.plan;
    const Result<PatchSet>& patch = patched.patch;

    Result<UniqueFd> source = OpenFd(dir / "in.pte", O_RDONLY);
    ASSERT_TRUE(source.ok());
    Status copied = WritePatchedCopy(source->get(), program.layout, *patch, plan, dir / "out.pte");
    ASSERT_TRUE(copied.ok()) << copied.error().message;
    {
      Result<WriterLock> lock = WriterLock::Acquire(dir / "ip.pte");
      ASSERT_TRUE(lock.ok()) << lock.error().message;
      Status in_place = WritePatchedInPlace(*lock, program.layout, *patch, plan);
      ASSERT_TRUE(in_place.ok()) << in_place.error().message;
    }
    const std::vector<uint8_t> out = ReadBytes(dir / "out.pte");
    EXPECT_EQ(out, ReadBytes(dir / "ip.pte"));
    EXPECT_EQ(out, ApplyPatch(input, *patch));
    EXPECT_EQ(ReadBytes(dir / "in.pte"), input) << "-o must not touch its input";
    ExpectSegmentsKept(input, out);
    EXPECT_EQ(FolderNames(dir.path()), (std::vector<std::string>{"in.pte", "ip.pte", "out.pte"}))
        << "no journal or temporary file may stay behind";
  }
}

const std::vector<std::string> kShareCache = {"--strategy", "relocate", "--share", kCacheName};
const std::vector<std::string> kShareAuto = {"--strategy", "relocate", "--share-auto"};

CommandOutput RewriteInPlace(const fs::path& file, const std::string& crash_at = "",
                             const std::vector<std::string>& share = kShareCache) {
  if (!crash_at.empty()) ::setenv("PTESHARE_TEST_CRASH_AT", crash_at.c_str(), 1);
  std::vector<std::string> args = {"rewrite", file.string(), "--in-place"};
  args.insert(args.end(), share.begin(), share.end());
  CommandOutput out = RunTool("pteshare", args);
  ::unsetenv("PTESHARE_TEST_CRASH_AT");
  return out;
}

// How many writes the writer makes of `writes` (write_runs.h), the unit
// the after-patch:K crash points count. Only offsets and sizes decide it.
size_t WriteRunCount(const std::vector<ByteOverwrite>& writes) {
  Result<std::vector<WriteRun>> runs =
      JoinIntoRuns(writes, [](uint64_t, std::span<uint8_t>) { return Status::Ok(); });
  EXPECT_TRUE(runs.ok());
  return runs.ok() ? runs->size() : 0;
}

uint64_t Inode(const fs::path& file) {
  struct stat st;
  EXPECT_EQ(::stat(file.c_str(), &st), 0) << file;
  return st.st_ino;
}

// Through a name its journal does not lie beside (a bind mount, another
// mount namespace), a file that is neither the input nor the result is no
// program to any command (its identifier says a rewrite did not finish),
// and a rewrite through that name changes nothing. The journal is moved
// aside to be out of reach, then put back.
void ExpectRefusedWithoutItsJournal(const fs::path& folder, const fs::path& file,
                                    const std::vector<uint8_t>& input,
                                    const std::vector<uint8_t>& full) {
  const std::vector<uint8_t> now = ReadBytes(file);
  if (now == input || now == full) return;
  const fs::path journal = file.string() + ".pteshare-journal";
  const fs::path aside = folder / "journal-out-of-reach";
  const bool has_journal = fs::exists(journal);
  if (has_journal) fs::rename(journal, aside);
  for (std::vector<std::string> args : {std::vector<std::string>{"inspect", file.string()},
                                        {"verify", file.string(), "--share-auto"},
                                        {"rewrite", file.string(), "--in-place", "--share-auto"}}) {
    SCOPED_TRACE(args.front());
    CommandOutput out = RunTool("pteshare", args);
    EXPECT_EQ(out.exit_status, 2) << out.out << out.err;
    EXPECT_TRUE(Contains(out.err, "rewrite in place of this file is running or did not finish"))
        << out.err;
  }
  EXPECT_EQ(ReadBytes(file), now) << "nothing may touch a file that says it is being rewritten";
  if (has_journal) fs::rename(aside, journal);
}

// Crashes the in-place rewrite of a copy of `input` in `folder` at
// `crash_at`, then checks the file is the input or the full result, that
// the next command recovers it to the input, and that a re-run gives the
// full result.
void CrashAndRecoverIn(const fs::path& folder, const std::vector<uint8_t>& input,
                       const std::vector<uint8_t>& full, const std::string& crash_at,
                       const std::vector<std::string>& share = kShareCache) {
  SCOPED_TRACE(crash_at);
  const fs::path file = folder / "m.pte";
  WriteBytes(file, input);
  CommandOutput crashed = RewriteInPlace(file, crash_at, share);
  ASSERT_EQ(crashed.exit_status, kTestCrashExitStatus) << crashed.err;
  ExpectRefusedWithoutItsJournal(folder, file, input, full);

  CommandOutput inspect = RunTool("pteshare", {"inspect", file.string()});
  EXPECT_EQ(inspect.exit_status, 0) << inspect.err;
  if (fs::exists(file.string() + ".pteshare-journal") || crash_at != "during-segment-move") {
    EXPECT_NE(inspect.err.find("rolled back an interrupted rewrite"), std::string::npos)
        << inspect.err;
  }
  EXPECT_EQ(ReadBytes(file), input) << "recovery gives the input back";

  CommandOutput rerun = RewriteInPlace(file, "", share);
  EXPECT_EQ(rerun.exit_status, 0) << rerun.err;
  EXPECT_EQ(ReadBytes(file), full);
  EXPECT_EQ(FolderNames(folder), std::vector<std::string>{"m.pte"});
  fs::remove(file);
}

void CrashAndRecover(const std::vector<uint8_t>& input, const std::vector<uint8_t>& full,
                     const std::string& crash_at) {
  TempDir dir;
  CrashAndRecoverIn(dir.path(), input, full, crash_at);
}

TEST(Writer, CrashAtEveryStepOfAnInPlaceRewriteIsRecovered) {
  b::BuildOptions in_slack;
  in_slack.segment_alignment = 4096;
  const std::vector<uint8_t> input = Build(SharedCacheSpec(), in_slack);
  ReadProgram program = Read(input);
  Result<PatchSet> patch = MakePatchSet(input, program.view, PlanSharing(program.view));
  ASSERT_TRUE(patch.ok());
  ASSERT_FALSE(patch->segments_move());
  const std::vector<uint8_t> full = ApplyPatch(input, *patch);
  ASSERT_GE(patch->AllWrites().size(), 3u);
  const size_t runs = WriteRunCount(patch->AllWrites());
  ASSERT_GE(runs, 1u);

  CrashAndRecover(input, full, "after-journal");
  CrashAndRecover(input, full, "after-mark");
  for (size_t k = 1; k <= runs; ++k)
    CrashAndRecover(input, full, "after-patch:" + std::to_string(k));
  CrashAndRecover(input, full, "before-unmark");
  CrashAndRecover(input, full, "before-journal-delete");
}

// An exporter-like program (segment base aligned to 128, the builder's
// default) whose padding is smaller than the bytes a rewrite appends, even
// after table reuse: the segments must move.
std::vector<uint8_t> ExporterLikeProgramThatOutgrowsItsPadding() {
  return LlmThatOutgrowsItsPadding();
}

Result<PatchSet> SharingPatch(const std::vector<uint8_t>& input) {
  ReadProgram program = Read(input);
  ShareRequest request;
  request.share_auto = true;
  Result<PlanResult> plan = MakePlan(program.view, request, PlanOptions{});
  if (!plan.ok()) return plan.error();
  return MakePatchSet(input, program.view, plan->plan);
}

// -o, --in-place by inserting a range (ext4 here) and --in-place by copy
// (forced on a tmpfs) give the same bytes; only the copy changes the inode
// and says why.
TEST(Writer, OutputInsertAndCopyGiveIdenticalBytesWhenSegmentsMove) {
  const std::vector<uint8_t> input = ExporterLikeProgramThatOutgrowsItsPadding();
  Result<PatchSet> patch = SharingPatch(input);
  ASSERT_TRUE(patch.ok()) << patch.error().message;
  ASSERT_TRUE(patch->segments_move()) << "the fixture must outgrow its padding";
  EXPECT_EQ(patch->segment_shift(), kSegmentShiftUnit);

  TempDir dir;
  WriteBytes(dir / "in.pte", input);
  ASSERT_EQ(RunTool("pteshare", {"rewrite", (dir / "in.pte").string(), "--strategy", "relocate",
                                 "--share-auto", "-o", (dir / "out.pte").string()})
                .exit_status,
            0);
  const std::vector<uint8_t> out = ReadBytes(dir / "out.pte");
  ExpectSegmentsKept(input, out);

  if (!CanInsertRange(dir.path())) {
    ADD_FAILURE() << dir.path() << " cannot insert a range; in-place by insert not checked";
  } else {
    WriteBytes(dir / "ip.pte", input);
    const uint64_t inode = Inode(dir / "ip.pte");
    CommandOutput inserted = RewriteInPlace(dir / "ip.pte", "", kShareAuto);
    ASSERT_EQ(inserted.exit_status, 0) << inserted.err;
    EXPECT_EQ(inserted.err, "") << "nothing to say: no segment byte was copied";
    EXPECT_EQ(ReadBytes(dir / "ip.pte"), out);
    EXPECT_EQ(Inode(dir / "ip.pte"), inode) << "an insert keeps the file";
  }

  TmpfsMount tmpfs;
  if (!tmpfs.mounted()) {
    GTEST_SKIP() << "cannot mount a tmpfs (" << tmpfs.why_not()
                 << "): in-place by copy not checked";
  }
  WriteBytes(tmpfs / "ip.pte", input);
  CommandOutput copied = RewriteInPlace(tmpfs / "ip.pte", "", kShareAuto);
  ASSERT_EQ(copied.exit_status, 0) << copied.err;
  EXPECT_TRUE(Contains(copied.err, "segments copied: this filesystem cannot insert a range"))
      << copied.err;
  EXPECT_EQ(ReadBytes(tmpfs / "ip.pte"), out);
  EXPECT_EQ(FolderNames(tmpfs.path()), std::vector<std::string>{"ip.pte"});
}

// Every step of an in-place rewrite that opens a gap: the journal, the
// mark, before and after the insert, each range written (highest first, the
// header last), after the header update, before the identifier is restored
// and before the journal goes.
void CrashAtEveryStepOfAnInsert(const std::vector<uint8_t>& input, const Result<PatchSet>& patch,
                                const std::vector<std::string>& share) {
  TempDir dir;
  ASSERT_TRUE(patch.ok() && patch->segments_move());
  const std::vector<uint8_t> full = ApplyPatch(input, *patch);
  WriteBytes(dir / "in.pte", input);
  Result<UniqueFd> fd = OpenFd(dir / "in.pte", O_RDONLY);
  ASSERT_TRUE(fd.ok());
  Result<std::vector<ByteOverwrite>> writes = WritesAroundGap(fd->get(), *patch, GapFor(*patch));
  ASSERT_TRUE(writes.ok()) << writes.error().message;
  fs::remove(dir / "in.pte");

  std::vector<std::string> points = {"after-journal", "after-mark", "before-insert",
                                     "after-insert"};
  // The first runs (the gap's own write is in the first, being highest),
  // one in the middle, and the last two (the header's is the last).
  const size_t n = WriteRunCount(*writes);
  ASSERT_GE(n, 1u);
  for (size_t k : std::set<size_t>{1, 2, n / 2, n - 1, n}) {
    if (k >= 1 && k <= n) points.push_back("after-patch:" + std::to_string(k));
  }
  points.push_back("after-header-update");
  points.push_back("before-unmark");
  points.push_back("before-journal-delete");
  for (const std::string& point : points) {
    CrashAndRecoverIn(dir.path(), input, full, point, share);
  }
}

TEST(Writer, CrashAtEveryStepOfAnInsertIsRecovered) {
  TempDir dir;
  if (!CanInsertRange(dir.path())) GTEST_SKIP() << dir.path() << " cannot insert a range";
  const std::vector<uint8_t> input = ExporterLikeProgramThatOutgrowsItsPadding();
  Result<PatchSet> patch = SharingPatch(input);
  ASSERT_TRUE(patch.ok());
  ASSERT_GT(GapFor(*patch).offset, 0u) << "this fixture's gap opens above the header";
  CrashAtEveryStepOfAnInsert(input, patch, kShareAuto);
}

// A flatbuffer under 4 KiB: the gap opens at byte 0, so the identifier
// itself moves up with the gap and the one write below it rewrites the
// header; the mark must hold through that too.
TEST(Writer, CrashAtEveryStepOfAnInsertAtByteZeroIsRecovered) {
  TempDir dir;
  if (!CanInsertRange(dir.path())) GTEST_SKIP() << dir.path() << " cannot insert a range";
  b::BuildOptions no_slack;
  no_slack.segment_alignment = 4;
  const std::vector<uint8_t> input = Build(SharedCacheSpec(), no_slack);
  ReadProgram program = Read(input);
  Result<PatchSet> patch = MakePatchSet(input, program.view, PlanSharing(program.view));
  ASSERT_TRUE(patch.ok());
  ASSERT_EQ(GapFor(*patch).offset, 0u) << "this fixture's gap must open at byte 0";
  CrashAtEveryStepOfAnInsert(input, patch, kShareCache);
}

// Issue 23: a file bind-mounted under a second name (docker -v
// m.pte:/app/m.pte) has one link, so nothing refused it; a rewrite through
// the second name killed after the gap opened left a file that inspect,
// verify and rewrite took as fine through the first. Now its bytes say it
// did not finish, and the name its journal lies beside rolls it back.
TEST(Writer, AFileHalfRewrittenThroughABindMountIsRefusedThroughItsOtherName) {
  TempDir dir;
  if (!CanInsertRange(dir.path())) GTEST_SKIP() << dir.path() << " cannot insert a range";
  const std::vector<uint8_t> input = ExporterLikeProgramThatOutgrowsItsPadding();
  Result<PatchSet> patch = SharingPatch(input);
  ASSERT_TRUE(patch.ok() && patch->segments_move());
  const fs::path host = dir / "m.pte";
  WriteBytes(host, input);
  fs::create_directory(dir / "app");
  const fs::path app = dir / "app" / "m.pte";
  FileBindMount bind(host, app);
  if (!bind.mounted()) {
    GTEST_SKIP() << "cannot bind-mount a file here (" << bind.why_not() << "): skipped";
  }
  for (const char* point : {"after-insert", "after-patch:1", "after-header-update"}) {
    SCOPED_TRACE(point);
    ASSERT_EQ(RewriteInPlace(app, point, kShareAuto).exit_status, kTestCrashExitStatus);
    ASSERT_TRUE(fs::exists(app.string() + ".pteshare-journal"));
    ASSERT_FALSE(fs::exists(host.string() + ".pteshare-journal"));
    const std::vector<uint8_t> half = ReadBytes(host);
    ASSERT_NE(half, input);
    for (std::vector<std::string> args :
         {std::vector<std::string>{"inspect", host.string()},
          {"verify", host.string(), "--share-auto"},
          {"rewrite", host.string(), "--in-place", "--share-auto"}}) {
      CommandOutput out = RunTool("pteshare", args);
      EXPECT_EQ(out.exit_status, 2) << args.front() << ": " << out.out << out.err;
      EXPECT_TRUE(Contains(out.err, "running or did not finish")) << out.err;
    }
    EXPECT_EQ(ReadBytes(host), half);
    CommandOutput recovered = RunTool("pteshare", {"inspect", app.string()});
    EXPECT_EQ(recovered.exit_status, 0) << recovered.err;
    EXPECT_EQ(ReadBytes(host), input) << "the name beside the journal rolls it back";
  }
}

// A reader (OpenProgram, as every command reads) running while in-place
// rewrites open gaps again and again sees the input or the result, never a
// mix: it rereads when a journal appeared or the file changed during its
// read.
TEST(Writer, ReaderDuringInsertsSeesTheInputOrTheResultNeverAMix) {
  TempDir dir;
  if (!CanInsertRange(dir.path())) GTEST_SKIP() << dir.path() << " cannot insert a range";
  const std::vector<uint8_t> input = ExporterLikeProgramThatOutgrowsItsPadding();
  Result<PatchSet> patch = SharingPatch(input);
  ASSERT_TRUE(patch.ok() && patch->segments_move());
  const std::vector<uint8_t> full = ApplyPatch(input, *patch);
  const fs::path file = dir / "m.pte";
  WriteBytes(file, input);

  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < 12; ++i) {
      WriteBytes(dir / "next.pte", input);
      fs::rename(dir / "next.pte", file);  // a whole new input, atomically
      EXPECT_EQ(RewriteInPlace(file, "", kShareAuto).exit_status, 0);
    }
    done = true;
  });
  size_t reads = 0, old_seen = 0, new_seen = 0;
  while (!done) {
    Result<OpenedProgram> opened = OpenProgram(file);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    const uint64_t n = opened->file.layout().program_size;
    const auto bytes = opened->file.bytes().first(n);
    const bool is_old =
        n == patch->old_program_size && std::equal(bytes.begin(), bytes.end(), input.begin());
    const bool is_new =
        n == patch->new_program_size && std::equal(bytes.begin(), bytes.end(), full.begin());
    EXPECT_TRUE(is_old || is_new) << "read " << reads << " saw a mix";
    ++reads;
    old_seen += is_old;
    new_seen += is_new;
  }
  writer.join();
  std::printf("reader: %zu reads, %zu of the input, %zu of the result\n", reads, old_seen,
              new_seen);
  EXPECT_GT(reads, 0u);
}

// The copy fallback (a tmpfs cannot insert a range): a crash while the
// segments are copied leaves the input and no temporary.
TEST(Writer, CrashDuringASegmentCopyLeavesTheInputAndNoTemporary) {
  TmpfsMount tmpfs;
  if (!tmpfs.mounted()) {
    GTEST_SKIP() << "cannot mount a tmpfs (" << tmpfs.why_not() << "): copy fallback not checked";
  }
  b::BuildOptions no_slack;
  no_slack.segment_alignment = 4;
  const std::vector<uint8_t> input = Build(SharedCacheSpec(), no_slack);
  ReadProgram program = Read(input);
  Result<PatchSet> patch = MakePatchSet(input, program.view, PlanSharing(program.view));
  ASSERT_TRUE(patch.ok() && patch->segments_move());
  CrashAndRecoverIn(tmpfs.path(), input, ApplyPatch(input, *patch), "during-segment-move");
}

// A move of more than 100 MB by copy (-o) says so on stderr; in place on a
// filesystem that inserts ranges, nothing is copied and nothing said. The
// (sparse) segment stays intact and keeps its alignment either way.
// The progress rule at a lowered threshold, in-process: a 2 MiB move over
// a 1 MiB threshold says what it moves, under a 4 MiB one nothing; an insert
// in place copies nothing and says nothing. The CLI at the default
// threshold, with its tenths, is the long test below.
TEST(Writer, SegmentMoveOverTheThresholdReportsProgressOnlyWhenItCopies) {
  TempDir dir;
  b::BuildOptions options;
  options.segment_alignment = 4;
  options.trailing_segment_bytes = uint64_t{2} << 20;
  PatchedInput patched;
  PatchInput(dir, SharedCacheSpec(), options, patched);
  ASSERT_TRUE(patched.patch.ok()) << patched.patch.error().message;
  const std::vector<uint8_t>& input = patched.input;
  const ReadProgram& program = patched.program;
  const Plan& plan = patched.plan;
  const Result<PatchSet>& patch = patched.patch;
  ASSERT_TRUE(patch->segments_move());

  std::vector<std::string> lines;
  WriteOptions write;
  write.progress = [&](const std::string& line) { lines.push_back(line); };
  write.report_moves_over = uint64_t{1} << 20;
  Result<UniqueFd> source = OpenFd(dir / "in.pte", O_RDONLY);
  ASSERT_TRUE(source.ok());
  Status copied =
      WritePatchedCopy(source->get(), program.layout, *patch, plan, dir / "out.pte", write);
  ASSERT_TRUE(copied.ok()) << copied.error().message;
  // One line: 2 MiB is one copy chunk (file_io.cc), so there is no tenth
  // to report before it is done; the long test below sees the tenths.
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines.front().rfind("moving 2.0 MiB of segment data up by ", 0), 0u) << lines.front();
  ExpectSegmentsKept(input, ReadBytes(dir / "out.pte"));

  // The same move under the threshold: silent.
  lines.clear();
  write.report_moves_over = uint64_t{4} << 20;
  ASSERT_TRUE(
      WritePatchedCopy(source->get(), program.layout, *patch, plan, dir / "out2.pte", write).ok());
  EXPECT_TRUE(lines.empty()) << lines.front();

  if (!CanInsertRange(dir.path())) GTEST_SKIP() << dir.path() << " cannot insert a range";
  lines.clear();
  write.report_moves_over = uint64_t{1} << 20;
  {
    Result<WriterLock> lock = WriterLock::Acquire(dir / "ip.pte");
    ASSERT_TRUE(lock.ok()) << lock.error().message;
    Status in_place = WritePatchedInPlace(*lock, program.layout, *patch, plan, write);
    ASSERT_TRUE(in_place.ok()) << in_place.error().message;
  }
  EXPECT_TRUE(lines.empty()) << "an insert copies nothing: " << lines.front();
  EXPECT_EQ(ReadBytes(dir / "ip.pte"), ReadBytes(dir / "out.pte"));
}

// The CLI's default threshold on a real 200 MiB move (.ci/long).
TEST(Writer, LargeSegmentMoveReportsProgressOnlyWhenItCopies) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kLargeFiles);
  TempDir dir;
  const fs::path file = dir / "m.pte";
  b::BuildOptions options;
  options.segment_alignment = 4;
  options.trailing_segment_bytes = uint64_t{200} << 20;
  Result<b::PteLayout> written = b::WritePteFile(SharedCacheSpec(), options, file);
  ASSERT_TRUE(written.ok()) << written.error().message;
  const std::vector<uint8_t> input = ReadBytes(file);
  CommandOutput copy =
      RunTool("pteshare", {"rewrite", file.string(), "--strategy", "relocate", "--share",
                           kCacheName, "-o", (dir / "out.pte").string()});
  ASSERT_EQ(copy.exit_status, 0) << copy.err;
  EXPECT_NE(copy.err.find("moving 200.0 MiB of segment data up by "), std::string::npos)
      << copy.err;
  EXPECT_NE(copy.out.find("segments moved up by"), std::string::npos) << copy.out;
  ExpectSegmentsKept(input, ReadBytes(dir / "out.pte"));

  if (!CanInsertRange(dir.path())) GTEST_SKIP() << dir.path() << " cannot insert a range";
  CommandOutput in_place = RewriteInPlace(file);
  ASSERT_EQ(in_place.exit_status, 0) << in_place.err;
  EXPECT_EQ(in_place.err, "") << "silent: nothing was copied";
  EXPECT_EQ(ReadBytes(file), ReadBytes(dir / "out.pte"));
}

// While another writer holds the lock, --in-place waits (and says so), then
// finds the file already planned by the first writer's result.
TEST(Writer, SecondInPlaceWriterWaitsForTheFirst) {
  TempDir dir;
  const fs::path file = dir / "m.pte";
  b::BuildOptions in_slack;
  in_slack.segment_alignment = 4096;
  const std::vector<uint8_t> input = Build(SharedCacheSpec(), in_slack);
  WriteBytes(file, input);

  std::optional<WriterLock> held;
  {
    Result<WriterLock> lock = WriterLock::Acquire(file);
    ASSERT_TRUE(lock.ok());
    held.emplace(std::move(lock).value());
  }
  CommandOutput waiting;
  std::thread second([&] { waiting = RewriteInPlace(file); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(ReadBytes(file), input) << "nothing may change while another writer holds the lock";
  held.reset();
  second.join();
  EXPECT_EQ(waiting.exit_status, 0) << waiting.err;
  EXPECT_NE(waiting.err.find("another pteshare is writing this file; waiting"), std::string::npos)
      << waiting.err;
  EXPECT_NE(waiting.out.find("front-packed"), std::string::npos) << waiting.out;
}

TEST(Writer, TwoConcurrentInPlaceRunsGiveOneValidResult) {
  for (int segment_alignment : {4096, 4}) {  // journal path without, then with a gap
    SCOPED_TRACE(segment_alignment);
    TempDir dir;
    const fs::path file = dir / "m.pte";
    b::BuildOptions options;
    options.segment_alignment = segment_alignment;
    const std::vector<uint8_t> input = Build(SharedCacheSpec(), options);
    WriteBytes(file, input);
    WriteBytes(dir / "expected.pte", input);
    ASSERT_EQ(RewriteInPlace(dir / "expected.pte").exit_status, 0);

    CommandOutput a, b;
    std::thread first([&] { a = RewriteInPlace(file); });
    std::thread second([&] { b = RewriteInPlace(file); });
    first.join();
    second.join();
    EXPECT_EQ(a.exit_status, 0) << a.err;
    EXPECT_EQ(b.exit_status, 0) << b.err;
    const size_t planned = (a.out.find("already planned") != std::string::npos) +
                           (b.out.find("already planned") != std::string::npos);
    EXPECT_EQ(planned, 1u) << "exactly one run rewrites:\n" << a.out << b.out;
    EXPECT_EQ(ReadBytes(file), ReadBytes(dir / "expected.pte"));
  }
}

// F1: a crash during --in-place on one name of a hard-linked file, then a
// rewrite through the other name, gave exit 0 on the half-patched file (its
// journal sat beside the first name only). Refused now before anything is
// written, whatever the crash point says.
TEST(Writer, InPlaceOnAFileWithSeveralNamesIsRefusedBeforeWriting) {
  TempDir dir;
  b::BuildOptions in_slack;
  in_slack.segment_alignment = 4096;
  const std::vector<uint8_t> input = Build(SharedCacheSpec(), in_slack);
  WriteBytes(dir / "a.pte", input);
  fs::create_hard_link(dir / "a.pte", dir / "b.pte");
  for (const char* name : {"a.pte", "b.pte"}) {
    CommandOutput out = RewriteInPlace(dir / name, "after-patch:1");
    EXPECT_EQ(out.exit_status, 2) << out.err;
    EXPECT_NE(out.err.find("has 2 names (hard links); an in-place rewrite could not be recovered"),
              std::string::npos)
        << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  }
  EXPECT_EQ(ReadBytes(dir / "a.pte"), input);
  EXPECT_EQ(FolderNames(dir.path()), (std::vector<std::string>{"a.pte", "b.pte"}));
}

// F1 through a symbolic link: the journal lies beside the real file, so a
// crash through the link is recovered through the link or the target.
TEST(Writer, CrashThroughASymlinkIsRecoveredThroughEveryName) {
  b::BuildOptions in_slack;
  in_slack.segment_alignment = 4096;
  const std::vector<uint8_t> input = Build(SharedCacheSpec(), in_slack);
  for (bool recover_through_link : {true, false}) {
    SCOPED_TRACE(recover_through_link ? "recovered through the link" : "through the target");
    TempDir dir;
    fs::create_directory(dir / "real");
    WriteBytes(dir / "real" / "m.pte", input);
    fs::create_symlink("real/m.pte", dir / "link.pte");
    ASSERT_EQ(RewriteInPlace(dir / "link.pte", "after-patch:1").exit_status, kTestCrashExitStatus);
    EXPECT_TRUE(fs::exists(JournalPath(dir / "real" / "m.pte")));
    EXPECT_FALSE(fs::exists(dir / "link.pte.pteshare-journal"));
    const fs::path name = recover_through_link ? dir / "link.pte" : dir / "real" / "m.pte";
    CommandOutput inspect = RunTool("pteshare", {"inspect", name.string()});
    EXPECT_EQ(inspect.exit_status, 0) << inspect.err;
    EXPECT_NE(inspect.err.find("rolled back an interrupted rewrite"), std::string::npos);
    EXPECT_EQ(ReadBytes(dir / "real" / "m.pte"), input);
    EXPECT_EQ(FolderNames(dir / "real"), std::vector<std::string>{"m.pte"});
  }
}

// F2: --in-place through a symbolic link, when the segments move, replaced
// the link with a new root-owned file (set-id bit kept) and never rewrote
// the target. Now the target is rewritten and keeps its owner and mode;
// the link stays a link.
TEST(Writer, InPlaceThroughASymlinkRewritesTheTargetAndKeepsItsOwner) {
  TempDir dir;
  b::BuildOptions no_slack;
  no_slack.segment_alignment = 4;  // segments move: the rename path
  const std::vector<uint8_t> input = Build(SharedCacheSpec(), no_slack);
  WriteBytes(dir / "target.pte", input);
  WriteBytes(dir / "expected.pte", input);
  ASSERT_EQ(RewriteInPlace(dir / "expected.pte").exit_status, 0);
  const bool root = ::geteuid() == 0;
  if (root) {
    ASSERT_EQ(::chown((dir / "target.pte").c_str(), 1234, 5678), 0);
  }
  ASSERT_EQ(::chmod((dir / "target.pte").c_str(), root ? 04750 : 0640), 0);
  fs::create_symlink("target.pte", dir / "link.pte");

  CommandOutput out = RewriteInPlace(dir / "link.pte");
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_NE(out.out.find("segments moved up by"), std::string::npos) << out.out;
  EXPECT_TRUE(fs::is_symlink(dir / "link.pte"));
  EXPECT_EQ(ReadBytes(dir / "target.pte"), ReadBytes(dir / "expected.pte"));
  struct stat st;
  ASSERT_EQ(::stat((dir / "target.pte").c_str(), &st), 0);
  // On ext4 the segments move by an inserted range: the file itself is
  // patched, not replaced, so its mode stays as it was (set-id bits too;
  // a replaced file loses them, OutputTarget tests). Where the filesystem
  // cannot insert, the copy path keeps the mode and clears set-id bits.
  const bool inserted = out.err.find("segments copied") == std::string::npos;
  EXPECT_EQ(st.st_mode & 07777, root ? (inserted ? 04750u : 0750u) : 0640u);
  if (root) {
    EXPECT_EQ(st.st_uid, 1234u);
    EXPECT_EQ(st.st_gid, 5678u);
  } else {
    std::cout << "[  NOTE    ] not root: the owner-keeping half of this test was skipped\n";
  }
}

}  // namespace
}  // namespace pteshare
