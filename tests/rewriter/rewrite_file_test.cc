// RewriteFile (rewriter/rewrite.h) in process, through a file system that
// fails one call (tests/faulty_file_system.h), as ninja tests its builder
// through a DiskInterface. For a rewrite in place, to a new name and over
// an existing output, with O_TMPFILE and without, a clean run is counted
// first; then each of its calls is failed in turn (ENOSPC where the call
// allocates, EIO elsewhere), alone and with every call after it, and each
// write once more torn in half. After every fault: RewriteFile says
// what failed, or the fault was one the writer may shrug off and the result
// is complete; the input is as it was, or (past the point of no return) the
// result is complete; the folder holds nothing the design does not allow
// (a journal only where the next reader rolls it back to the input, and no
// temporary a later writer would not clean up, but the names a failed
// unlink leaves, which it lists); and a later RewriteFile on
// the real file system gives the bytes of the clean run. The real crashes
// (a process killed between two calls) stay in writer_test.cc and the
// command tests: a fault here returns, it does not stop the process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rewriter/rewrite.h"
#include "rewriter/write/journal.h"
#include "rewriter/write/pending_file.h"
#include "tests/faulty_file_system.h"
#include "tests/filesystem_fixtures.h"
#include "tests/rewrite_fixtures.h"
#include "tests/shared_extents.h"
#include "tools/synth/synth_llm.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

enum class Target {
  kInPlace,        // --in-place
  kNewOutput,      // -o to a name that does not exist
  kReplaceOutput,  // -o over an existing file
};

const char* TargetName(Target target) {
  switch (target) {
    case Target::kInPlace:
      return "in place";
    case Target::kNewOutput:
      return "-o new name";
    case Target::kReplaceOutput:
      return "-o over a file";
  }
  return "?";
}

struct Program {
  const char* name;
  std::vector<uint8_t> bytes;
  ShareRequest share;
};

// Three shapes of write: patches inside the slack (no move), segments that
// move (a gap in place, a copy with -o), and an exporter-like LLM (prefill
// and decode over shared caches, as writer_test.cc's) that outgrows its
// padding, so its segments move too.
std::vector<Program> Programs() {
  std::vector<Program> programs;
  ShareRequest cache;
  cache.names = {kCacheName};
  b::BuildOptions in_slack, no_slack;
  in_slack.segment_alignment = 4096;
  no_slack.segment_alignment = 4;
  programs.push_back({"patches in the slack", Build(SharedCacheSpec(), in_slack), cache});
  programs.push_back({"segments move", Build(SharedCacheSpec(), no_slack), cache});
  ShareRequest share_auto;
  share_auto.share_auto = true;
  programs.push_back({"exporter-like LLM", LlmThatOutgrowsItsPadding(), share_auto});
  return programs;
}

// What an output that a rewrite replaces held before it.
const std::vector<uint8_t> kOldOutput = {'o', 'l', 'd', '\n'};

// The folder of one run (a temporary one, or `given`: a mount): the input
// (m.pte), and for -o over a file the file it replaces (out.pte).
struct Folder {
  explicit Folder(const fs::path& given = {})
      : path(given.empty() ? temp.emplace().path() : given) {}
  std::optional<TempDir> temp;
  fs::path path;
  fs::path input() const { return path / "m.pte"; }
  fs::path output() const { return path / "out.pte"; }
  fs::path journal() const { return JournalPath(input()); }
};

void Prepare(const Folder& folder, const Program& program, Target target) {
  for (const auto& entry : fs::directory_iterator(folder.path)) fs::remove(entry.path());
  WriteBytes(folder.input(), program.bytes);
  if (target == Target::kReplaceOutput) WriteBytes(folder.output(), kOldOutput);
}

RewriteRequest Request(const Folder& folder, const Program& program, Target target,
                       FileSystem* files) {
  RewriteRequest request;
  request.input = folder.input();
  if (target == Target::kInPlace) {
    request.in_place = true;
  } else {
    request.output = folder.output();
  }
  request.share = program.share;
  request.file_system = files;
  return request;
}

// Where the result lands.
fs::path Written(const Folder& folder, Target target) {
  return target == Target::kInPlace ? folder.input() : folder.output();
}

std::set<std::string> Listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

// ENOSPC for the calls that may need a free block, EIO for the rest.
int RealisticErrno(FsCall call) {
  switch (call) {
    case FsCall::kOpen:
    case FsCall::kWriteAt:
    case FsCall::kTruncate:
    case FsCall::kCopyRange:
    case FsCall::kAllocate:
    case FsCall::kCloneRange:
    case FsCall::kLinkAt:
    case FsCall::kLink:
    case FsCall::kRename:
      return ENOSPC;
    default:
      return EIO;
  }
}

