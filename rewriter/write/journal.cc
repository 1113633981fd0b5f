#include "rewriter/write/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

#include "pte_header.h"
#include "rewriter/base/grouped.h"
#include "rewriter/io/file_io.h"
#include "rewriter/program/pte_layout.h"
#include "rewriter/write/pending_file.h"
#include "wire.h"

namespace pteshare {
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[9] = "PTESHJ01";
constexpr char kMagicWithGap[9] = "PTESHJ02";
constexpr char kMagicWithFlags[9] = "PTESHJ03";
constexpr size_t kMagicSize = 8;
constexpr uint64_t kFlagGap = 1;
constexpr uint64_t kFlagIdentifier = 2;
constexpr uint64_t kIdentifierAt = PteConstants::kIdentifierOffset;
// Bounds a corrupt count before it turns into a huge allocation.
constexpr uint64_t kMaxRanges = uint64_t{1} << 24;

uint64_t Fnv1a64(std::span<const uint8_t> bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) {
    hash ^= b;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

void PutU64(std::vector<uint8_t>& out, uint64_t v) {
  uint8_t bytes[8];
  wire::StoreU64(bytes, v);
  out.insert(out.end(), bytes, bytes + 8);
}

// Reads the encoding front to back, refusing to run past its end.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  bool U64(uint64_t* v) {
    if (bytes_.size() - at_ < 8) return false;
    *v = wire::LoadU64(bytes_.data() + at_);
    at_ += 8;
    return true;
  }
  bool Bytes(uint64_t n, std::vector<uint8_t>* out) {
    if (bytes_.size() - at_ < n) return false;
    out->assign(bytes_.begin() + at_, bytes_.begin() + at_ + n);
    at_ += n;
    return true;
  }
  size_t remaining() const { return bytes_.size() - at_; }

 private:
  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
};

Result<Journal> ReadJournalFile(const fs::path& path, uint64_t max_bytes, FileSystem& files) {
  Result<std::vector<uint8_t>> bytes = files.ReadBoundedRegularFile(path, max_bytes);
  if (!bytes.ok()) return bytes.error();
  return DecodeJournal(*bytes);
}

// The program size the open file `fd` declares (extended header, else its
// size), capped by the file size: what bounds its journal.
uint64_t DeclaredProgramSize(int fd, FileSystem& files) {
  Result<uint64_t> size = files.FileSize(fd);
  if (!size.ok()) return 0;
  uint8_t head[PteConstants::kHeaderOffset + PteConstants::kHeaderLengthWithDataSize] = {};
  const uint64_t n = std::min<uint64_t>(*size, sizeof head);
  if (!files.ReadAt(fd, 0, {head, static_cast<size_t>(n)}).ok()) return *size;
  Result<ExtendedHeader> header = ReadExtendedHeader({head, static_cast<size_t>(n)});
  if (!header.ok() || !header->present) return *size;
  return std::min(header->program_size, *size);
}

std::string Describe(const fs::path& journal) { return "journal " + journal.string(); }

}  // namespace

fs::path JournalPath(const fs::path& file) { return fs::path(file.string() + ".pteshare-journal"); }

uint64_t MaxJournalBytes(uint64_t program_size) { return 64 + 16 * program_size; }

std::array<uint8_t, 4> RewritingMark() {
  std::array<uint8_t, 4> mark;
  std::memcpy(mark.data(), PteConstants::kRewritingIdentifier, 4);
  return mark;
}

std::vector<uint8_t> EncodeJournal(const Journal& journal) {
  // Without an identifier, the version-1/2 encoding (for tests of old
  // journals); every writer now records one.
  const char* magic = journal.identifier ? kMagicWithFlags : journal.gap ? kMagicWithGap : kMagic;
  std::vector<uint8_t> out(magic, magic + kMagicSize);
  PutU64(out, journal.old_file_size);
  PutU64(out, journal.new_file_size);
  if (journal.identifier) {
    PutU64(out, (journal.gap ? kFlagGap : 0) | kFlagIdentifier);
  }
  if (journal.gap) {
    PutU64(out, journal.gap->offset);
    PutU64(out, journal.gap->length);
  }
  if (journal.identifier) {
    uint8_t padded[8] = {};
    std::memcpy(padded, journal.identifier->data(), 4);
    out.insert(out.end(), padded, padded + 8);
  }
  PutU64(out, journal.ranges.size());
  for (const JournalRange& r : journal.ranges) {
    PutU64(out, r.offset);
    PutU64(out, r.new_bytes.size());
    PutU64(out, r.old_bytes.size());
    out.insert(out.end(), r.old_bytes.begin(), r.old_bytes.end());
    out.insert(out.end(), r.new_bytes.begin(), r.new_bytes.end());
  }
  PutU64(out, Fnv1a64(out));
  return out;
}

