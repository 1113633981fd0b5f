#include "rewriter/write/pending_file.h"

#include "rewriter/io/crash_points.h"
#include "rewriter/io/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string>

namespace pteshare {
namespace fs = std::filesystem;

namespace {

constexpr char kTempInfix[] = ".pteshare-tmp-";

Error SystemError(const std::string& what) { return Error{what + ": " + std::strerror(errno)}; }

fs::path FolderOf(const fs::path& file) {
  fs::path folder = file.parent_path();
  return folder.empty() ? fs::path(".") : folder;
}

std::string TempPrefix(const fs::path& final_path) {
  return "." + final_path.filename().string() + kTempInfix;
}

// A write lock on the whole file (file_io.h): it stays while this process
// lives (whatever else it closes) and the kernel drops it when the process
// dies, which is how CleanAbandonedTemps tells a live writer's file from a
// dead one's.
bool LockOwnFile(int fd) { return LockWholeFile(fd, LockWait::kTry) == 0; }

bool LockedBySomeone(int fd) {
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  if (::fcntl(fd, F_OFD_GETLK, &probe) != 0) return true;  // cannot tell: assume alive
  return probe.l_type != F_UNLCK;
}

}  // namespace

fs::path AbandonedTempName(const fs::path& final_path, unsigned long long ino) {
  return FolderOf(final_path) / (TempPrefix(final_path) + std::to_string(ino));
}

Result<PendingFile> PendingFile::Create(const fs::path& final_path, unsigned mode) {
  PendingFile file;
  file.final_path_ = final_path;
  const mode_t permissions = static_cast<mode_t>(mode) & 01777;  // never set-id
  int fd = ::open(FolderOf(final_path).c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, permissions);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // No O_TMPFILE here: a unique name first, then the recognisable one.
    static std::atomic<unsigned> counter{0};
    const fs::path unique =
        FolderOf(final_path) / (TempPrefix(final_path) + "new-" + std::to_string(::getpid()) + "-" +
                                std::to_string(counter++));
    fd = ::open(unique.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, permissions);
    if (fd < 0)
      return SystemError("cannot create a temporary file in " + FolderOf(final_path).string());
    file.fd_ = UniqueFd(fd);
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      ::unlink(unique.c_str());
      return SystemError("fstat failed");
    }
    file.named_temp_ = AbandonedTempName(final_path, st.st_ino);
    if (::rename(unique.c_str(), file.named_temp_.c_str()) != 0) {
      ::unlink(unique.c_str());
      return SystemError("cannot rename the temporary file");
    }
  } else if (fd < 0) {
    return SystemError("cannot create a temporary file in " + FolderOf(final_path).string());
  } else {
    file.fd_ = UniqueFd(fd);
  }
  // umask may have narrowed the mode; the caller asked for exactly this.
  if (::fchmod(file.fd(), permissions) != 0)
    return SystemError("cannot set the temporary file's mode");
  if (!LockOwnFile(file.fd())) return SystemError("cannot lock the temporary file");
  return file;
}

PendingFile::~PendingFile() {
  if (!published_ && !named_temp_.empty()) ::unlink(named_temp_.c_str());
}

Status PendingFile::LinkAs(const fs::path& name) {
  // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd works for anyone.
  if (::linkat(fd(), "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH) == 0) return Status::Ok();
  if (errno != ENOENT && errno != EPERM) return SystemError("cannot link " + name.string());
  const std::string proc = "/proc/self/fd/" + std::to_string(fd());
  if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) != 0) {
    return SystemError("cannot link " + name.string());
  }
  return Status::Ok();
}

Status PendingFile::Publish(bool replace) {
  if (named_temp_.empty()) {
    if (!replace) {
      Status linked = LinkAs(final_path_);
      if (!linked.ok()) return linked;
      published_ = true;
      return SyncFolderOf(final_path_);
    }
    struct stat st;
    if (::fstat(fd(), &st) != 0) return SystemError("fstat failed");
    const fs::path temp = AbandonedTempName(final_path_, st.st_ino);
    Status linked = LinkAs(temp);
    if (!linked.ok()) return linked;
    named_temp_ = temp;
    MaybeCrashAt("after-temp-link");
  }
  if (!replace) {
    // Without O_TMPFILE: link(2) refuses an existing name as linkat does.
    if (::link(named_temp_.c_str(), final_path_.c_str()) != 0) {
      return SystemError("cannot link " + final_path_.string());
    }
    ::unlink(named_temp_.c_str());
  } else if (::rename(named_temp_.c_str(), final_path_.c_str()) != 0) {
    return SystemError("cannot rename " + named_temp_.string() + " to " + final_path_.string());
  }
  published_ = true;
  return SyncFolderOf(final_path_);
}

size_t CleanAbandonedTemps(const fs::path& final_path) {
  const std::string prefix = TempPrefix(final_path);
  size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(FolderOf(final_path), ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix)) continue;
    const std::string digits = name.substr(prefix.size());
    unsigned long long ino = 0;
    auto [ptr, err] = std::from_chars(digits.data(), digits.data() + digits.size(), ino);
    if (err != std::errc() || ptr != digits.data() + digits.size() || digits.empty()) continue;
    int fd = ::open(it->path().c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    UniqueFd owned(fd);
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != ino) continue;
    if (LockedBySomeone(fd)) continue;  // a live writer between link and rename
    struct stat again;
    // Still the same file under that name (not replaced since we opened it).
    if (::lstat(it->path().c_str(), &again) != 0 || again.st_ino != st.st_ino ||
        again.st_dev != st.st_dev) {
      continue;
    }
    if (::unlink(it->path().c_str()) == 0) ++removed;
  }
  if (removed > 0) (void)SyncFolderOf(final_path);
  return removed;
}

}  // namespace pteshare
