#include "rewriter/write/output_target.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "rewriter/io/file_io.h"

namespace pteshare {
namespace fs = std::filesystem;

namespace {

bool EndsWithSeparator(const fs::path& path) {
  const std::string& text = path.native();
  return !text.empty() && text.back() == '/';
}

// Whether following `path`'s symbolic links passes through /proc (as
// /dev/stdout and /dev/fd/N do): such a name stands for an open descriptor
// (a terminal, a pipe, or whatever file a shell redirected), not for a file
// the user named, and replacing what it resolves to would surprise.
bool ThroughProc(const fs::path& path) {
  fs::path at = fs::absolute(path).lexically_normal();
  for (int hop = 0; hop < 40; ++hop) {
    if (at.native().starts_with("/proc/")) return true;
    struct stat st;
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return false;
    char target[PATH_MAX];
    const ssize_t n = ::readlink(at.c_str(), target, sizeof target - 1);
    if (n < 0) return false;
    target[n] = '\0';
    const fs::path next(target);
    at = (next.is_absolute() ? next : at.parent_path() / next).lexically_normal();
  }
  return false;
}

}  // namespace

Result<ReplacedFile> ReplaceableFile(const fs::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return Error{std::string("cannot stat: ") + std::strerror(errno)};
  }
  if (!S_ISREG(st.st_mode)) {
    return Error{"is " + FileTypeName(st.st_mode) +
                 "; pteshare writes only a regular file or a new name"};
  }
  if (st.st_nlink > 1) {
    return Error{"has " + std::to_string(st.st_nlink) +
                 " names (hard links); replacing it would split it from the others, so pteshare "
                 "refuses (write to a new name)"};
  }
  return ReplacedFile{st.st_uid, st.st_gid, static_cast<unsigned>(st.st_mode) & 01777};
}

Result<OutputTarget> ResolveOutputTarget(const fs::path& input, const fs::path& out) {
  fs::path name = out;
  struct stat st;
  const bool exists = ::stat(out.c_str(), &st) == 0;
  if (EndsWithSeparator(out) || (exists && S_ISDIR(st.st_mode))) {
    if (!exists) return Error{"folder does not exist"};
    if (!S_ISDIR(st.st_mode)) return Error{"is not a folder (it ends with '/')"};
    name = out / input.filename();
  }
  return InspectOutput(name);
}

Result<OutputTarget> InspectOutput(const fs::path& final_name) {
  fs::path name = final_name;
  OutputTarget target;
  struct stat lst;
  if (::lstat(name.c_str(), &lst) != 0) {
    if (errno != ENOENT) return Error{std::string("cannot stat: ") + std::strerror(errno)};
    target.path = name;  // a new name
    return target;
  }
  if (S_ISLNK(lst.st_mode)) {
    if (ThroughProc(name)) {
      return Error{
          "names an open descriptor (through /proc), not a file; pteshare writes only a "
          "regular file or a new name"};
    }
    struct stat followed;
    if (::stat(name.c_str(), &followed) == 0 && !S_ISREG(followed.st_mode)) {
      return Error{"is a symbolic link to " + FileTypeName(followed.st_mode) +
                   "; pteshare writes only a regular file or a new name"};
    }
    Result<fs::path> real = ResolveLinks(name);
    if (!real.ok()) return real.error();
    name = *real;
  }
  Result<ReplacedFile> replaced = ReplaceableFile(name);
  if (!replaced.ok()) return replaced.error();
  target.path = name;
  target.replaced = *replaced;
  return target;
}

Status Preserve(int fd, const ReplacedFile& replaced, FileSystem& files) {
  struct stat now;
  if (const int err = files.StatFd(fd, &now); err != 0) {
    return Error{std::string("fstat failed: ") + std::strerror(err)};
  }
  if (now.st_uid != replaced.uid || now.st_gid != replaced.gid) {
    if (const int err = files.ChangeOwner(fd, replaced.uid, replaced.gid); err != 0) {
      return Error{"cannot give the new file the owner " + std::to_string(replaced.uid) + ":" +
                   std::to_string(replaced.gid) + " of the file it replaces (" +
                   std::strerror(err) + "); refusing to replace it with a file of another owner"};
    }
  }
  if (const int err = files.ChangeMode(fd, replaced.mode); err != 0) {
    return Error{std::string("cannot set the new file's mode: ") + std::strerror(err)};
  }
  return Status::Ok();
}

}  // namespace pteshare
