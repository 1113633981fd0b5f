// The rollback journal of an in-place rewrite, FILE.pteshare-journal: for
// every byte range the rewrite changes, the bytes before and after, plus the
// file's size before and after. It is made durable (written to a temporary
// name, fsynced, renamed, folder fsynced) before the first byte of FILE
// changes, and deleted only after the new bytes are durable and re-verified.
// So while it exists FILE may be a mix of old and new ranges, and rolling
// back (writing every old range, restoring the old size) always gives the
// input again.
//
// Every pteshare command looks for a journal before it reads FILE
// (OpenProgram) and rolls back under the writer lock. A journal is applied
// only if it belongs to FILE: the size is the recorded old or new size and
// every byte of every range equals its recorded old or new byte (a range may
// be torn by a power loss, so the check is per byte). Otherwise it is stale
// (left beside a file that was since replaced) and refused.
//
// A rewrite whose segments move opens a gap first (insert_range.h); its
// journal records the gap too, before the gap is opened. Its ranges are then
// in the coordinates of the file with the gap open, and their old bytes are
// what that file held right after opening it. The file's size tells how far
// it got: the old size, the gap is not open (or was closed again) and
// nothing above it was written; the new size, it is open and ranges may be
// written. Rolling back writes the old ranges, then closes the gap
// (COLLAPSE_RANGE); with the gap closed, only the parts below it.
//
// Encoding, little-endian: "PTESHJ01" (no gap) or "PTESHJ02" (gap),
// old_file_size u64, new_file_size u64, with PTESHJ02 gap offset u64 and
// gap length u64, range_count u64, per range {offset u64, length u64,
// old_length u64, old bytes, new bytes}, then an FNV-1a 64 checksum of all
// that.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "rewriter/insert_range.h"
#include "rewriter/result.h"
#include "rewriter/writer_lock.h"

namespace pteshare {

/// One changed range. old_bytes holds only the part that lay inside the old
/// file (shorter than new_bytes when the file grows).
struct JournalRange {
  uint64_t offset = 0;
  std::vector<uint8_t> old_bytes;
  std::vector<uint8_t> new_bytes;
};

struct Journal {
  uint64_t old_file_size = 0;
  uint64_t new_file_size = 0;
  std::vector<JournalRange> ranges;  // sorted by offset, disjoint
  /// The gap the rewrite opens (new_file_size = old_file_size + its length).
  std::optional<FileGap> gap;
};

/// FILE.pteshare-journal, and the temporary name it is written under.
std::filesystem::path JournalPath(const std::filesystem::path& file);
std::filesystem::path JournalTempPath(const std::filesystem::path& file);
/// FILE.pteshare-tmp: the new file an in-place rewrite that moves segments
/// builds before renaming it over FILE (under the writer lock).
std::filesystem::path InPlaceTempPath(const std::filesystem::path& file);

std::vector<uint8_t> EncodeJournal(const Journal& journal);
Result<Journal> DecodeJournal(std::span<const uint8_t> bytes);

/// Writes the journal beside `file` durably (see above).
Status WriteJournalDurably(const std::filesystem::path& file, const Journal& journal);
/// Deletes the journal and makes the deletion durable.
Status RemoveJournalDurably(const std::filesystem::path& file);

/// Checks that `journal` belongs to the open file `fd` (see above); the
/// error names the first size or range that matches neither.
Status CheckJournalBelongs(int fd, const Journal& journal);
/// Writes every old range back, restores the old size, fsyncs.
Status RollBack(int fd, const Journal& journal);

enum class Recovery { kNothingToDo, kRolledBack };

/// With the lock held: rolls back an interrupted rewrite of the locked file
/// if its journal is there, refuses a stale one, and removes temporaries an
/// interrupted rewrite left (they never became FILE).
Result<Recovery> RecoverLocked(const WriterLock& lock);

/// For readers: if FILE has a journal or temporaries, takes the writer lock
/// (waiting for a live writer to finish) and recovers as above.
Result<Recovery> RecoverInterruptedRewrite(const std::filesystem::path& file);

}  // namespace pteshare
