#include "rewriter/io/file_io.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "rewriter/io/file_system.h"

namespace pteshare {
namespace {

Error SystemError(const std::string& what) { return Error{what + ": " + std::strerror(errno)}; }

// Chunks small enough that progress and a test crash can happen between
// them, large enough that the per-call cost does not matter.
constexpr uint64_t kCopyChunk = uint64_t{64} << 20;
// The buffer of the last-resort read/write copy.
constexpr size_t kFallbackBuffer = size_t{8} << 20;

bool CopyUnsupported(int err) {
  return err == EXDEV || err == ENOSYS || err == EOPNOTSUPP || err == EINVAL || err == EBADF ||
         err == ETXTBSY;
}

enum class CopyMethod { kCopyFileRange, kSendfile, kReadWrite };

// One chunk by `method`; returns bytes copied (0 only at unexpected EOF) or
// -1 with errno set.
ssize_t CopyChunk(CopyMethod method, int from, uint64_t from_offset, int to, uint64_t to_offset,
                  uint64_t length, std::vector<uint8_t>& buffer) {
  switch (method) {
    case CopyMethod::kCopyFileRange: {
      loff_t in = static_cast<loff_t>(from_offset), out = static_cast<loff_t>(to_offset);
      return ::copy_file_range(from, &in, to, &out, length, 0);
    }
    case CopyMethod::kSendfile: {
      if (::lseek(to, static_cast<off_t>(to_offset), SEEK_SET) < 0) return -1;
      off_t in = static_cast<off_t>(from_offset);
      return ::sendfile(to, from, &in, length);
    }
    case CopyMethod::kReadWrite: {
      if (buffer.empty()) buffer.resize(kFallbackBuffer);
      size_t want = static_cast<size_t>(std::min<uint64_t>(length, buffer.size()));
      ssize_t got = ::pread(from, buffer.data(), want, static_cast<off_t>(from_offset));
      if (got <= 0) return got;
      Status written =
          WriteAt(to, to_offset, std::span<const uint8_t>(buffer.data(), static_cast<size_t>(got)));
      return written.ok() ? got : -1;
    }
  }
  return -1;
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

int UniqueFd::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

Result<std::filesystem::path> ResolveLinks(const std::filesystem::path& path) {
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  if (real == nullptr) {
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      return Error{"is a symbolic link to a file that does not exist"};
    }
    return Error{std::string("cannot resolve the path: ") + std::strerror(errno)};
  }
  return std::filesystem::path(real.get());
}

Result<UniqueFd> OpenFd(const std::filesystem::path& path, int flags, unsigned mode) {
  // One open and one wording for it, the seam's (file_system.h).
  return RealFileSystem::Instance().OpenChecked(path, flags, mode);
}

Result<uint64_t> FileSize(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return SystemError("fstat failed");
  return static_cast<uint64_t>(st.st_size);
}

std::string FileTypeName(unsigned st_mode) {
  switch (st_mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    case S_IFLNK:
      return "a symbolic link";
    default:
      return "not a regular file";
  }
}

Result<std::vector<uint8_t>> ReadBoundedRegularFile(const std::filesystem::path& path,
                                                    uint64_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ELOOP) return Error{"is a symbolic link, not a regular file"};
  if (fd < 0) return SystemError("cannot open " + path.string());
  UniqueFd owned(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return SystemError("fstat failed");
  if (!S_ISREG(st.st_mode)) return Error{"is " + FileTypeName(st.st_mode) + ", not a regular file"};
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    return Error{"is " + std::to_string(size) + " bytes, more than the " +
                 std::to_string(max_bytes) + " bytes it may be"};
  }
  std::vector<uint8_t> bytes;
  try {
    bytes.resize(static_cast<size_t>(size));
  } catch (const std::bad_alloc&) {
    return Error{"is " + std::to_string(size) + " bytes, more than this process can allocate"};
  }
  Status read = ReadAt(fd, 0, bytes);
  if (!read.ok()) return read.error();
  return bytes;
}

Status ReadAt(int fd, uint64_t offset, std::span<uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n =
        ::pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SystemError("read at offset " + std::to_string(offset + done) + " failed");
    if (n == 0) {
      return Error{"read of " + std::to_string(bytes.size()) + " bytes at offset " +
                   std::to_string(offset) + " hit the end of the file after " +
                   std::to_string(done)};
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status ReadAtSkippingHoles(int fd, uint64_t offset, std::span<uint8_t> bytes) {
  const uint64_t end = offset + bytes.size();
  Result<uint64_t> size = FileSize(fd);
  if (!size.ok()) return size.error();
  if (*size < end) {
    return Error{"read of " + std::to_string(bytes.size()) + " bytes at offset " +
                 std::to_string(offset) + " runs past the end of the file (" +
                 std::to_string(*size) + " bytes)"};
  }
  uint64_t at = offset;
  while (at < end) {
    const off_t data = ::lseek(fd, static_cast<off_t>(at), SEEK_DATA);
    if (data < 0 && errno == ENXIO) return Status::Ok();              // a hole to the end
    if (data < 0) return ReadAt(fd, at, bytes.subspan(at - offset));  // cannot tell: read
    if (static_cast<uint64_t>(data) >= end) return Status::Ok();
    const off_t hole = ::lseek(fd, data, SEEK_HOLE);
    const uint64_t stop = hole < 0 ? end : std::min<uint64_t>(end, static_cast<uint64_t>(hole));
    Status read = ReadAt(
        fd, static_cast<uint64_t>(data),
        bytes.subspan(static_cast<uint64_t>(data) - offset, stop - static_cast<uint64_t>(data)));
    if (!read.ok()) return read;
    at = stop;
  }
  return Status::Ok();
}

int LockWholeFile(int fd, LockWait wait) {
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;  // to the end, however the file grows
  const int command = wait == LockWait::kWait ? F_OFD_SETLKW : F_OFD_SETLK;
  while (::fcntl(fd, command, &lock) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

Status WriteAt(int fd, uint64_t offset, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n =
        ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return SystemError("write at offset " + std::to_string(offset + done) + " failed");
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status Truncate(int fd, uint64_t size) {
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    return SystemError("cannot set the file size to " + std::to_string(size));
  }
  return Status::Ok();
}

Status SyncFile(int fd) {
  if (::fsync(fd) != 0) return SystemError("fsync failed");
  return Status::Ok();
}

Status SyncFolderOf(const std::filesystem::path& file) {
  std::filesystem::path folder = file.parent_path();
  if (folder.empty()) folder = ".";
  Result<UniqueFd> fd = OpenFd(folder, O_RDONLY | O_DIRECTORY);
  if (!fd.ok()) return fd.error();
  if (::fsync(fd->get()) != 0) return SystemError("fsync of folder " + folder.string() + " failed");
  return Status::Ok();
}

namespace {

Status CopyExtent(int from, uint64_t from_offset, int to, uint64_t to_offset, uint64_t length,
                  const std::function<void(uint64_t)>& progress) {
  CopyMethod method = CopyMethod::kCopyFileRange;
  std::vector<uint8_t> buffer;
  uint64_t copied = 0;
  while (copied < length) {
    const uint64_t chunk = std::min(kCopyChunk, length - copied);
    ssize_t n =
        CopyChunk(method, from, from_offset + copied, to, to_offset + copied, chunk, buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && copied == 0 && method != CopyMethod::kReadWrite && CopyUnsupported(errno)) {
      // Fall back once, before anything was copied by this method.
      method =
          method == CopyMethod::kCopyFileRange ? CopyMethod::kSendfile : CopyMethod::kReadWrite;
      continue;
    }
    if (n < 0) {
      return SystemError("copy of " + std::to_string(chunk) + " bytes from offset " +
                         std::to_string(from_offset + copied) + " failed");
    }
    if (n == 0) {
      return Error{"copy hit the end of the source at offset " +
                   std::to_string(from_offset + copied) + ", " + std::to_string(length - copied) +
                   " bytes short"};
    }
    copied += static_cast<uint64_t>(n);
    if (progress) progress(copied);
  }
  return Status::Ok();
}

}  // namespace

Status CopyRange(int from, uint64_t from_offset, int to, uint64_t to_offset, uint64_t length,
                 const CopyProgress& progress) {
  // Copy only the source's data extents: the holes of a sparse file (a
  // large zero segment) stay holes, since the destination reads as zeros.
  const uint64_t end = from_offset + length;
  uint64_t at = from_offset;
  while (at < end) {
    off_t data = ::lseek(from, static_cast<off_t>(at), SEEK_DATA);
    if (data < 0 && errno == ENXIO) break;  // only a hole is left
    uint64_t extent_start = at, extent_end = end;
    if (data >= 0) {
      extent_start = std::min<uint64_t>(static_cast<uint64_t>(data), end);
      off_t hole = ::lseek(from, data, SEEK_HOLE);
      if (hole >= 0) extent_end = std::min<uint64_t>(static_cast<uint64_t>(hole), end);
    }  // else: SEEK_DATA unsupported, copy everything
    if (extent_start >= end) break;
    const uint64_t done_before = extent_start - from_offset;
    Status copied = CopyExtent(from, extent_start, to, to_offset + done_before,
                               extent_end - extent_start, [&](uint64_t n) {
                                 if (progress) progress(done_before + n);
                               });
    if (!copied.ok()) return copied;
    at = extent_end;
  }
  if (progress) progress(length);
  return Status::Ok();
}

int CloneRange(int from, uint64_t from_offset, int to, uint64_t to_offset, uint64_t length) {
  struct file_clone_range range {};
  range.src_fd = from;
  range.src_offset = from_offset;
  range.src_length = length;
  range.dest_offset = to_offset;
  while (::ioctl(to, FICLONERANGE, &range) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

Result<ReadOnlyMapping> ReadOnlyMapping::Map(int fd) {
  Result<uint64_t> size = FileSize(fd);
  if (!size.ok()) return size.error();
  ReadOnlyMapping mapping;
  if (*size == 0) return mapping;
  void* data = ::mmap(nullptr, static_cast<size_t>(*size), PROT_READ, MAP_SHARED, fd, 0);
  if (data == MAP_FAILED) return SystemError("cannot map the file");
  mapping.data_ = static_cast<const uint8_t*>(data);
  mapping.size_ = static_cast<size_t>(*size);
  return mapping;
}

ReadOnlyMapping::ReadOnlyMapping(ReadOnlyMapping&& other) noexcept
    : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

ReadOnlyMapping::~ReadOnlyMapping() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace pteshare
