// FileSystem: the system calls the write stage makes, behind one interface,
// so that a test can fail any one of them in process (ninja's DiskInterface
// is the model). RealFileSystem forwards each to the call file_io.h (or the
// kernel) makes today, with the same messages; tests/faulty_file_system.h
// counts the calls and fails the Nth with a chosen errno.
//
// Two kinds of method: the checked calls of file_io.h return a Status or
// Result whose message names the call and the errno text; the bare calls
// (stat, fallocate, the clone, link, rename, unlink, chmod, chown, the
// whole-file lock)
// return 0 or the errno, because each caller words its own message.
// What goes through here: everything the writer does to the files it
// writes (the input in place, the journal, the pending file) and to their
// folder. What does not: reading and verifying a program (program/), and
// the read-only inspection of an output name (output_target.h) and of
// abandoned temporaries (pending_file.h), whose failures change nothing.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/io/file_io.h"

namespace pteshare {

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // The checked calls of file_io.h, with its messages.
  /// open(2) with O_CLOEXEC; 0 or the errno (PendingFile tells "no
  /// O_TMPFILE here" by it). OpenChecked words the error.
  virtual int Open(const std::filesystem::path& path, int flags, unsigned mode, UniqueFd* fd) = 0;
  virtual Result<uint64_t> FileSize(int fd) = 0;
  virtual Status ReadAt(int fd, uint64_t offset, std::span<uint8_t> bytes) = 0;
  virtual Status WriteAt(int fd, uint64_t offset, std::span<const uint8_t> bytes) = 0;
  virtual Status Truncate(int fd, uint64_t size) = 0;
  virtual Status SyncFile(int fd) = 0;
  virtual Status SyncFolderOf(const std::filesystem::path& file) = 0;
  virtual Status CopyRange(int from, uint64_t from_offset, int to, uint64_t to_offset,
                           uint64_t length, const CopyProgress& progress) = 0;
  virtual Result<ReadOnlyMapping> Map(int fd) = 0;
  virtual Result<std::vector<uint8_t>> ReadBoundedRegularFile(const std::filesystem::path& path,
                                                              uint64_t max_bytes) = 0;

  // Bare calls: 0 or the errno.
  virtual int StatFd(int fd, struct stat* st) = 0;                               // fstat
  virtual int StatPath(const std::filesystem::path& path, struct stat* st) = 0;  // stat
  virtual int StatLink(const std::filesystem::path& path, struct stat* st) = 0;  // lstat
  /// file_io.h's LockWholeFile.
  virtual int LockWholeFile(int fd, LockWait wait) = 0;
  /// fallocate(2) of [offset, offset + length) with `mode` (FALLOC_FL_*).
  virtual int Allocate(int fd, int mode, uint64_t offset, uint64_t length) = 0;
  /// file_io.h's CloneRange (ioctl FICLONERANGE); never a length of 0.
  virtual int CloneRange(int from, uint64_t from_offset, int to, uint64_t to_offset,
                         uint64_t length) = 0;
  virtual int ChangeMode(int fd, unsigned mode) = 0;          // fchmod
  virtual int ChangeOwner(int fd, uid_t uid, gid_t gid) = 0;  // fchown
  /// linkat(from_dir, from, AT_FDCWD, to, flags).
  virtual int LinkAt(int from_dir, const std::filesystem::path& from,
                     const std::filesystem::path& to, int flags) = 0;
  virtual int Link(const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  virtual int Rename(const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  virtual int Unlink(const std::filesystem::path& path) = 0;

  /// Open, or the error file_io.h's OpenFd gives ("cannot open PATH: why").
  Result<UniqueFd> OpenChecked(const std::filesystem::path& path, int flags, unsigned mode = 0);
};

/// The kernel's: each method is the call file_io.h or the writer made
/// before this seam existed, byte for byte and message for message.
class RealFileSystem final : public FileSystem {
 public:
  /// The one instance (it holds nothing): what a null FileSystem pointer
  /// means everywhere.
  static RealFileSystem& Instance();

  int Open(const std::filesystem::path& path, int flags, unsigned mode, UniqueFd* fd) override;
  Result<uint64_t> FileSize(int fd) override;
  Status ReadAt(int fd, uint64_t offset, std::span<uint8_t> bytes) override;
  Status WriteAt(int fd, uint64_t offset, std::span<const uint8_t> bytes) override;
  Status Truncate(int fd, uint64_t size) override;
  Status SyncFile(int fd) override;
  Status SyncFolderOf(const std::filesystem::path& file) override;
  Status CopyRange(int from, uint64_t from_offset, int to, uint64_t to_offset, uint64_t length,
                   const CopyProgress& progress) override;
  Result<ReadOnlyMapping> Map(int fd) override;
  Result<std::vector<uint8_t>> ReadBoundedRegularFile(const std::filesystem::path& path,
                                                      uint64_t max_bytes) override;
  int StatFd(int fd, struct stat* st) override;
  int StatPath(const std::filesystem::path& path, struct stat* st) override;
  int StatLink(const std::filesystem::path& path, struct stat* st) override;
  int LockWholeFile(int fd, LockWait wait) override;
  int Allocate(int fd, int mode, uint64_t offset, uint64_t length) override;
  int CloneRange(int from, uint64_t from_offset, int to, uint64_t to_offset,
                 uint64_t length) override;
  int ChangeMode(int fd, unsigned mode) override;
  int ChangeOwner(int fd, uid_t uid, gid_t gid) override;
  int LinkAt(int from_dir, const std::filesystem::path& from, const std::filesystem::path& to,
             int flags) override;
  int Link(const std::filesystem::path& from, const std::filesystem::path& to) override;
  int Rename(const std::filesystem::path& from, const std::filesystem::path& to) override;
  int Unlink(const std::filesystem::path& path) override;
};

/// `*file_system`, or the real one for null (RewriteRequest, WriteOptions).
inline FileSystem& OrReal(FileSystem* file_system) {
  return file_system != nullptr ? *file_system : RealFileSystem::Instance();
}

}  // namespace pteshare
