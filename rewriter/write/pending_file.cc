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

Error SystemError(const std::string& what, int err) {
  return Error{what + ": " + std::strerror(err)};
}

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
// dead one's. 0 or the errno.
int LockOwnFile(FileSystem& files, int fd) { return files.LockWholeFile(fd, LockWait::kTry); }

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

Result<PendingFile> PendingFile::Create(const fs::path& final_path, unsigned mode,
                                        FileSystem& files) {
  PendingFile file;
  file.files_ = &files;
  file.final_path_ = final_path;
  const mode_t permissions = static_cast<mode_t>(mode) & 01777;  // never set-id
  int err = files.Open(FolderOf(final_path), O_TMPFILE | O_RDWR, permissions, &file.fd_);
  if (err == EOPNOTSUPP || err == EISDIR || err == EINVAL) {
    // No O_TMPFILE here: a unique name first, then the recognisable one.
    static std::atomic<unsigned> counter{0};
    const fs::path unique =
        FolderOf(final_path) / (TempPrefix(final_path) + "new-" + std::to_string(::getpid()) + "-" +
                                std::to_string(counter++));
    err = files.Open(unique, O_RDWR | O_CREAT | O_EXCL, permissions, &file.fd_);
    if (err != 0) {
      return SystemError("cannot create a temporary file in " + FolderOf(final_path).string(), err);
    }
    struct stat st;
    if (err = files.StatFd(file.fd(), &st); err != 0) {
      files.Unlink(unique);
      return SystemError("fstat failed", err);
    }
    file.named_temp_ = AbandonedTempName(final_path, st.st_ino);
    if (err = files.Rename(unique, file.named_temp_); err != 0) {
      files.Unlink(unique);
      return SystemError("cannot rename the temporary file", err);
    }
  } else if (err != 0) {
    return SystemError("cannot create a temporary file in " + FolderOf(final_path).string(), err);
  }
  // umask may have narrowed the mode; the caller asked for exactly this.
  if (err = files.ChangeMode(file.fd(), permissions); err != 0) {
    return SystemError("cannot set the temporary file's mode", err);
  }
  if (err = LockOwnFile(files, file.fd()); err != 0) {
    return SystemError("cannot lock the temporary file", err);
  }
  return file;
}

PendingFile::~PendingFile() {
  if (!published_ && !named_temp_.empty()) files_->Unlink(named_temp_);
}

Status PendingFile::LinkAs(const fs::path& name) {
  // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd works for anyone.
  int err = files_->LinkAt(fd(), "", name, AT_EMPTY_PATH);
  if (err == 0) return Status::Ok();
  if (err != ENOENT && err != EPERM) return SystemError("cannot link " + name.string(), err);
  const std::string proc = "/proc/self/fd/" + std::to_string(fd());
  if (err = files_->LinkAt(AT_FDCWD, proc, name, AT_SYMLINK_FOLLOW); err != 0) {
    return SystemError("cannot link " + name.string(), err);
  }
  return Status::Ok();
}

Status PendingFile::Publish(bool replace) {
  if (named_temp_.empty()) {
    if (!replace) {
      Status linked = LinkAs(final_path_);
      if (!linked.ok()) return linked;
      published_ = true;
      return SyncPublishedFolder();
    }
    struct stat st;
    if (const int err = files_->StatFd(fd(), &st); err != 0)
      return SystemError("fstat failed", err);
    const fs::path temp = AbandonedTempName(final_path_, st.st_ino);
    Status linked = LinkAs(temp);
    if (!linked.ok()) return linked;
    named_temp_ = temp;
    MaybeCrashAt("after-temp-link");
  }
  if (!replace) {
    // Without O_TMPFILE: link(2) refuses an existing name as linkat does.
    if (const int err = files_->Link(named_temp_, final_path_); err != 0) {
      return SystemError("cannot link " + final_path_.string(), err);
    }
    files_->Unlink(named_temp_);
  } else if (const int err = files_->Rename(named_temp_, final_path_); err != 0) {
    return SystemError("cannot rename " + named_temp_.string() + " to " + final_path_.string(),
                       err);
  }
  published_ = true;
  return SyncPublishedFolder();
}

Status PendingFile::SyncPublishedFolder() {
  // The file is complete under its name; only the name's durability
  // failed. The error says so (result.h's kIo otherwise reads "nothing
  // written").
  if (Status synced = files_->SyncFolderOf(final_path_); !synced.ok()) {
    return Error{final_path_.string() + " is written and in place, but " + synced.error().message +
                     ": after a crash it may not be",
                 ErrorKind::kIo};
  }
  return Status::Ok();
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
