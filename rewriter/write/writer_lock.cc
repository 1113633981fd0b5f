#include "rewriter/write/writer_lock.h"

#include "rewriter/io/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace pteshare {

namespace {

// A file replaced this many times while we waited is being rewritten in a
// loop by someone else; give up rather than spin.
constexpr int kMaxReplacedRetries = 16;

bool SameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

WriterLock::WriterLock(WriterLock&&) noexcept = default;
WriterLock& WriterLock::operator=(WriterLock&&) noexcept = default;
WriterLock::~WriterLock() = default;

Result<WriterLock> WriterLock::Acquire(const std::filesystem::path& file,
                                       const std::function<void()>& on_wait, FileSystem& files) {
  // The lock, the journal and any rename belong to the file, not to the
  // name it was reached by: a symbolic link is resolved once, here.
  Result<std::filesystem::path> real = ResolveLinks(file);
  if (!real.ok()) return real.error();
  bool told = false;
  for (int attempt = 0; attempt < kMaxReplacedRetries; ++attempt) {
    WriterLock held;
    held.path_ = *real;
    held.files_ = &files;
    // O_NONBLOCK: a FIFO swapped in for the file must not hang the open.
    Result<UniqueFd> fd = files.OpenChecked(held.path_, O_RDWR | O_NONBLOCK);
    if (!fd.ok()) return Error{"cannot open for writing: " + fd.error().message};
    held.fd_ = std::move(fd).value();
    struct stat locked_file;
    if (const int err = files.StatFd(held.fd_.get(), &locked_file); err != 0) {
      return Error{std::string("fstat failed: ") + std::strerror(err)};
    }
    if (!S_ISREG(locked_file.st_mode)) {
      return Error{"is " + FileTypeName(locked_file.st_mode) + ", not a regular file"};
    }
    int failed = files.LockWholeFile(held.fd_.get(), LockWait::kTry);
    if (failed == EAGAIN || failed == EACCES) {
      if (on_wait && !told) on_wait();
      told = true;
      failed = files.LockWholeFile(held.fd_.get(), LockWait::kWait);
    }
    if (failed != 0) {
      return Error{std::string("cannot lock the file for writing: ") + std::strerror(failed)};
    }
    struct stat now;
    if (const int err = files.StatPath(held.path_, &now); err != 0) {
      // Only a missing name means it went away; an I/O error says itself.
      return Error{std::string(err == ENOENT ? "the file disappeared while waiting for the lock: "
                                             : "cannot stat the file after locking it: ") +
                   std::strerror(err)};
    }
    if (SameFile(now, locked_file)) return held;
    // Another writer renamed a new version over the path while we waited:
    // the lock we hold is on the old inode. Start over on the new file.
  }
  return Error{"the file was replaced " + std::to_string(kMaxReplacedRetries) +
               " times while waiting for the write lock; is another program rewriting it?"};
}

}  // namespace pteshare