Result<Journal> DecodeJournal(std::span<const uint8_t> bytes) {
  auto is = [&](const char* magic) { return std::memcmp(bytes.data(), magic, kMagicSize) == 0; };
  if (bytes.size() < kMagicSize + 8 || !(is(kMagic) || is(kMagicWithGap) || is(kMagicWithFlags))) {
    return Error{"is not a pteshare journal (no PTESHJ01, PTESHJ02 or PTESHJ03 magic)"};
  }
  const std::span<const uint8_t> body = bytes.first(bytes.size() - 8);
  const uint64_t stored_sum = wire::LoadU64(bytes.data() + body.size());
  if (Fnv1a64(body) != stored_sum) {
    return Error{"is corrupt: its checksum does not match its " + Grouped(bytes.size()) + " bytes"};
  }
  Reader in(body.subspan(kMagicSize));
  Journal journal;
  uint64_t count = 0;
  if (!in.U64(&journal.old_file_size) || !in.U64(&journal.new_file_size)) {
    return Error{"is corrupt: truncated header"};
  }
  uint64_t flags = is(kMagicWithGap) ? kFlagGap : 0;
  if (is(kMagicWithFlags) && (!in.U64(&flags) || (flags & ~(kFlagGap | kFlagIdentifier)) != 0)) {
    return Error{"is corrupt: truncated header or unknown flags " + std::to_string(flags)};
  }
  if (flags & kFlagGap) {
    FileGap gap;
    if (!in.U64(&gap.offset) || !in.U64(&gap.length) ||
        journal.new_file_size - journal.old_file_size != gap.length) {
      return Error{"is corrupt: its gap does not account for the change of size"};
    }
    journal.gap = gap;
  }
  if (flags & kFlagIdentifier) {
    std::vector<uint8_t> padded;
    if (!in.Bytes(8, &padded)) return Error{"is corrupt: truncated identifier"};
    journal.identifier.emplace();
    std::copy_n(padded.begin(), 4, journal.identifier->begin());
  }
  if (!in.U64(&count) || count > kMaxRanges) {
    return Error{"is corrupt: truncated header or " + std::to_string(count) + " ranges"};
  }
  for (uint64_t i = 0; i < count; ++i) {
    JournalRange r;
    uint64_t length = 0, old_length = 0;
    if (!in.U64(&r.offset) || !in.U64(&length) || !in.U64(&old_length) || old_length > length ||
        !in.Bytes(old_length, &r.old_bytes) || !in.Bytes(length, &r.new_bytes)) {
      return Error{"is corrupt: range " + std::to_string(i) + " of " + std::to_string(count) +
                   " is truncated or longer than its new bytes"};
    }
    journal.ranges.push_back(std::move(r));
  }
  if (in.remaining() != 0) {
    return Error{"is corrupt: " + Grouped(in.remaining()) + " bytes after the last range"};
  }
  return journal;
}

Status WriteJournalDurably(const fs::path& file, const Journal& journal, uint64_t program_size,
                           FileSystem& files) {
  std::vector<uint8_t> bytes = EncodeJournal(journal);
  if (bytes.size() > MaxJournalBytes(program_size)) {
    return Error{"the journal would be " + Grouped(bytes.size()) +
                 " bytes, more than a later reader accepts for this file (" +
                 Grouped(MaxJournalBytes(program_size)) + "); refusing before writing"};
  }
  // Nameless until complete and durable (pending_file.h): a full disk or a
  // kill while writing leaves no file behind. Readable by whoever may read
  // the file, so a reader who cannot roll it back can be told what it holds.
  struct stat st;
  const unsigned mode = files.StatPath(file, &st) == 0 ? (st.st_mode & 0666) : 0600;
  Result<PendingFile> pending = PendingFile::Create(JournalPath(file), mode, files);
  if (!pending.ok()) return Error{"cannot create the journal: " + pending.error().message};
  Status written = files.WriteAt(pending->fd(), 0, bytes);
  if (written.ok()) written = files.SyncFile(pending->fd());
  if (!written.ok()) return Error{"cannot write the journal: " + written.error().message};
  Status published = pending->Publish(/*replace=*/false);
  if (!published.ok()) {
    // Linked but not durable (its folder's fsync failed): the writer stops
    // before changing a byte, so the journal would only make the next
    // reader roll back a file that never changed. Best effort: if this
    // unlink fails too, that rollback still changes nothing.
    if (pending->published()) files.Unlink(JournalPath(file));
    return Error{"cannot put the journal in place: " + published.error().message};
  }
  return Status::Ok();
}