// Words of which the message of a failed `call` names one: the call, or
// what the writer was doing with it.
std::vector<std::string> CallWords(FsCall call) {
  switch (call) {
    case FsCall::kOpen:
      return {"open", "create"};
    case FsCall::kFileSize:
    case FsCall::kStatFd:
      return {"fstat"};
    case FsCall::kReadAt:
    case FsCall::kReadBounded:
      return {"read"};
    case FsCall::kWriteAt:
      return {"write"};
    case FsCall::kTruncate:
      return {"file size"};
    case FsCall::kSyncFile:
    case FsCall::kSyncFolder:
      return {"fsync"};
    case FsCall::kCopyRange:
      return {"copy"};
    case FsCall::kMap:
      return {"map"};
    case FsCall::kStatPath:
    case FsCall::kStatLink:
      return {"stat", "disappeared"};
    case FsCall::kLock:
      return {"lock"};
    case FsCall::kAllocate:
      return {"inserting", "removing"};
    case FsCall::kCloneRange:
      return {"clone"};
    case FsCall::kChangeMode:
      return {"mode"};
    case FsCall::kChangeOwner:
      return {"owner"};
    case FsCall::kLinkAt:
    case FsCall::kLink:
      return {"link"};
    case FsCall::kRename:
      return {"rename"};
    case FsCall::kUnlink:
      return {"delete"};
  }
  return {};
}

// What one program and target do when nothing fails.
struct CleanRun {
  std::vector<FsCall> calls;
  std::vector<uint8_t> result;
};

CleanRun RunClean(const Folder& folder, const Program& program, Target target,
                  bool no_tmpfile = false) {
  Prepare(folder, program, target);
  Fault none;
  none.no_tmpfile = no_tmpfile;
  FaultyFileSystem counting(none);
  Result<RewriteOutcome> outcome = RewriteFile(Request(folder, program, target, &counting));
  EXPECT_TRUE(outcome.ok()) << outcome.error().message;
  if (outcome.ok()) {
    EXPECT_TRUE(outcome->changed()) << "the fixture must need a rewrite";
  }
  return {counting.calls(), ReadBytes(Written(folder, target))};
}

// What the sweep found that is allowed but worth knowing, per case:
// faults the writer went on past, and temporary names it could not remove.
struct Findings {
  std::set<std::string> went_on;
  std::set<std::string> left_names;
};

// Whether `name` may stay after `fault`: without O_TMPFILE a pending file
// has a name from the start (pending_file.h), and when the unlink that
// removes that name is a failed call, the name stays. (A journal's
// `.FILE.pteshare-journal.pteshare-tmp-INO` is a second name of a journal
// already deleted; no one deletes it, and it harms nothing.)
bool LeftByAFailedUnlink(const std::string& name, const Fault& fault,
                         const std::vector<FsCall>& failures) {
  return fault.no_tmpfile && Contains(name, ".pteshare-tmp-") &&
         std::find(failures.begin(), failures.end(), FsCall::kUnlink) != failures.end();
}

