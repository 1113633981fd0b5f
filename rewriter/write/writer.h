// Writer: puts a PatchSet on disk so that, whatever happens, the target
// ends up as either the old file or the new one, never a mix.
//
//  - WritePatchedCopy (-o OUT, and in-place rewrites that move segments on
//    a filesystem that cannot insert a range):
//    builds the result in a temporary file in OUT's folder (unchanged bytes
//    copied inside the kernel, segment bytes never read by pteshare), writes
//    the patches, fsyncs, re-reads and checks it (rewrite_check.h), renames
//    it over OUT and fsyncs the folder.
//  - WritePatchedInPlace (--in-place): with the writer lock held, writes
//    the rollback journal (journal.h) durably; if the segments move, opens a
//    gap under them with FALLOC_FL_INSERT_RANGE (gap_writes.h: the
//    filesystem shifts extents, no segment byte is read or copied, the
//    inode stays); writes the patches with pwrite (the header last), fsyncs,
//    re-reads and checks the file (rolling back if the check fails), then
//    deletes the journal. The time does not depend on the size of the
//    segments. Where the filesystem cannot insert a range (tmpfs, ...), it
//    says "segments copied: this filesystem cannot insert a range" and
//    falls back to the copy and rename above.
// Both give byte-identical results for the same PatchSet. Test-only crash
// points: crash_points.h.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "rewriter/base/result.h"
#include "rewriter/io/file_system.h"
#include "rewriter/patch/patcher.h"
#include "rewriter/plan/plan.h"
#include "rewriter/program/pte_layout.h"
#include "rewriter/write/writer_lock.h"

namespace pteshare {

/// Segment moves larger than this report progress by default.
inline constexpr uint64_t kReportedMoveBytes = uint64_t{100} << 20;

struct WriteOptions {
  /// Receives progress lines (a segment move > report_moves_over bytes, or
  /// every step when verbose); may be empty.
  std::function<void(const std::string&)> progress;
  bool verbose = false;
  /// A segment move of more bytes than this says what it moves and reports
  /// every tenth of it; a front end that shows a progress bar may lower it.
  uint64_t report_moves_over = kReportedMoveBytes;
  /// What WritePatchedCopy writes through (file_system.h); null is the
  /// real one. WritePatchedInPlace uses the lock's (WriterLock::files()).
  FileSystem* file_system = nullptr;
};

/// Writes the input (read through `source_fd`) with `patch` applied to
/// `out`. `before` is the input's layout, `plan` what the result must say.
/// `out` may name the input itself.
Status WritePatchedCopy(int source_fd, const PteLayout& before, const PatchSet& patch,
                        const Plan& plan, const std::filesystem::path& out,
                        const WriteOptions& options = {});

/// Applies `patch` to the locked file itself (see above).
Status WritePatchedInPlace(const WriterLock& lock, const PteLayout& before, const PatchSet& patch,
                           const Plan& plan, const WriteOptions& options = {});

}  // namespace pteshare