Status RemoveJournalDurably(const fs::path& file, FileSystem& files) {
  // A journal already gone is no error (as std::filesystem::remove has it).
  if (const int err = files.Unlink(JournalPath(file)); err != 0 && err != ENOENT) {
    return Error{std::string("cannot delete the journal: ") + std::strerror(err)};
  }
  // Past the point of no return: the file holds the result. Say so, and
  // what a crash could still undo, rather than let the error read as "the
  // input is as it was" (result.h's kIo).
  if (Status synced = files.SyncFolderOf(file); !synced.ok()) {
    return Error{"the file is rewritten and its journal deleted, but " + synced.error().message +
                     ": after a crash the journal may be back, and the next pteshare command "
                     "would roll the rewrite back",
                 ErrorKind::kIo};
  }
  return Status::Ok();
}

namespace {

bool GapOpen(const Journal& journal, uint64_t size) {
  return journal.gap && size == journal.new_file_size;
}

bool InIdentifier(uint64_t at) { return at >= kIdentifierAt && at < kIdentifierAt + 4; }

// The rewriting mark's byte if the mark may lie at `at` of the file as it
// is: at the identifier, and with a gap open at or below the identifier,
// also where the gap moved the mark written before it opened.
std::optional<uint8_t> MarkByteAt(const Journal& journal, bool gap_open, uint64_t at) {
  if (!journal.identifier) return std::nullopt;
  if (InIdentifier(at)) return RewritingMark()[at - kIdentifierAt];
  if (gap_open && journal.gap->offset <= kIdentifierAt && at >= journal.gap->length &&
      InIdentifier(at - journal.gap->length)) {
    return RewritingMark()[at - journal.gap->length - kIdentifierAt];
  }
  return std::nullopt;
}

std::string RangeProblem(const Journal& journal, size_t i, const std::string& what, uint64_t at) {
  const JournalRange& r = journal.ranges[i];
  return "journal range " + std::to_string(i) + " (" + Grouped(r.new_bytes.size()) +
         " bytes at offset " + Grouped(r.offset) + ") " + what + " at offset " + Grouped(at);
}

// With the gap not (or no longer) open, the bytes a range covers above the
// gap are its old bytes, read where they are before the gap opens (nothing
// is written there before it opens); below it, old or new (the writer makes
// the gap durable before writing there, but a rollback may have been cut
// short after closing it); the gap's own bytes do not exist.
Status CheckClosedGap(int fd, const Journal& journal, size_t i, FileSystem& files) {
  const JournalRange& r = journal.ranges[i];
  const FileGap& gap = *journal.gap;
  for (uint64_t k = 0; k < r.old_bytes.size(); ++k) {
    const uint64_t at = r.offset + k;
    if (at >= gap.offset && at < gap.offset + gap.length) continue;
    const uint64_t now_at = at < gap.offset ? at : at - gap.length;
    uint8_t now = 0;
    Status read = files.ReadAt(fd, now_at, {&now, 1});
    if (!read.ok()) return read;
    if (now == r.old_bytes[k] || (at < gap.offset && now == r.new_bytes[k]) ||
        MarkByteAt(journal, /*gap_open=*/false, now_at) == now) {
      continue;
    }
    return Error{RangeProblem(journal, i, "does not match the file before its gap opened", at)};
  }
  return Status::Ok();
}

// The identifier bytes, where no range covers them (every rewrite but one
// whose gap opens at byte 0): the recorded identifier or the mark.
Status CheckIdentifier(int fd, const Journal& journal, bool gap_open, FileSystem& files) {
  if (!journal.identifier || (gap_open && journal.gap->offset <= kIdentifierAt)) {
    return Status::Ok();
  }
  std::array<uint8_t, 4> now{};
  Status read = files.ReadAt(fd, kIdentifierAt, now);
  if (!read.ok()) return read;
  if (now == *journal.identifier || now == RewritingMark()) return Status::Ok();
  return Error{"the file's identifier is '" + pte_header::Printable(now.data()) +
               "', neither the journal's '" + pte_header::Printable(journal.identifier->data()) +
               "' nor the rewriting mark"};
}

// Writes back the bytes of [offset, offset + old_bytes.size()) that differ
// from `old_bytes`, except those `skip` says: a byte already right costs no
// write, so no block is allocated for it (a full disk cannot stop this).
Status WriteBackDiffering(int fd, uint64_t offset, std::span<const uint8_t> old_bytes,
                          const std::function<bool(uint64_t at)>& skip, FileSystem& files) {
  std::vector<uint8_t> now(old_bytes.size());
  Status read = files.ReadAt(fd, offset, now);
  if (!read.ok()) return read;
  size_t k = 0;
  while (k < now.size()) {
    if (now[k] == old_bytes[k] || skip(offset + k)) {
      ++k;
      continue;
    }
    size_t end = k + 1;
    while (end < now.size() && now[end] != old_bytes[end] && !skip(offset + end)) ++end;
    Status written = files.WriteAt(fd, offset + k, old_bytes.subspan(k, end - k));
    if (!written.ok()) return written;
    k = end;
  }
  return Status::Ok();
}

}  // namespace