// The message of a failed run names a failed call (the writer may have
// gone on past an earlier one) and keeps its errno text.
void ExpectNamesTheCall(const std::string& message, const std::vector<FsCall>& failures,
                        int error) {
  EXPECT_NE(message.find(std::strerror(error)), std::string::npos)
      << "the errno text is lost: " << message;
  EXPECT_TRUE(std::any_of(failures.begin(), failures.end(),
                          [&](FsCall failed) {
                            const std::vector<std::string> words = CallWords(failed);
                            return std::any_of(
                                words.begin(), words.end(),
                                [&](const std::string& w) { return Contains(message, w); });
                          }))
      << "the message does not name the call: " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

// In place: untouched; or past the point of no return (the journal's
// delete or the folder's fsync after it) the complete result; or, where
// the rollback failed too (a persistent fault), anything with the journal
// beside it. A journal that stays is rolled back by the next reader, to
// the input. (A journal whose folder's fsync failed is unlinked again: the
// writer returns before it changes a byte; were that unlink to fail too,
// the next reader's rollback would change none.)
void ExpectInputOrResult(const Folder& folder, const Program& program, const Fault& fault,
                         FsCall failed, bool reported_ok, const std::vector<uint8_t>& expected) {
  const std::vector<uint8_t> now = ReadBytes(folder.input());
  if (fs::exists(folder.journal())) {
    EXPECT_FALSE(reported_ok) << "success reported with the journal still there";
    EXPECT_TRUE(fault.persistent || now == program.bytes || now == expected)
        << "a single fault left a mix of the input and the result";
    EXPECT_TRUE(fault.persistent || now == program.bytes || failed == FsCall::kUnlink)
        << "the journal stays beside the result only if its delete failed";
    Result<OpenedProgram> reader = OpenProgram(folder.input());
    ASSERT_TRUE(reader.ok()) << reader.error().message;
    EXPECT_TRUE(Contains(reader->notice, "rolled back")) << reader->notice;
    EXPECT_EQ(ReadBytes(folder.input()), program.bytes) << "the reader's rollback";
    return;
  }
  EXPECT_TRUE(now == program.bytes || now == expected)
      << "in place left neither the input nor the result, and no journal";
  if (now != program.bytes && !reported_ok) {
    EXPECT_TRUE(failed == FsCall::kUnlink || failed == FsCall::kSyncFolder)
        << "a result reported as failed before the point of no return";
  }
}

// -o: the input untouched; the output as it was or complete.
void ExpectOutputAsItWasOrComplete(const Folder& folder, const Program& program, Target target,
                                   const std::vector<uint8_t>& expected) {
  EXPECT_EQ(ReadBytes(folder.input()), program.bytes) << "-o must not touch its input";
  EXPECT_FALSE(fs::exists(folder.journal()));
  if (!fs::exists(folder.output())) return;
  const std::vector<uint8_t> out = ReadBytes(folder.output());
  EXPECT_TRUE(out == expected || (target == Target::kReplaceOutput && out == kOldOutput))
      << "the output is neither what it was nor complete";
}

// The state one faulty run left, then a run on the real file system after
// it, which must recover whatever is there and write the clean run's bytes.
void ExpectHonestAndRecoverable(const Folder& folder, const Program& program, Target target,
                                const Fault& fault, const FaultyFileSystem& faulty,
                                const Result<RewriteOutcome>& outcome,
                                const std::vector<uint8_t>& expected, Findings& findings) {
  ASSERT_TRUE(faulty.failed().has_value())
      << "the clean run's call " << fault.nth << " must be reached again";
  const FsCall failed = *faulty.failed();
  SCOPED_TRACE(std::string("failed call ") + std::to_string(fault.nth) + ": " + FsCallName(failed) +
               " (" + std::strerror(fault.error) + ")");
  if (outcome.ok()) {
    // The writer may go on past a failure it does not need (a stat for the
    // journal's mode, the unlink of a temporary name): the result must then
    // be complete.
    EXPECT_EQ(ReadBytes(Written(folder, target)), expected) << "reported success";
    findings.went_on.insert(std::string(FsCallName(failed)) + " " + std::to_string(fault.nth));
  } else {
    ExpectNamesTheCall(outcome.error().message, faulty.failures(), fault.error);
    // Past the point of no return the result is there: the error must say
    // so, not read as "the input is as it was" (result.h's kIo).
    const fs::path written = Written(folder, target);
    const bool result_in_place = !fs::exists(folder.journal()) && fs::exists(written) &&
                                 ReadBytes(written) == expected &&
                                 (target != Target::kInPlace || expected != program.bytes);
    if (result_in_place) {
      EXPECT_TRUE(Contains(outcome.error().message, "is rewritten") ||
                  Contains(outcome.error().message, "is written and in place"))
          << outcome.error().message;
    }
  }
  if (target == Target::kInPlace) {
    ExpectInputOrResult(folder, program, fault, failed, outcome.ok(), expected);
  } else {
    ExpectOutputAsItWasOrComplete(folder, program, target, expected);
  }
  // Nothing else stays, but a temporary CleanAbandonedTemps recognises
  // (the lock of the pending file that made it went with its descriptor):
  // the next writer deletes it.
  std::set<std::string> allowed = {folder.input().filename()};
  if (target != Target::kInPlace) allowed.insert(folder.output().filename());
  CleanAbandonedTemps(Written(folder, target));
  for (const std::string& name : Listing(folder.path)) {
    if (allowed.count(name) == 1) continue;
    if (LeftByAFailedUnlink(name, fault, faulty.failures())) {
      findings.left_names.insert(name.substr(0, name.find("-tmp-") + 5) + "... " +
                                 FsCallName(failed) + " " + std::to_string(fault.nth));
      fs::remove(folder.path / name);  // so that the later run starts clean
      continue;
    }
    ADD_FAILURE() << "left behind: " << name;
  }

  Result<RewriteOutcome> again = RewriteFile(Request(folder, program, target, nullptr));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(ReadBytes(Written(folder, target)), expected) << "a later real run";
  EXPECT_EQ(Listing(folder.path), allowed);
}

// The faults of one clean run: each call failed alone, each call failed
// with every call after it (the disk is gone: the rollback fails too), and
// each write torn in half.
std::vector<Fault> FaultsOf(const std::vector<FsCall>& calls, bool no_tmpfile) {
  std::vector<Fault> faults;
  for (bool persistent : {false, true}) {
    for (size_t n = 1; n <= calls.size(); ++n) {
      Fault fault;
      fault.nth = n;
      fault.error = RealisticErrno(calls[n - 1]);
      fault.persistent = persistent;
      fault.no_tmpfile = no_tmpfile;
      faults.push_back(fault);
    }
  }
  const auto writes = static_cast<size_t>(std::count(calls.begin(), calls.end(), FsCall::kWriteAt));
  for (size_t n = 1; n <= writes; ++n) {
    Fault fault;
    fault.nth = n;
    fault.only = FsCall::kWriteAt;
    fault.error = ENOSPC;
    fault.torn_write = true;
    fault.no_tmpfile = no_tmpfile;
    faults.push_back(fault);
  }
  return faults;
}

// Fails every call of a clean run of `program` in turn (FaultsOf), in a
// temporary folder or in `where`.
void FailEveryCall(const Program& program, Target target, bool no_tmpfile, size_t& cases,
                   Findings& all, const fs::path& where = {}) {
  const std::string scenario =
      std::string(program.name) + ", " + TargetName(target) + (no_tmpfile ? ", no O_TMPFILE" : "");
  SCOPED_TRACE(scenario);
  Folder folder(where);
  const CleanRun clean = RunClean(folder, program, target, no_tmpfile);
  ASSERT_FALSE(clean.calls.empty());
  Result<RewriteOutcome> in_memory = RewriteBytes(program.bytes, program.share, PlanOptions{});
  ASSERT_TRUE(in_memory.ok()) << in_memory.error().message;
  EXPECT_EQ(clean.result, in_memory->bytes) << "the file written is the bytes RewriteBytes gives";

  for (const Fault& fault : FaultsOf(clean.calls, no_tmpfile)) {
    SCOPED_TRACE(fault.torn_write   ? "torn write"
                 : fault.persistent ? "every call from N on"
                                    : "call N");
    Prepare(folder, program, target);
    FaultyFileSystem faulty(fault);
    const Result<RewriteOutcome> outcome = RewriteFile(Request(folder, program, target, &faulty));
    Findings here;
    ExpectHonestAndRecoverable(folder, program, target, fault, faulty, outcome, clean.result, here);
    const std::string prefix = scenario + (fault.persistent ? ", from " : ", ");
    for (const std::string& call : here.went_on) all.went_on.insert(prefix + call);
    for (const std::string& name : here.left_names) all.left_names.insert(prefix + name);
    ++cases;
  }
}

TEST(RewriteFile, EveryFailedCallIsReportedAndLeavesTheInputOrTheResult) {
  size_t cases = 0;
  Findings findings;
  for (const Program& program : Programs()) {
    for (Target target : {Target::kInPlace, Target::kNewOutput, Target::kReplaceOutput}) {
      for (bool no_tmpfile : {false, true})
        FailEveryCall(program, target, no_tmpfile, cases, findings);
    }
  }
  std::printf("%zu fault cases; the writer went on past %zu:\n", cases, findings.went_on.size());
  for (const std::string& t : findings.went_on) std::printf("  %s\n", t.c_str());
  std::printf("a temporary name stayed after %zu:\n", findings.left_names.size());
  for (const std::string& t : findings.left_names) std::printf("  %s\n", t.c_str());
}

// The same on a file system that shares blocks (a loop-mounted XFS), for
// -o of each program with a whole block to share: there the clone succeeds,
// no copy follows it, and the sweep fails each call of that run, the clones
// included (elsewhere the clone is refused and the range copied).
TEST(RewriteFile, OnXfsEveryFailedCallOfACopyThatSharesIsReportedAndLeavesTheInputOrTheResult) {
  LoopMount xfs(LoopFs::kXfs, kSmallestXfsBytes);
  if (!xfs.mounted()) {
    GTEST_SKIP() << "no XFS to share blocks on (" << xfs.why_not()
                 << "): the clone's failures are checked only where it is refused";
  }
  size_t cases = 0, swept = 0;
  Findings findings;
  for (const Program& program : Programs()) {
    for (Target target : {Target::kNewOutput, Target::kReplaceOutput}) {
      Folder folder(xfs.path());
      const CleanRun clean = RunClean(folder, program, target);
      const bool clones = std::find(clean.calls.begin(), clean.calls.end(), FsCall::kCloneRange) !=
                          clean.calls.end();
      std::printf("%s, %s on XFS: %zu calls, %llu bytes shared with the input%s\n", program.name,
                  TargetName(target), clean.calls.size(),
                  static_cast<unsigned long long>(SharedBytes(folder.output()).value_or(0)),
                  clones ? "" : " (no whole block to share: swept on ext4 only)");
      if (!clones) continue;
      FailEveryCall(program, target, /*no_tmpfile=*/false, cases, findings, xfs.path());
      ++swept;
    }
  }
  EXPECT_GE(swept, 2u)
      << "the exporter-like LLM shares its segments, to a new name and over a file";
  std::printf("%zu fault cases on XFS; the writer went on past %zu\n", cases,
              findings.went_on.size());
}

// The index of the first `call` at or after `from` (calls.size() if none).
size_t Find(const std::vector<FsCall>& calls, FsCall call, size_t from = 0) {
  for (size_t i = from; i < calls.size(); ++i) {
    if (calls[i] == call) return i;
  }
  return calls.size();
}

// The order that makes a clean run crash-safe, seen in its calls (each run
// also printed, with its count, for the record): in place, the journal is
// written, fsynced, linked and its folder fsynced before the file's first
// write (the mark), and deleted last, the deletion fsynced; with -o, the
// new file is fsynced and re-read (mmap) before it gets its name, and the
// folder is fsynced last.
TEST(RewriteFile, CleanRunsMakeTheirCallsInTheCrashSafeOrder) {
  for (const Program& program : Programs()) {
    for (Target target : {Target::kInPlace, Target::kNewOutput, Target::kReplaceOutput}) {
      SCOPED_TRACE(std::string(program.name) + ", " + TargetName(target));
      Folder folder;
      const std::vector<FsCall> calls = RunClean(folder, program, target).calls;
      std::string kinds;
      for (FsCall call : calls) kinds += std::string(kinds.empty() ? "" : " ") + FsCallName(call);
      std::printf("%s, %s: %zu calls: %s\n", program.name, TargetName(target), calls.size(),
                  kinds.c_str());
      ASSERT_GE(calls.size(), 3u);
      EXPECT_EQ(calls.back(), FsCall::kSyncFolder);
      const size_t linked = Find(calls, FsCall::kLinkAt);
      ASSERT_LT(linked, calls.size());
      if (target == Target::kInPlace) {
        const size_t journal_write = Find(calls, FsCall::kWriteAt);
        EXPECT_LT(journal_write, Find(calls, FsCall::kSyncFile, journal_write));
        EXPECT_LT(Find(calls, FsCall::kSyncFile, journal_write), linked);
        EXPECT_EQ(calls[linked + 1], FsCall::kSyncFolder);
        EXPECT_EQ(Find(calls, FsCall::kWriteAt, journal_write + 1), linked + 2)
            << "the mark is the file's first write, right after the journal is durable";
        EXPECT_EQ(calls[calls.size() - 2], FsCall::kUnlink);
      } else {
        const size_t mapped = Find(calls, FsCall::kMap);
        EXPECT_LT(Find(calls, FsCall::kSyncFile), mapped);
        EXPECT_LT(mapped, linked);
      }
    }
  }
}

// A second run with the same request gives the same bytes, and the clean
// runs through the seam equal runs without one (null = the real file
// system).
TEST(RewriteFile, RealAndCountedRunsGiveTheSameBytes) {
  for (const Program& program : Programs()) {
    for (Target target : {Target::kInPlace, Target::kNewOutput}) {
      SCOPED_TRACE(std::string(program.name) + ", " + TargetName(target));
      Folder folder;
      const CleanRun counted = RunClean(folder, program, target);
      Prepare(folder, program, target);
      Result<RewriteOutcome> real = RewriteFile(Request(folder, program, target, nullptr));
      ASSERT_TRUE(real.ok()) << real.error().message;
      EXPECT_EQ(ReadBytes(Written(folder, target)), counted.result);
    }
  }
}

}  // namespace
}  // namespace pteshare
