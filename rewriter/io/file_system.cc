// RealFileSystem: each method the call the writer made before the seam.
#include "rewriter/io/file_system.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace pteshare {
namespace {

// 0, or the errno of a call that returned -1.
int ErrnoOf(int returned) { return returned == 0 ? 0 : errno; }

}  // namespace

Result<UniqueFd> FileSystem::OpenChecked(const std::filesystem::path& path, int flags,
                                         unsigned mode) {
  UniqueFd fd;
  if (const int err = Open(path, flags, mode, &fd); err != 0) {
    return Error{"cannot open " + path.string() + ": " + std::strerror(err)};
  }
  return fd;
}

RealFileSystem& RealFileSystem::Instance() {
  static RealFileSystem real;
  return real;
}

int RealFileSystem::Open(const std::filesystem::path& path, int flags, unsigned mode,
                         UniqueFd* fd) {
  const int opened = ::open(path.c_str(), flags | O_CLOEXEC, static_cast<mode_t>(mode));
  if (opened < 0) return errno;
  *fd = UniqueFd(opened);
  return 0;
}

Result<uint64_t> RealFileSystem::FileSize(int fd) { return pteshare::FileSize(fd); }

Status RealFileSystem::ReadAt(int fd, uint64_t offset, std::span<uint8_t> bytes) {
  return pteshare::ReadAt(fd, offset, bytes);
}

Status RealFileSystem::WriteAt(int fd, uint64_t offset, std::span<const uint8_t> bytes) {
  return pteshare::WriteAt(fd, offset, bytes);
}

Status RealFileSystem::Truncate(int fd, uint64_t size) { return pteshare::Truncate(fd, size); }

Status RealFileSystem::SyncFile(int fd) { return pteshare::SyncFile(fd); }

Status RealFileSystem::SyncFolderOf(const std::filesystem::path& file) {
  return pteshare::SyncFolderOf(file);
}

Status RealFileSystem::CopyRange(int from, uint64_t from_offset, int to, uint64_t to_offset,
                                 uint64_t length, const CopyProgress& progress) {
  return pteshare::CopyRange(from, from_offset, to, to_offset, length, progress);
}

Result<ReadOnlyMapping> RealFileSystem::Map(int fd) { return ReadOnlyMapping::Map(fd); }

Result<std::vector<uint8_t>> RealFileSystem::ReadBoundedRegularFile(
    const std::filesystem::path& path, uint64_t max_bytes) {
  return pteshare::ReadBoundedRegularFile(path, max_bytes);
}

int RealFileSystem::StatFd(int fd, struct stat* st) { return ErrnoOf(::fstat(fd, st)); }

int RealFileSystem::StatPath(const std::filesystem::path& path, struct stat* st) {
  return ErrnoOf(::stat(path.c_str(), st));
}

int RealFileSystem::StatLink(const std::filesystem::path& path, struct stat* st) {
  return ErrnoOf(::lstat(path.c_str(), st));
}

int RealFileSystem::LockWholeFile(int fd, LockWait wait) {
  return pteshare::LockWholeFile(fd, wait);
}

int RealFileSystem::Allocate(int fd, int mode, uint64_t offset, uint64_t length) {
  return ErrnoOf(::fallocate(fd, mode, static_cast<off_t>(offset), static_cast<off_t>(length)));
}

int RealFileSystem::CloneRange(int from, uint64_t from_offset, int to, uint64_t to_offset,
                               uint64_t length) {
  return pteshare::CloneRange(from, from_offset, to, to_offset, length);
}

int RealFileSystem::ChangeMode(int fd, unsigned mode) {
  return ErrnoOf(::fchmod(fd, static_cast<mode_t>(mode)));
}

int RealFileSystem::ChangeOwner(int fd, uid_t uid, gid_t gid) {
  return ErrnoOf(::fchown(fd, uid, gid));
}

int RealFileSystem::LinkAt(int from_dir, const std::filesystem::path& from,
                           const std::filesystem::path& to, int flags) {
  return ErrnoOf(::linkat(from_dir, from.c_str(), AT_FDCWD, to.c_str(), flags));
}

int RealFileSystem::Link(const std::filesystem::path& from, const std::filesystem::path& to) {
  return ErrnoOf(::link(from.c_str(), to.c_str()));
}

int RealFileSystem::Rename(const std::filesystem::path& from, const std::filesystem::path& to) {
  return ErrnoOf(::rename(from.c_str(), to.c_str()));
}

int RealFileSystem::Unlink(const std::filesystem::path& path) {
  return ErrnoOf(::unlink(path.c_str()));
}

}  // namespace pteshare
