// The rollback journal of an in-place rewrite, FILE.pteshare-journal: for
// every byte range the rewrite changes, the bytes before and after, plus the
// file's size before and after. It is made durable (written without a name,
// fsynced, linked into place, folder fsynced) before the first byte of FILE
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
// The journal is created without a name and linked in place only when
// complete and fsynced, so no temporary name exists (pending_file.h).
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
// The file says it too, through any name (a bind mount, another mount
// namespace, a copy): from just after its journal is durable until just
// before the journal is deleted, its identifier (bytes [4, 8)) reads
// PteConstants::kRewritingIdentifier, which no reader takes for a program.
// The mark is written and fsynced before any other byte changes (before the
// gap opens), every write of the rewrite keeps it, and the real identifier
// is written back and fsynced only once everything else is; a rollback
// restores it last. So a file that is neither the input nor the result is
// never a program, whoever reads it; the journal's identifier field says
// what to restore.
//
// A rollback never needs a free block: it writes only the bytes that
// differ from their old value (a byte the failed write never reached costs
// nothing, not even where it is a hole), skips what lies inside an open gap
// (closing the gap discards those bytes), and overwrites everything else in
// place; closing the gap frees blocks. So a full disk that stops a rewrite
// cannot stop its rollback.
//
// Encoding, little-endian: "PTESHJ03", old_file_size u64, new_file_size
// u64, flags u64 (1: a gap, 2: an identifier), the gap's offset u64 and
// length u64 if flagged, the identifier as a u64 (4 bytes, 4 zeros) if
// flagged, range_count u64, per range {offset u64, length u64, old_length
// u64, old bytes, new bytes}, then an FNV-1a 64 checksum of all that.
// Journals of earlier versions ("PTESHJ01": no gap, "PTESHJ02": a gap,
// neither with flags nor an identifier) are still read.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/io/file_system.h"
#include "rewriter/write/insert_range.h"
#include "rewriter/write/writer_lock.h"

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
  /// The file's identifier, which the rewrite replaces with the rewriting
  /// mark while this journal exists and a rollback restores last.
  std::optional<std::array<uint8_t, 4>> identifier;
};

/// The rewriting mark's bytes (PteConstants::kRewritingIdentifier).
std::array<uint8_t, 4> RewritingMark();

/// FILE.pteshare-journal, beside the file's real name (links resolved).
std::filesystem::path JournalPath(const std::filesystem::path& file);

/// The largest journal a rewrite of a file whose flatbuffer is
/// `program_size` bytes may write: overwrites lie inside the flatbuffer
/// (each range of at least 4 bytes costs at most 8 journal bytes per byte),
/// which leaves room for appended tables up to four times the flatbuffer
/// (real programs append 16 bytes per distinct placement). The writer
/// refuses a larger journal before writing anything; a reader reads nothing
/// larger (the bound comes from the header of the file beside it).
uint64_t MaxJournalBytes(uint64_t program_size);

std::vector<uint8_t> EncodeJournal(const Journal& journal);
Result<Journal> DecodeJournal(std::span<const uint8_t> bytes);

/// Writes the journal beside `file` durably (see above); it has no name
/// until it is complete and fsynced (pending_file.h). `program_size`: the
/// input's, for MaxJournalBytes. Each function here makes its calls through
/// `files` (file_system.h).
Status WriteJournalDurably(const std::filesystem::path& file, const Journal& journal,
                           uint64_t program_size, FileSystem& files = RealFileSystem::Instance());
/// Deletes the journal and makes the deletion durable.
Status RemoveJournalDurably(const std::filesystem::path& file,
                            FileSystem& files = RealFileSystem::Instance());

/// Checks that `journal` belongs to the open file `fd` (see above); the
/// error names the first size or range that matches neither.
Status CheckJournalBelongs(int fd, const Journal& journal,
                           FileSystem& files = RealFileSystem::Instance());
/// Writes every old range back (only bytes that differ, nothing inside an
/// open gap), closes the gap or restores the old size, fsyncs, then writes
/// the identifier back and fsyncs again. Needs no free space.
Status RollBack(int fd, const Journal& journal, FileSystem& files = RealFileSystem::Instance());

enum class Recovery { kNothingToDo, kRolledBack };

/// With the lock held: rolls back an interrupted rewrite of the locked file
/// if its journal is there and refuses a stale one. Only a regular file no
/// larger than MaxJournalBytes (from the file's header) is read as a
/// journal; a FIFO, a link or a huge file is a one-line error. Nothing else
/// is deleted: temporaries are pending_file.h's business. Through the
/// lock's file system.
Result<Recovery> RecoverLocked(const WriterLock& lock);

/// For readers: if FILE has a journal, takes the writer lock (waiting for
/// a live writer to finish) and recovers as above. A user who may not write
/// FILE is told what was found (a journal to roll back, or a file that is
/// no journal), not that it cannot lock.
Result<Recovery> RecoverInterruptedRewrite(const std::filesystem::path& file);

}  // namespace pteshare
