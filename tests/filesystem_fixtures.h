// Filesystems for the writer's tests: whether a folder's filesystem can
// insert a range (ext4, XFS can; tmpfs cannot), a tmpfs mounted for a test
// to force the copy fallback, a small ext4 (to fill up) or XFS (to share
// blocks) on a loop device, and a bind mount of one file (all need root;
// tests skip visibly without).
#pragma once

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "tests/test_support.h"

namespace pteshare::test_support {

/// Whether FALLOC_FL_INSERT_RANGE of 4096 bytes works in `folder` (tried on
/// a scratch file there, removed afterwards).
inline bool CanInsertRange(const std::filesystem::path& folder) {
  const std::filesystem::path probe = folder / ".insert-range-probe";
  int fd = ::open(probe.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok = ::ftruncate(fd, 8192) == 0 && ::fallocate(fd, FALLOC_FL_INSERT_RANGE, 0, 4096) == 0;
  ::close(fd);
  ::unlink(probe.c_str());
  return ok;
}

/// A tmpfs mounted on a fresh folder for the life of the object.
class TmpfsMount {
 public:
  TmpfsMount() {
    if (::mount("pteshare-test", dir_.path().c_str(), "tmpfs", 0, "size=256m") == 0) {
      mounted_ = true;
    } else {
      why_not_ = std::strerror(errno);
    }
  }
  ~TmpfsMount() {
    if (mounted_) ::umount2(dir_.path().c_str(), MNT_DETACH);
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  bool mounted() const { return mounted_; }
  /// Why mounting failed, for the skip message.
  const std::string& why_not() const { return why_not_; }
  const std::filesystem::path& path() const { return dir_.path(); }
  std::filesystem::path operator/(const std::string& name) const { return dir_ / name; }

 private:
  TempDir dir_;
  bool mounted_ = false;
  std::string why_not_;
};

/// The file systems a test can make on a loop device.
enum class LoopFs {
  kExt4,  // mkfs.ext4 -m 0, 4096-byte blocks, so every block is the user's
  kXfs,   // mkfs.xfs with reflink (blocks shared by FICLONERANGE); 300 MB or more
};

/// The smallest XFS mkfs.xfs makes (xfsprogs 5.19 on).
inline constexpr uint64_t kSmallestXfsBytes = uint64_t{300} << 20;

/// A fresh file system of `bytes` on a loop device (the image a sparse file
/// in a temporary folder), mounted on a fresh folder for the life of the
/// object.
class LoopMount {
 public:
  LoopMount(LoopFs type, uint64_t bytes) {
    const std::filesystem::path image = dir_ / "fs.img";
    mount_point_ = dir_ / "mnt";
    std::filesystem::create_directory(mount_point_);
    if (::geteuid() != 0) {
      why_not_ = "mounting needs root";
      return;
    }
    const int fd = ::open(image.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    const bool sized = fd >= 0 && ::ftruncate(fd, static_cast<off_t>(bytes)) == 0;
    if (fd >= 0) ::close(fd);
    const std::string quiet = " >/dev/null 2>&1";
    const std::string mkfs =
        type == LoopFs::kExt4 ? "mkfs.ext4 -q -F -m 0 -b 4096 " : "mkfs.xfs -q -f -m reflink=1 ";
    if (!sized || std::system((mkfs + image.string() + quiet).c_str()) != 0) {
      why_not_ = mkfs.substr(0, mkfs.find(' ')) + " failed or is missing";
      return;
    }
    if (std::system(
            ("mount -o loop " + image.string() + " " + mount_point_.string() + quiet).c_str()) !=
        0) {
      why_not_ = "mount -o loop failed (no loop device?)";
      return;
    }
    mounted_ = true;
  }
  ~LoopMount() {
    if (mounted_) ::umount2(mount_point_.c_str(), MNT_DETACH);
  }
  LoopMount(const LoopMount&) = delete;
  LoopMount& operator=(const LoopMount&) = delete;

  bool mounted() const { return mounted_; }
  const std::string& why_not() const { return why_not_; }
  const std::filesystem::path& path() const { return mount_point_; }
  std::filesystem::path operator/(const std::string& name) const { return mount_point_ / name; }

 private:
  TempDir dir_;
  std::filesystem::path mount_point_;
  bool mounted_ = false;
  std::string why_not_;
};

/// `target` (an existing file) bind-mounted on `source`, a second name that
/// is no hard link (as `docker -v m.pte:/app/m.pte` gives), for the life of
/// the object.
class FileBindMount {
 public:
  FileBindMount(const std::filesystem::path& source, const std::filesystem::path& name)
      : name_(name) {
    const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) ::close(fd);
    if (::mount(source.c_str(), name.c_str(), nullptr, MS_BIND, nullptr) == 0) {
      mounted_ = true;
    } else {
      why_not_ = std::strerror(errno);
    }
  }
  ~FileBindMount() {
    if (mounted_) ::umount2(name_.c_str(), MNT_DETACH);
  }
  FileBindMount(const FileBindMount&) = delete;
  FileBindMount& operator=(const FileBindMount&) = delete;

  bool mounted() const { return mounted_; }
  const std::string& why_not() const { return why_not_; }

 private:
  std::filesystem::path name_;
  bool mounted_ = false;
  std::string why_not_;
};

}  // namespace pteshare::test_support
