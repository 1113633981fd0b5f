#include "rewriter/write/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "pte_header.h"
#include "rewriter/base/grouped.h"
#include "rewriter/io/clone_or_copy.h"
#include "rewriter/io/crash_points.h"
#include "rewriter/io/file_io.h"
#include "rewriter/patch/rewrite_check.h"
#include "rewriter/write/gap_writes.h"
#include "rewriter/write/journal.h"
#include "rewriter/write/new_file.h"
#include "rewriter/write/write_runs.h"

namespace pteshare {
namespace fs = std::filesystem;

namespace {

void Say(const WriteOptions& options, bool always, const std::string& line) {
  if (options.progress && (always || options.verbose)) options.progress(line);
}

std::string MiB(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// The segments, from the old base to the new one, saying what a move of
// more than options.report_moves_over bytes does as it goes (`report`).
Result<RangeCopied> MoveSegments(int source, int temp, const PatchSet& patch,
                                 const WriteOptions& options, bool report, FileSystem& files) {
  const uint64_t segment_bytes = patch.old_file_size - patch.old_segment_base_offset;
  Say(options, report,
      "moving " + MiB(segment_bytes) + " of segment data up by " + Grouped(patch.segment_shift()) +
          " bytes");
  uint64_t next_report = segment_bytes / 10;
  return CloneOrCopyRange(files, source, patch.old_segment_base_offset, temp,
                          patch.new_segment_base_offset, segment_bytes, [&](uint64_t done) {
                            MaybeCrashAt("during-segment-move");
                            if (done >= next_report && done < segment_bytes) {
                              Say(options, report,
                                  "  " + std::to_string(done * 100 / segment_bytes) + "% moved");
                              next_report = done + segment_bytes / 10;
                            }
                          });
}

// Puts the input's unchanged bytes at their places in the new file, their
// blocks shared with the input where the file system can (clone_or_copy.h).
Status CopyUnchangedBytes(int source, int temp, const PatchSet& patch, const WriteOptions& options,
                          FileSystem& files) {
  // Without a move the whole input keeps its place. With one, the
  // flatbuffer does and the old slack is dropped (zeros follow the appended
  // bytes up to the new segment base).
  const uint64_t kept = patch.segments_move() ? patch.old_program_size : patch.old_file_size;
  Result<RangeCopied> total = CloneOrCopyRange(files, source, 0, temp, 0, kept);
  if (!total.ok()) return total.error();
  const bool report = patch.segments_move() && patch.old_file_size - patch.old_segment_base_offset >
                                                   options.report_moves_over;
  if (patch.segments_move()) {
    Result<RangeCopied> moved = MoveSegments(source, temp, patch, options, report, files);
    if (!moved.ok()) return moved.error();
    total->shared += moved->shared;
    total->copied += moved->copied;
  }
  // With a large move's progress it says why the move was quick; with -v
  // always.
  Say(options, report && total->shared > 0,
      Grouped(total->shared) + " bytes shared with the input (reflink), " + Grouped(total->copied) +
          " copied");
  return Status::Ok();
}

// Reads what `fd` holds at an offset, zeros past its first `size` bytes
// (what a file grown to hold a write has there before the write).
ReadFileBytes ReadOrZeros(int fd, uint64_t size, FileSystem& files) {
  return [fd, size, &files](uint64_t offset, std::span<uint8_t> into) {
    std::fill(into.begin(), into.end(), uint8_t{0});
    if (offset >= size) return Status::Ok();
    return files.ReadAt(fd, offset, into.first(std::min<uint64_t>(into.size(), size - offset)));
  };
}

// Writes the new bytes of the runs [first, last), in that order.
template <typename RunIterator>
Status WriteRuns(int fd, RunIterator first, RunIterator last, bool crash_points,
                 FileSystem& files) {
  size_t written = 0;
  for (; first != last; ++first) {
    const WriteRun& run = *first;
    Status ok = files.WriteAt(fd, run.offset, run.after);
    if (!ok.ok()) return ok;
    if (crash_points) MaybeCrashAfterPatch(++written);
  }
  return Status::Ok();
}

// -o: the new file already holds the unchanged bytes at their places.
Status WriteInRuns(int fd, const std::vector<ByteOverwrite>& writes, FileSystem& files) {
  Result<uint64_t> size = files.FileSize(fd);
  if (!size.ok()) return size.error();
  Result<std::vector<WriteRun>> runs = JoinIntoRuns(writes, ReadOrZeros(fd, *size, files));
  if (!runs.ok()) return runs.error();
  return WriteRuns(fd, runs->begin(), runs->end(), /*crash_points=*/false, files);
}

Status CheckOnDisk(int fd, const PteLayout& before, const PatchSet& patch, const Plan& plan,
                   FileSystem& files) {
  Result<ReadOnlyMapping> mapping = files.Map(fd);
  if (!mapping.ok()) return mapping.error();
  return CheckRewrittenFile(mapping->bytes(), before, patch, plan);
}

// The new file is built as new_file.h builds every new file: without a
// name, checked, then linked as OUT or renamed over it.
Status WriteCopyTo(int source_fd, const PteLayout& before, const PatchSet& patch, const Plan& plan,
                   const fs::path& out, const WriteOptions& options, FileSystem& files) {
  NewFileSteps steps;
  steps.fill = [&](int fd) {
    Status ok = files.Truncate(fd, patch.new_file_size);
    if (ok.ok()) ok = CopyUnchangedBytes(source_fd, fd, patch, options, files);
    if (ok.ok()) ok = WriteInRuns(fd, patch.AllWrites(), files);
    return ok;
  };
  steps.check = [&](int fd) { return CheckOnDisk(fd, before, patch, plan, files); };
  steps.say = [&](const std::string& line) { Say(options, false, line); };
  return WriteNewFile(out, source_fd, steps, files);
}

// The journal: old and new bytes of every write, before any write happens,
// the old bytes taken from the runs' reads. With a gap, the old bytes are
// those the file holds once the gap is open; without, only those inside the
// old file.
Journal RecordJournal(const PatchSet& patch, const std::vector<ByteOverwrite>& writes,
                      const std::vector<WriteRun>& runs, const std::optional<FileGap>& gap) {
  Journal journal;
  journal.old_file_size = patch.old_file_size;
  journal.new_file_size = patch.new_file_size;
  journal.gap = gap;
  for (const WriteRun& run : runs) {
    for (size_t k = run.first_write; k < run.end_write; ++k) {
      const ByteOverwrite& w = writes[k];
      std::span<const uint8_t> before = BytesBefore(run, w);
      if (!gap) {
        before =
            w.offset < patch.old_file_size
                ? before.first(std::min<uint64_t>(before.size(), patch.old_file_size - w.offset))
                : before.first(0);
      }
      journal.ranges.push_back({w.offset, {before.begin(), before.end()}, w.bytes});
    }
  }
  return journal;
}

// Runs that cover the identifier (a gap opening at byte 0 rewrites it) write
// the rewriting mark there: only the last step of the rewrite restores it.
void KeepMark(std::vector<WriteRun>& runs) {
  const std::array<uint8_t, 4> mark = RewritingMark();
  for (WriteRun& run : runs) {
    for (uint64_t k = 0; k < mark.size(); ++k) {
      const uint64_t at = PteConstants::kIdentifierOffset + k;
      if (at >= run.offset && at - run.offset < run.after.size())
        run.after[at - run.offset] = mark[k];
    }
  }
}

// A failed in-place rewrite: roll back, or say that the journal stays.
Status Failed(int fd, const fs::path& file, const Journal& journal, const Status& failure,
              FileSystem& files) {
  Status rolled_back = RollBack(fd, journal, files);
  if (rolled_back.ok()) rolled_back = RemoveJournalDurably(file, files);
  if (!rolled_back.ok()) {
    return Error{failure.error().message + "; rolling back failed too (" +
                 rolled_back.error().message + "): the journal " + JournalPath(file).string() +
                 " stays for the next run to roll back"};
  }
  return Error{"refusing to finish, the file was rolled back: " + failure.error().message};
}

}  // namespace

Status WritePatchedCopy(int source_fd, const PteLayout& before, const PatchSet& patch,
                        const Plan& plan, const fs::path& out, const WriteOptions& options) {
  return WriteCopyTo(source_fd, before, patch, plan, out, options, OrReal(options.file_system));
}

Status WritePatchedInPlace(const WriterLock& lock, const PteLayout& before, const PatchSet& patch,
                           const Plan& plan, const WriteOptions& options) {
  const fs::path& file = lock.path();
  FileSystem& files = lock.files();
  struct stat locked;
  if (const int err = files.StatFd(lock.fd(), &locked); err != 0) {
    return Error{std::string("fstat: ") + strerror(err)};
  }
  if (locked.st_nlink > 1) {
    // A journal beside one name is not found through the others, and a
    // rename would split the names: refused before anything is written.
    return Error{"has " + std::to_string(locked.st_nlink) +
                 " names (hard links); an in-place rewrite could not be recovered through every "
                 "name, so it is refused (write a copy with -o)"};
  }
  const int fd = lock.fd();
  // Segments that move stay where the filesystem keeps them: a gap opens
  // under them (gap_writes.h), recorded in the journal first.
  std::optional<FileGap> gap;
  if (patch.segments_move()) gap = GapFor(patch);
  Result<std::vector<ByteOverwrite>> writes =
      gap ? WritesAroundGap(fd, patch, *gap, files)
          : Result<std::vector<ByteOverwrite>>(patch.AllWrites());
  if (!writes.ok()) return writes.error();
  const ReadFileBytes read_before =
      gap ? ReadFileBytes([fd, &gap, &files](uint64_t offset, std::span<uint8_t> into) {
        return ReadAsIfOpen(fd, *gap, offset, into, files);
      })
          : ReadOrZeros(fd, patch.old_file_size, files);
  Result<std::vector<WriteRun>> runs = JoinIntoRuns(*writes, read_before);
  if (!runs.ok()) return runs.error();
  Journal journal = RecordJournal(patch, *writes, *runs, gap);
  // The file says it is being rewritten until it is the result (journal.h).
  std::array<uint8_t, 4> identifier{};
  Status ok = files.ReadAt(fd, PteConstants::kIdentifierOffset, identifier);
  if (!ok.ok()) return ok;
  journal.identifier = identifier;
  KeepMark(*runs);
  ok = WriteJournalDurably(file, journal, patch.old_program_size, files);
  if (!ok.ok()) return ok;
  Say(options, false, "journal " + JournalPath(file).string() + " written");
  MaybeCrashAt("after-journal");
  ok = files.WriteAt(fd, PteConstants::kIdentifierOffset, RewritingMark());
  // Durable before anything else changes (the gap included).
  if (ok.ok()) ok = files.SyncFile(fd);
  if (ok.ok()) MaybeCrashAt("after-mark");

  if (ok.ok() && gap) {
    MaybeCrashAt("before-insert");
    Result<GapOpened> opened = OpenGap(fd, *gap, patch.old_file_size, files);
    if (opened.ok() && *opened == GapOpened::kUnsupported) {
      // Nothing changed but the mark: undo it, drop the journal and copy,
      // as -o does.
      ok = RollBack(fd, journal, files);
      if (ok.ok()) ok = RemoveJournalDurably(file, files);
      if (!ok.ok()) return Failed(fd, file, journal, ok, files);
      Say(options, true, "segments copied: this filesystem cannot insert a range");
      return WriteCopyTo(fd, before, patch, plan, file, options, files);
    }
    ok = opened.ok() ? Status::Ok() : Status(opened.error());
    // A gap at byte 0 moved the mark up with everything else and left
    // zeros where the identifier is read: mark it again at once.
    if (ok.ok() && gap->offset <= PteConstants::kIdentifierOffset) {
      ok = files.WriteAt(fd, PteConstants::kIdentifierOffset, RewritingMark());
    }
    // The gap is made durable before any byte below it changes, so a power
    // loss cannot keep new header bytes without the gap they describe.
    if (ok.ok()) ok = files.SyncFile(fd);
    if (ok.ok()) {
      Say(options, false,
          "inserted " + Grouped(gap->length) + " bytes at offset " + Grouped(gap->offset) +
              ": no segment byte read or copied");
      MaybeCrashAt("after-insert");
      // Highest first, so the header (program_size, segment_base_offset)
      // is the last write.
      ok = WriteRuns(fd, runs->rbegin(), runs->rend(), /*crash_points=*/true, files);
      if (ok.ok()) MaybeCrashAt("after-header-update");
    }
  } else if (ok.ok()) {
    // Grow first (zeros), so the size is always the old or the new one.
    if (patch.new_file_size > patch.old_file_size) ok = files.Truncate(fd, patch.new_file_size);
    if (ok.ok()) ok = WriteRuns(fd, runs->begin(), runs->end(), /*crash_points=*/true, files);
  }
  if (ok.ok()) ok = files.SyncFile(fd);
  if (ok.ok()) MaybeCrashAt("before-unmark");
  // The result, once everything else is durable, says it is a program again.
  if (ok.ok()) ok = files.WriteAt(fd, PteConstants::kIdentifierOffset, identifier);
  if (ok.ok()) ok = files.SyncFile(fd);
  if (ok.ok()) ok = CheckOnDisk(fd, before, patch, plan, files);
  if (!ok.ok()) return Failed(fd, file, journal, ok, files);
  auto count = [](size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  Say(options, false,
      count(writes->size(), "range", "ranges") + " written in " +
          count(runs->size(), "write", "writes") + " and synced");
  MaybeCrashAt("before-journal-delete");
  return RemoveJournalDurably(file, files);
}

}  // namespace pteshare
