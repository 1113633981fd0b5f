// FaultyFileSystem: the real file system (rewriter/io/file_system.h) with a
// record of every call and one fault: the Nth call (of one kind, or of any)
// fails with a chosen errno, or, for a write, writes its first half and
// then fails (a disk that fills up mid-write); with `persistent`, that call
// and every later one fail (a disk that is gone). It can also refuse
// O_TMPFILE, as a filesystem without it does, so that the named-temporary
// path of pending_file.h runs in process too. The messages of a failed
// checked call are the ones file_io.h gives for that errno, so what reaches
// the user reads as a real failure would. rewrite_file_test.cc fails each
// call of a clean RewriteFile in turn.
#pragma once

#include <fcntl.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "rewriter/io/file_system.h"

namespace pteshare::test_support {

/// Every method of FileSystem, as a closed set.
enum class FsCall {
  kOpen,
  kFileSize,
  kReadAt,
  kWriteAt,
  kTruncate,
  kSyncFile,
  kSyncFolder,
  kCopyRange,
  kMap,
  kReadBounded,
  kStatFd,
  kStatPath,
  kStatLink,
  kLock,
  kAllocate,
  kCloneRange,
  kChangeMode,
  kChangeOwner,
  kLinkAt,
  kLink,
  kRename,
  kUnlink,
};

/// The system call a FsCall stands for ("pwrite", "fsync", ...).
inline const char* FsCallName(FsCall call) {
  switch (call) {
    case FsCall::kOpen:
      return "open";
    case FsCall::kFileSize:
      return "fstat (size)";
    case FsCall::kReadAt:
      return "pread";
    case FsCall::kWriteAt:
      return "pwrite";
    case FsCall::kTruncate:
      return "ftruncate";
    case FsCall::kSyncFile:
      return "fsync";
    case FsCall::kSyncFolder:
      return "fsync (folder)";
    case FsCall::kCopyRange:
      return "copy_file_range";
    case FsCall::kMap:
      return "mmap";
    case FsCall::kReadBounded:
      return "read (whole file)";
    case FsCall::kStatFd:
      return "fstat";
    case FsCall::kStatPath:
      return "stat";
    case FsCall::kStatLink:
      return "lstat";
    case FsCall::kLock:
      return "fcntl (lock)";
    case FsCall::kAllocate:
      return "fallocate";
    case FsCall::kCloneRange:
      return "ioctl (FICLONERANGE)";
    case FsCall::kChangeMode:
      return "fchmod";
    case FsCall::kChangeOwner:
      return "fchown";
    case FsCall::kLinkAt:
      return "linkat";
    case FsCall::kLink:
      return "link";
    case FsCall::kRename:
      return "rename";
    case FsCall::kUnlink:
      return "unlink";
  }
  return "?";
}

struct Fault {
  /// The call to fail, counting from 1 (0: none).
  size_t nth = 0;
  /// Count only calls of this kind (otherwise every call counts).
  std::optional<FsCall> only;
  int error = EIO;
  /// A failed write of more than one byte writes its first half first.
  bool torn_write = false;
  /// Every later call (of the kind counted) fails too.
  bool persistent = false;
  /// Every open with O_TMPFILE fails with EOPNOTSUPP (not counted as the
  /// fault: the filesystem simply lacks it).
  bool no_tmpfile = false;
};

class FaultyFileSystem final : public FileSystem {
 public:
  explicit FaultyFileSystem(Fault fault = {}) : fault_(fault) {}

  /// Every call made, in order (failed ones included).
  const std::vector<FsCall>& calls() const { return calls_; }
  /// The first call that was failed, if one was.
  std::optional<FsCall> failed() const {
    return failures_.empty() ? std::nullopt : std::optional<FsCall>(failures_.front());
  }
  /// Every call that was failed, in order.
  const std::vector<FsCall>& failures() const { return failures_; }

