// WriterLock: the exclusive lock every pteshare writer of a .pte in place
// holds, so two writers (or a writer and a journal recovery) never
// interleave, whether they are two processes or two threads of one. It is
// an open-file-description lock (fcntl F_OFD_SETLKW) over the whole file,
// taken on the lock's own read-write descriptor: it conflicts with every
// other open of the file, in this process too (a classic fcntl record lock
// belongs to the process, so it never excludes a second thread, and closing
// any descriptor of the file would drop it), and it lasts until that
// descriptor is closed. All in-place work goes through that descriptor.
//
// A writer that moves segments replaces the file by rename, so a process
// that waited for the lock may hold it on the old, unlinked inode. Acquire
// therefore checks after locking that the path still names the locked file,
// and starts over if it does not.
#pragma once

#include <filesystem>
#include <functional>

#include "rewriter/base/result.h"
#include "rewriter/io/file_io.h"
#include "rewriter/io/file_system.h"

namespace pteshare {

class WriterLock {
 public:
  /// Blocks until the lock is ours; calls `on_wait` once first if another
  /// writer (a process, or a thread of this one) holds it, to tell the user
  /// why nothing happens. A thread must not Acquire a file it already holds
  /// a WriterLock on: it would wait for itself. The file is opened, locked
  /// and written through `files` (which must outlive the lock).
  static Result<WriterLock> Acquire(const std::filesystem::path& file,
                                    const std::function<void()>& on_wait = {},
                                    FileSystem& files = RealFileSystem::Instance());

  WriterLock(WriterLock&&) noexcept;
  WriterLock& operator=(WriterLock&&) noexcept;
  ~WriterLock();

  /// The file's real path (symbolic links resolved at Acquire): the journal
  /// and any rename go beside it, so every name of the file finds them.
  const std::filesystem::path& path() const { return path_; }
  /// Read-write descriptor of the locked file; stays open while locked.
  int fd() const { return fd_.get(); }
  /// The file system it was acquired through: every in-place write, the
  /// journal's and a rollback's included, uses it too.
  FileSystem& files() const { return *files_; }

 private:
  WriterLock() = default;

  std::filesystem::path path_;
  FileSystem* files_ = nullptr;
  // The lock is this descriptor's open file description's: closing it
  // releases the lock.
  UniqueFd fd_;
};

}  // namespace pteshare