Status CheckJournalBelongs(int fd, const Journal& journal, FileSystem& files) {
  Result<uint64_t> size = files.FileSize(fd);
  if (!size.ok()) return size.error();
  if (*size != journal.old_file_size && *size != journal.new_file_size) {
    return Error{"the file is " + Grouped(*size) +
                 " bytes but the journal was written for a file of " +
                 Grouped(journal.old_file_size) + " bytes (" + Grouped(journal.new_file_size) +
                 " after the rewrite)"};
  }
  const bool gap_open = GapOpen(journal, *size);
  Status identifier = CheckIdentifier(fd, journal, gap_open, files);
  if (!identifier.ok()) return identifier;
  for (size_t i = 0; i < journal.ranges.size(); ++i) {
    const JournalRange& r = journal.ranges[i];
    if (journal.gap && !gap_open) {
      Status closed = CheckClosedGap(fd, journal, i, files);
      if (!closed.ok()) return closed;
      continue;
    }
    if (r.offset >= *size) continue;  // past the end of a file not yet grown
    const uint64_t present = std::min<uint64_t>(r.new_bytes.size(), *size - r.offset);
    std::vector<uint8_t> now(present);
    Status read = files.ReadAt(fd, r.offset, now);
    if (!read.ok()) return read.error();
    for (uint64_t k = 0; k < present; ++k) {
      const bool is_new = now[k] == r.new_bytes[k];
      const bool is_old = k < r.old_bytes.size() ? now[k] == r.old_bytes[k] : now[k] == 0;
      if (!is_new && !is_old && MarkByteAt(journal, gap_open, r.offset + k) != now[k]) {
        return Error{RangeProblem(journal, i, "matches neither its recorded old nor new bytes",
                                  r.offset + k)};
      }
    }
  }
  return Status::Ok();
}

