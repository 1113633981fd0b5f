#include "rewriter/open_program.h"

#include "rewriter/io/file_io.h"
#include "rewriter/write/journal.h"

#include <sys/stat.h>

#include <optional>

namespace pteshare {

namespace {

// Read attempts before giving up on a file that keeps changing under us.
constexpr int kMaxReadAttempts = 8;

// What changes when anyone writes the file: an in-place rewrite (even one
// that starts and ends while we read) changes the size or the times, a
// rename gives another inode.
struct Identity {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{}, ctime{};

  bool operator==(const Identity& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
           mtime.tv_nsec == o.mtime.tv_nsec && ctime.tv_sec == o.ctime.tv_sec &&
           ctime.tv_nsec == o.ctime.tv_nsec;
  }
};

std::optional<Identity> IdentityOf(const std::filesystem::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return Identity{st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim};
}

// The program's view of a file just read, for every way of opening one.
Result<OpenedProgram> WithView(Result<PteFile> file, std::string notice) {
  if (!file.ok()) return file.error();
  Result<ProgramView> view = ReadProgramView(*file->program(), file->layout());
  if (!view.ok()) return view.error();
  return OpenedProgram{std::move(file).value(), std::move(view).value(), std::move(notice)};
}

}  // namespace

Result<OpenedProgram> OpenProgram(const std::filesystem::path& path) {
  std::string notice;
  for (int attempt = 0;; ++attempt) {
    // An interrupted in-place rewrite may have left the file half-patched;
    // every command rolls it back (under the writer lock) before reading.
    // A live writer holds that lock, so this also waits for it to finish.
    Result<Recovery> recovery = RecoverInterruptedRewrite(path);
    if (!recovery.ok()) return recovery.error();
    // The journal sits beside the file itself, whatever link reached it.
    Result<std::filesystem::path> real = ResolveLinks(path);
    const std::filesystem::path journal = JournalPath(real.ok() ? *real : path);
    if (*recovery == Recovery::kRolledBack) {
      notice = "rolled back an interrupted rewrite (journal " + journal.string() +
               "); the file is as it was before that rewrite";
    }
    const std::optional<Identity> before = IdentityOf(path);
    Result<PteFile> file = PteFile::Open(path);
    // A writer that began while we read (its journal appeared, or the file
    // changed) may have shown us a mix of old and new bytes: read again,
    // after it is done.
    std::error_code ec;
    // (A file that cannot be stat'ed cannot be read either: no retry.)
    const bool changed =
        before && (std::filesystem::exists(journal, ec) || IdentityOf(path) != before);
    if (changed && attempt + 1 < kMaxReadAttempts) continue;
    return WithView(std::move(file), std::move(notice));
  }
}

Result<OpenedProgram> OpenLockedProgram(const WriterLock& lock) {
  return WithView(PteFile::Open(lock.path()), "");
}

Result<OpenedProgram> OpenProgramBytes(std::span<const uint8_t> bytes) {
  return WithView(PteFile::FromBytes(bytes), "");
}

}  // namespace pteshare
