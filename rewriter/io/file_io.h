// The system calls the writer and the journal are made of, each returning a
// Status that names the call and the errno text: owned descriptors, whole
// reads and writes at an offset, fsync of a file and of its folder, an
// in-kernel copy of a byte range, a clone of one (shared blocks), and a
// read-only mapping for re-reading a result. Nothing here knows about .pte
// files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "rewriter/base/result.h"

namespace pteshare {

/// A file descriptor closed at destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release();

 private:
  int fd_ = -1;
};

/// The real path of an existing file (symbolic links resolved), or why not:
/// the one answer to "which file is this" that the lock, the journal and
/// the reader share.
Result<std::filesystem::path> ResolveLinks(const std::filesystem::path& path);
/// open(2) with O_CLOEXEC; the error says which call failed and why.
Result<UniqueFd> OpenFd(const std::filesystem::path& path, int flags, unsigned mode = 0);
/// The size of an open file (fstat).
Result<uint64_t> FileSize(int fd);

/// The whole of `path` if it is a regular file of at most `max_bytes`: it is
/// opened without following a symbolic link and without blocking (a FIFO
/// opens at once), its type checked with fstat before a byte is read, and
/// the buffer allocated without throwing. Anything else is an error that
/// says what the path is ("a FIFO", "a symbolic link", "N bytes, more than
/// M").
Result<std::vector<uint8_t>> ReadBoundedRegularFile(const std::filesystem::path& path,
                                                    uint64_t max_bytes);
/// "a FIFO", "a directory", "a character device", ... for an st_mode.
std::string FileTypeName(unsigned st_mode);

/// Reads exactly bytes.size() bytes at `offset` (an error at end of file).
Status ReadAt(int fd, uint64_t offset, std::span<uint8_t> bytes);
/// The same into memory that already reads as zeros (a fresh anonymous
/// mapping), reading only what the file stores: its holes (SEEK_HOLE) are
/// skipped and left untouched, so a sparse file that claims gigabytes costs
/// the bytes it has, not the bytes it claims. Falls back to ReadAt where
/// the filesystem cannot say. The file must still be that long.
Status ReadAtSkippingHoles(int fd, uint64_t offset, std::span<uint8_t> bytes);
/// Whether LockWholeFile waits for a lock someone else holds.
enum class LockWait { kTry, kWait };
/// An exclusive open-file-description lock over the whole file, however it
/// grows (fcntl F_OFD_SETLK / F_OFD_SETLKW): it belongs to `fd`'s open file
/// description, so it conflicts with every other open of the file (other
/// threads of this process too), survives closing other descriptors and
/// goes when the description is closed or the process dies. 0, or the errno
/// (EAGAIN or EACCES: held by someone else, for kTry).
int LockWholeFile(int fd, LockWait wait);
/// Writes all of `bytes` at `offset`.
Status WriteAt(int fd, uint64_t offset, std::span<const uint8_t> bytes);
Status Truncate(int fd, uint64_t size);
/// fsync(2): data and metadata durable.
Status SyncFile(int fd);
/// fsync of the folder holding `file`, so a create, rename or unlink there
/// is durable.
Status SyncFolderOf(const std::filesystem::path& file);

/// Called during long copies with the bytes copied so far.
using CopyProgress = std::function<void(uint64_t copied)>;

/// Copies [from_offset, +length) of `from` to `to_offset` of `to` inside the
/// kernel: copy_file_range (a reflink where the filesystem can), falling
/// back to sendfile and, only if both are unsupported, to read/write with a
/// large buffer. Holes of a sparse source are skipped, so the destination
/// range must read as zeros already (freshly extended with ftruncate).
/// `progress` (may be empty) is called after every chunk.
Status CopyRange(int from, uint64_t from_offset, int to, uint64_t to_offset, uint64_t length,
                 const CopyProgress& progress = {});

/// ioctl(FICLONERANGE): [to_offset, +length) of `to` comes to share the
/// blocks of [from_offset, +length) of `from` (a reflink: XFS, btrfs), no
/// byte read or written. Both offsets, and the length unless the range ends
/// at the source's end, must be multiples of the file system's block size.
/// 0 or the errno: EOPNOTSUPP where the file system cannot share blocks,
/// EXDEV across file systems, EINVAL for a range it will not share.
int CloneRange(int from, uint64_t from_offset, int to, uint64_t to_offset, uint64_t length);

/// A read-only shared mapping of a whole open file, unmapped at destruction.
/// Mapping does not close or duplicate the descriptor (closing any
/// descriptor of a file would drop the process's fcntl locks on it).
class ReadOnlyMapping {
 public:
  static Result<ReadOnlyMapping> Map(int fd);
  ReadOnlyMapping(ReadOnlyMapping&& other) noexcept;
  ReadOnlyMapping& operator=(ReadOnlyMapping&&) = delete;
  ~ReadOnlyMapping();
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  ReadOnlyMapping() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace pteshare
