// WriterLock: the exclusive lock every pteshare process that changes a .pte
// in place holds, so two writers (or a writer and a journal recovery) never
// interleave. It is a Boost.Interprocess file_lock on the file itself, which
// is an fcntl record lock: the kernel drops it as soon as this process
// closes ANY descriptor of the file. So the lock also owns the one read-write
// descriptor all in-place work goes through, and whoever holds a WriterLock
// must not open and close other descriptors of the same file until it is
// done (ReadOnlyMapping maps without closing anything).
//
// A writer that moves segments replaces the file by rename, so a process
// that waited for the lock may hold it on the old, unlinked inode. Acquire
// therefore checks after locking that the path still names the locked file,
// and starts over if it does not.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>

#include "rewriter/file_io.h"
#include "rewriter/result.h"

namespace boost::interprocess {
class file_lock;
}  // namespace boost::interprocess

namespace pteshare {

class WriterLock {
 public:
  /// Blocks until the lock is ours; calls `on_wait` once first if another
  /// process holds it (to tell the user why nothing happens).
  static Result<WriterLock> Acquire(const std::filesystem::path& file,
                                    const std::function<void()>& on_wait = {});

  WriterLock(WriterLock&&) noexcept;
  WriterLock& operator=(WriterLock&&) noexcept;
  ~WriterLock();

  /// The file's real path (symbolic links resolved at Acquire): the journal
  /// and any rename go beside it, so every name of the file finds them.
  const std::filesystem::path& path() const { return path_; }
  /// Read-write descriptor of the locked file; stays open while locked.
  int fd() const { return fd_.get(); }

 private:
  WriterLock() = default;

  std::filesystem::path path_;
  UniqueFd fd_;
  // Declared after fd_ so it is released first.
  std::unique_ptr<boost::interprocess::file_lock> lock_;
};

}  // namespace pteshare
