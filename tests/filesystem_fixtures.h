// Filesystems for the in-place tests: whether a folder's filesystem can
// insert a range (ext4, XFS can; tmpfs cannot), and a tmpfs mounted for a
// test to force the copy fallback (needs root; tests skip visibly without).
#pragma once

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace pteshare::test_support