  int Open(const std::filesystem::path& path, int flags, unsigned mode, UniqueFd* fd) override {
    if (const int err = Next(FsCall::kOpen)) return err;
    if (fault_.no_tmpfile && (flags & O_TMPFILE) == O_TMPFILE) return EOPNOTSUPP;
    return real_.Open(path, flags, mode, fd);
  }
  Result<uint64_t> FileSize(int fd) override {
    if (const int err = Next(FsCall::kFileSize)) return Failed("fstat failed", err);
    return real_.FileSize(fd);
  }
  Status ReadAt(int fd, uint64_t offset, std::span<uint8_t> bytes) override {
    if (const int err = Next(FsCall::kReadAt)) {
      return Failed("read at offset " + std::to_string(offset) + " failed", err);
    }
    return real_.ReadAt(fd, offset, bytes);
  }
  Status WriteAt(int fd, uint64_t offset, std::span<const uint8_t> bytes) override {
    const int err = Next(FsCall::kWriteAt);
    if (err == 0) return real_.WriteAt(fd, offset, bytes);
    const size_t written = fault_.torn_write ? bytes.size() / 2 : 0;
    if (written > 0) {
      Status half = real_.WriteAt(fd, offset, bytes.first(written));
      if (!half.ok()) return half;
    }
    return Failed("write at offset " + std::to_string(offset + written) + " failed", err);
  }
  Status Truncate(int fd, uint64_t size) override {
    if (const int err = Next(FsCall::kTruncate)) {
      return Failed("cannot set the file size to " + std::to_string(size), err);
    }
    return real_.Truncate(fd, size);
  }
  Status SyncFile(int fd) override {
    if (const int err = Next(FsCall::kSyncFile)) return Failed("fsync failed", err);
    return real_.SyncFile(fd);
  }
  Status SyncFolderOf(const std::filesystem::path& file) override {
    if (const int err = Next(FsCall::kSyncFolder)) {
      return Failed("fsync of folder " + file.parent_path().string() + " failed", err);
    }
    return real_.SyncFolderOf(file);
  }
  Status CopyRange(int from, uint64_t from_offset, int to, uint64_t to_offset, uint64_t length,
                   const CopyProgress& progress) override {
    if (const int err = Next(FsCall::kCopyRange)) {
      return Failed("copy of " + std::to_string(length) + " bytes from offset " +
                        std::to_string(from_offset) + " failed",
                    err);
    }
    return real_.CopyRange(from, from_offset, to, to_offset, length, progress);
  }
  Result<ReadOnlyMapping> Map(int fd) override {
    if (const int err = Next(FsCall::kMap)) return Failed("cannot map the file", err);
    return real_.Map(fd);
  }
  Result<std::vector<uint8_t>> ReadBoundedRegularFile(const std::filesystem::path& path,
                                                      uint64_t max_bytes) override {
    if (const int err = Next(FsCall::kReadBounded)) {
      return Failed("cannot open " + path.string(), err);
    }
    return real_.ReadBoundedRegularFile(path, max_bytes);
  }
  int StatFd(int fd, struct stat* st) override {
    if (const int err = Next(FsCall::kStatFd)) return err;
    return real_.StatFd(fd, st);
  }
  int StatPath(const std::filesystem::path& path, struct stat* st) override {
    if (const int err = Next(FsCall::kStatPath)) return err;
    return real_.StatPath(path, st);
  }
  int StatLink(const std::filesystem::path& path, struct stat* st) override {
    if (const int err = Next(FsCall::kStatLink)) return err;
    return real_.StatLink(path, st);
  }
  int LockWholeFile(int fd, LockWait wait) override {
    if (const int err = Next(FsCall::kLock)) return err;
    return real_.LockWholeFile(fd, wait);
  }
  int Allocate(int fd, int mode, uint64_t offset, uint64_t length) override {
    if (const int err = Next(FsCall::kAllocate)) return err;
    return real_.Allocate(fd, mode, offset, length);
  }
  int CloneRange(int from, uint64_t from_offset, int to, uint64_t to_offset,
                 uint64_t length) override {
    if (const int err = Next(FsCall::kCloneRange)) return err;
    return real_.CloneRange(from, from_offset, to, to_offset, length);
  }
  int ChangeMode(int fd, unsigned mode) override {
    if (const int err = Next(FsCall::kChangeMode)) return err;
    return real_.ChangeMode(fd, mode);
  }
  int ChangeOwner(int fd, uid_t uid, gid_t gid) override {
    if (const int err = Next(FsCall::kChangeOwner)) return err;
    return real_.ChangeOwner(fd, uid, gid);
  }
  int LinkAt(int from_dir, const std::filesystem::path& from, const std::filesystem::path& to,
             int flags) override {
    if (const int err = Next(FsCall::kLinkAt)) return err;
    return real_.LinkAt(from_dir, from, to, flags);
  }
  int Link(const std::filesystem::path& from, const std::filesystem::path& to) override {
    if (const int err = Next(FsCall::kLink)) return err;
    return real_.Link(from, to);
  }
  int Rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    if (const int err = Next(FsCall::kRename)) return err;
    return real_.Rename(from, to);
  }
  int Unlink(const std::filesystem::path& path) override {
    if (const int err = Next(FsCall::kUnlink)) return err;
    return real_.Unlink(path);
  }

 private:
  // Records `call`; 0 to make it, or the errno to fail it with.
  int Next(FsCall call) {
    calls_.push_back(call);
    if (fault_.nth == 0 || (fault_.only && *fault_.only != call)) return 0;
    ++counted_;
    if (counted_ < fault_.nth || (counted_ > fault_.nth && !fault_.persistent)) return 0;
    failures_.push_back(call);
    return fault_.error;
  }
  static Error Failed(const std::string& what, int err) {
    return Error{what + ": " + std::strerror(err)};
  }

  Fault fault_;
  RealFileSystem& real_ = RealFileSystem::Instance();
  std::vector<FsCall> calls_;
  size_t counted_ = 0;
  std::vector<FsCall> failures_;
};

}  // namespace pteshare::test_support