Status RollBack(int fd, const Journal& journal, FileSystem& files) {
  Result<uint64_t> size = files.FileSize(fd);
  if (!size.ok()) return size.error();
  const bool gap_open = GapOpen(journal, *size);
  const bool gap_closed = journal.gap && !gap_open;
  // The identifier is restored last; an open gap's bytes are discarded by
  // closing it.
  const auto skip = [&](uint64_t at) {
    if (journal.identifier && InIdentifier(at)) return true;
    return gap_open && at >= journal.gap->offset && at < journal.gap->offset + journal.gap->length;
  };
  for (const JournalRange& r : journal.ranges) {
    std::span<const uint8_t> old_bytes = r.old_bytes;
    if (gap_closed) {  // only what lies below the gap exists yet
      if (r.offset >= journal.gap->offset) continue;
      old_bytes =
          old_bytes.first(std::min<uint64_t>(old_bytes.size(), journal.gap->offset - r.offset));
    }
    Status written = WriteBackDiffering(fd, r.offset, old_bytes, skip, files);
    if (!written.ok()) return written;
  }
  Status synced = files.SyncFile(fd);
  if (!synced.ok()) return synced;
  if (gap_open) {
    // The old bytes are durable before the gap closes, so a crash while
    // closing it leaves a file this rollback can start again on.
    Status closed = CloseGap(fd, *journal.gap, journal.old_file_size, files);
    if (!closed.ok()) return closed;
  } else if (!journal.gap && *size != journal.old_file_size) {
    Status truncated = files.Truncate(fd, journal.old_file_size);
    if (!truncated.ok()) return truncated;
  }
  synced = files.SyncFile(fd);
  if (!synced.ok() || !journal.identifier) return synced;
  // Last: until now the file said it is neither the input nor the result.
  Status restored = WriteBackDiffering(
      fd, kIdentifierAt, *journal.identifier, [](uint64_t) { return false; }, files);
  if (!restored.ok()) return restored;
  return files.SyncFile(fd);
}

Result<Recovery> RecoverLocked(const WriterLock& lock) {
  const fs::path& file = lock.path();
  FileSystem& files = lock.files();
  const fs::path journal_path = JournalPath(file);
  struct stat st;
  if (files.StatLink(journal_path, &st) != 0) return Recovery::kNothingToDo;

  Result<Journal> journal =
      ReadJournalFile(journal_path, MaxJournalBytes(DeclaredProgramSize(lock.fd(), files)), files);
  if (!journal.ok()) {
    return Error{Describe(journal_path) + " " + journal.error().message +
                 "; refusing to roll back with it (move it away if FILE is known good)"};
  }
  Status belongs = CheckJournalBelongs(lock.fd(), *journal, files);
  if (!belongs.ok()) {
    return Error{"stale " + Describe(journal_path) +
                 " does not belong to this file: " + belongs.error().message +
                 "; refusing to apply it (delete it if FILE is known good)"};
  }
  Status rolled_back = RollBack(lock.fd(), *journal, files);
  if (!rolled_back.ok()) {
    return Error{"rolling back the interrupted rewrite failed: " + rolled_back.error().message};
  }
  Status removed = RemoveJournalDurably(file, files);
  if (!removed.ok()) return removed.error();
  return Recovery::kRolledBack;
}

Result<Recovery> RecoverInterruptedRewrite(const fs::path& file) {
  // The journal lies beside the file's real name (writer_lock.h), whatever
  // link it is reached through.
  Result<fs::path> real = ResolveLinks(file);
  if (!real.ok()) return Recovery::kNothingToDo;  // the reader says what is wrong
  const fs::path journal_path = JournalPath(*real);
  struct stat st;
  if (::lstat(journal_path.c_str(), &st) != 0) return Recovery::kNothingToDo;
  if (::faccessat(AT_FDCWD, real->c_str(), W_OK, AT_EACCESS) != 0) {
    // A reader who may not write the file (or a read-only mount) cannot
    // roll it back; say what was found, read-only, rather than guess.
    const std::string why = std::strerror(errno);
    // The bound comes from the file's header, as for a writer (this process
    // holds no lock on the file here, so a descriptor may come and go).
    Result<UniqueFd> fd = OpenFd(*real, O_RDONLY | O_NONBLOCK);
    RealFileSystem& files = RealFileSystem::Instance();
    const uint64_t bound = MaxJournalBytes(fd.ok() ? DeclaredProgramSize(fd->get(), files) : 0);
    Result<Journal> journal = ReadJournalFile(journal_path, bound, files);
    if (!journal.ok()) {
      return Error{Describe(journal_path) + " " + journal.error().message +
                   "; and this user may not write the file to deal with it (" + why + ")"};
    }
    return Error{Describe(journal_path) +
                 " holds an interrupted rewrite that must be rolled back before the file can be "
                 "read, but this user may not write the file (" +
                 why + "); run pteshare as a user who may"};
  }
  Result<WriterLock> lock = WriterLock::Acquire(*real);
  if (!lock.ok()) {
    return Error{"found the journal " + journal_path.string() + " but " + lock.error().message};
  }
  return RecoverLocked(*lock);
}

}  // namespace pteshare
