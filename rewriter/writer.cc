#include "rewriter/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "rewriter/crash_points.h"
#include "rewriter/file_io.h"
#include "rewriter/gap_writes.h"
#include "rewriter/journal.h"
#include "rewriter/new_file.h"
#include "rewriter/rewrite_check.h"

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

Status CopyUnchangedBytes(int source, int temp, const PatchSet& patch,
                          const WriteOptions& options) {
  if (!patch.segments_move()) return CopyRange(source, 0, temp, 0, patch.old_file_size);
  // The flatbuffer stays where it is; the old slack is dropped (zeros
  // follow the appended bytes up to the new segment base).
  Status head = CopyRange(source, 0, temp, 0, patch.old_program_size);
  if (!head.ok()) return head;
  const uint64_t segment_bytes = patch.old_file_size - patch.old_segment_base_offset;
  const bool report = segment_bytes > kReportedMoveBytes;
  Say(options, report,
      "moving " + MiB(segment_bytes) + " of segment data up by " +
          std::to_string(patch.segment_shift()) + " bytes");
  uint64_t next_report = segment_bytes / 10;
  return CopyRange(source, patch.old_segment_base_offset, temp, patch.new_segment_base_offset,
                   segment_bytes, [&](uint64_t copied) {
                     MaybeCrashAt("during-segment-move");
                     if (copied >= next_report && copied < segment_bytes) {
                       Say(options, report,
                           "  " + std::to_string(copied * 100 / segment_bytes) + "% moved");
                       next_report = copied + segment_bytes / 10;
                     }
                   });
}

Status WriteAll(int fd, const std::vector<ByteOverwrite>& writes, bool crash_points) {
  for (size_t k = 0; k < writes.size(); ++k) {
    Status written = WriteAt(fd, writes[k].offset, writes[k].bytes);
    if (!written.ok()) return written;
    if (crash_points) MaybeCrashAfterPatch(k + 1);
  }
  return Status::Ok();
}

// Writes `writes` in order, as few large writes as the copy allows: each
// run of writes lying close together is read back from the file, patched in
// memory and written once. A rewrite changes a few bytes of every tensor,
// and one pwrite per field was most of a large rewrite's system time. Each
// run reads what the earlier runs left, so the file ends with the bytes the
// writes one by one would leave (bytes past its end read as the zeros a
// write there would leave before it).
Status WriteInRuns(int fd, const std::vector<ByteOverwrite>& writes) {
  constexpr uint64_t kJoinedGap = uint64_t{64} << 10;  // read back rather than a new write
  constexpr uint64_t kLongestRun = uint64_t{4} << 20;
  struct stat file;
  if (::fstat(fd, &file) != 0) return Error{std::string("fstat: ") + strerror(errno)};
  const uint64_t file_size = static_cast<uint64_t>(file.st_size);
  std::vector<uint8_t> run;
  for (size_t first = 0; first < writes.size();) {
    const uint64_t begin = writes[first].offset;
    uint64_t end = writes[first].end();
    size_t last = first + 1;
    for (; last < writes.size(); ++last) {
      const ByteOverwrite& w = writes[last];
      if (w.offset < begin || w.offset > end + kJoinedGap ||
          std::max(end, w.end()) - begin > kLongestRun) {
        break;
      }
      end = std::max(end, w.end());
    }
    if (last == first + 1) {
      Status written = WriteAt(fd, begin, writes[first].bytes);
      if (!written.ok()) return written;
      first = last;
      continue;
    }
    run.assign(end - begin, 0);
    if (begin < file_size) {
      const uint64_t stored = std::min(end, file_size) - begin;
      Status read = ReadAt(fd, begin, std::span<uint8_t>(run.data(), stored));
      if (!read.ok()) return read;
    }
    for (size_t k = first; k < last; ++k) {
      std::copy(writes[k].bytes.begin(), writes[k].bytes.end(),
                run.begin() + static_cast<ptrdiff_t>(writes[k].offset - begin));
    }
    Status written = WriteAt(fd, begin, run);
    if (!written.ok()) return written;
    first = last;
  }
  return Status::Ok();
}

Status CheckOnDisk(int fd, const PteLayout& before, const PatchSet& patch, const Plan& plan) {
  Result<ReadOnlyMapping> mapping = ReadOnlyMapping::Map(fd);
  if (!mapping.ok()) return mapping.error();
  return CheckRewrittenFile(mapping->bytes(), before, patch, plan);
}

// The new file is built as new_file.h builds every new file: without a
// name, checked, then linked as OUT or renamed over it.
Status WriteCopyTo(int source_fd, const PteLayout& before, const PatchSet& patch, const Plan& plan,
                   const fs::path& out, const WriteOptions& options) {
  NewFileSteps steps;
  steps.fill = [&](int fd) {
    Status ok = Truncate(fd, patch.new_file_size);
    if (ok.ok()) ok = CopyUnchangedBytes(source_fd, fd, patch, options);
    if (ok.ok()) ok = WriteInRuns(fd, patch.AllWrites());
    return ok;
  };
  steps.check = [&](int fd) { return CheckOnDisk(fd, before, patch, plan); };
  steps.say = [&](const std::string& line) { Say(options, false, line); };
  return WriteNewFile(out, source_fd, steps);
}

// The journal: old and new bytes of every write, before any write happens.
// With a gap, the old bytes are those the file holds once the gap is open.
Result<Journal> RecordJournal(int fd, const PatchSet& patch,
                              const std::vector<ByteOverwrite>& writes,
                              const std::optional<FileGap>& gap) {
  Journal journal;
  journal.old_file_size = patch.old_file_size;
  journal.new_file_size = patch.new_file_size;
  journal.gap = gap;
  for (const ByteOverwrite& w : writes) {
    JournalRange range;
    range.offset = w.offset;
    range.new_bytes = w.bytes;
    if (gap) {
      range.old_bytes.resize(w.bytes.size());
      Status read = ReadAsIfOpen(fd, *gap, w.offset, range.old_bytes);
      if (!read.ok()) return read.error();
    } else if (w.offset < patch.old_file_size) {
      range.old_bytes.resize(std::min<uint64_t>(w.bytes.size(), patch.old_file_size - w.offset));
      Status read = ReadAt(fd, w.offset, range.old_bytes);
      if (!read.ok()) return read.error();
    }
    journal.ranges.push_back(std::move(range));
  }
  return journal;
}

}  // namespace

Status WritePatchedCopy(int source_fd, const PteLayout& before, const PatchSet& patch,
                        const Plan& plan, const fs::path& out, const WriteOptions& options) {
  return WriteCopyTo(source_fd, before, patch, plan, out, options);
}

Status WritePatchedInPlace(const WriterLock& lock, const PteLayout& before, const PatchSet& patch,
                           const Plan& plan, const WriteOptions& options) {
  const fs::path& file = lock.path();
  struct stat locked;
  if (::fstat(lock.fd(), &locked) != 0) return Error{std::string("fstat: ") + strerror(errno)};
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
      gap ? WritesAroundGap(fd, patch, *gap)
          : Result<std::vector<ByteOverwrite>>(patch.AllWrites());
  if (!writes.ok()) return writes.error();
  Result<Journal> journal = RecordJournal(fd, patch, *writes, gap);
  if (!journal.ok()) return journal.error();
  Status ok = WriteJournalDurably(file, *journal, patch.old_program_size);
  if (!ok.ok()) return ok;
  Say(options, false, "journal " + JournalPath(file).string() + " written");
  MaybeCrashAt("after-journal");

  if (gap) {
    MaybeCrashAt("before-insert");
    Result<GapOpened> opened = OpenGap(fd, *gap, patch.old_file_size);
    if (opened.ok() && *opened == GapOpened::kUnsupported) {
      // Nothing changed: drop the journal and copy, as -o does.
      ok = RemoveJournalDurably(file);
      if (!ok.ok()) return ok;
      Say(options, true, "segments copied: this filesystem cannot insert a range");
      return WriteCopyTo(fd, before, patch, plan, file, options);
    }
    ok = opened.ok() ? Status::Ok() : Status(opened.error());
    // The gap is made durable before any byte below it changes, so a power
    // loss cannot keep new header bytes without the gap they describe.
    if (ok.ok()) ok = SyncFile(fd);
    if (ok.ok()) {
      Say(options, false,
          "inserted " + std::to_string(gap->length) + " bytes at offset " +
              std::to_string(gap->offset) + ": no segment byte read or copied");
      MaybeCrashAt("after-insert");
      // Highest first, so the header (program_size, segment_base_offset)
      // is the last write.
      std::vector<ByteOverwrite> descending(writes->rbegin(), writes->rend());
      ok = WriteAll(fd, descending, /*crash_points=*/true);
      if (ok.ok()) MaybeCrashAt("after-header-update");
    }
  } else {
    // Grow first (zeros), so the size is always the old or the new one.
    if (patch.new_file_size > patch.old_file_size) ok = Truncate(fd, patch.new_file_size);
    if (ok.ok()) ok = WriteAll(fd, *writes, /*crash_points=*/true);
  }
  if (ok.ok()) ok = SyncFile(fd);
  if (ok.ok()) ok = CheckOnDisk(fd, before, patch, plan);
  if (!ok.ok()) {
    Status rolled_back = RollBack(fd, *journal);
    if (rolled_back.ok()) rolled_back = RemoveJournalDurably(file);
    if (!rolled_back.ok()) {
      return Error{ok.error().message + "; rolling back failed too (" +
                   rolled_back.error().message + "): the journal " + JournalPath(file).string() +
                   " stays for the next run to roll back"};
    }
    return Error{"refusing to finish, the file was rolled back: " + ok.error().message};
  }
  Say(options, false, std::to_string(writes->size()) + " ranges written and synced");
  MaybeCrashAt("before-journal-delete");
  return RemoveJournalDurably(file);
}

}  // namespace pteshare
