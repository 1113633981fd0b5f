#include "rewriter/write/new_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "rewriter/io/crash_points.h"
#include "rewriter/io/file_io.h"
#include "rewriter/write/output_target.h"
#include "rewriter/write/pending_file.h"

namespace pteshare {
namespace fs = std::filesystem;

unsigned DefaultNewFileMode() {
  // /proc/self/status says "Umask:\t0022" (Linux 4.7 on); umask(2) could
  // only be read by setting it, which races with other threads.
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) {
      return 0666u & ~static_cast<unsigned>(std::stoul(line.substr(6), nullptr, 8));
    }
  }
  return 0644;
}

Status WriteNewFile(const fs::path& out, int source_fd, const NewFileSteps& steps,
                    FileSystem& files) {
  struct stat source;
  if (const int err = files.StatFd(source_fd, &source); err != 0) {
    return Error{std::string("fstat: ") + strerror(err)};
  }
  return WriteNewFileWithMode(out, source.st_mode & 01777, steps, files);
}

Status WriteNewFileWithMode(const fs::path& out, unsigned new_name_mode, const NewFileSteps& steps,
                            FileSystem& files) {
  const auto say = [&](const std::string& line) {
    if (steps.say) steps.say(line);
  };
  Result<OutputTarget> target = InspectOutput(out);
  if (!target.ok())
    return Error{"refusing to write " + out.string() + ": it " + target.error().message};
  const unsigned mode = target->replaced ? target->replaced->mode : new_name_mode;
  CleanAbandonedTemps(target->path);
  Result<PendingFile> temp = PendingFile::Create(target->path, mode, files);
  if (!temp.ok()) return temp.error();
  const int fd = temp->fd();
  if (target->replaced) {
    Status kept = Preserve(fd, *target->replaced, files);
    if (!kept.ok()) return kept;
  }
  say("writing a new file for " + target->path.string());
  Status ok = steps.fill(fd);
  if (ok.ok()) ok = files.SyncFile(fd);
  if (!ok.ok()) return Error{"writing the new file failed: " + ok.error().message};
  Status checked = steps.check(fd);
  if (!checked.ok()) return Error{"refusing to finish: " + checked.error().message};
  // What is at OUT now must still be what was checked above.
  Result<OutputTarget> now = InspectOutput(target->path);
  if (!now.ok() || now->replaced.has_value() != target->replaced.has_value()) {
    return Error{"refusing to write " + out.string() + ": it changed while the new file was built"};
  }
  MaybeCrashAt("before-publish");
  Status published = temp->Publish(/*replace=*/target->replaced.has_value());
  if (!published.ok()) return published;
  // In the user's words: whether a file was there before, not how the
  // temporary got its name (a link for a new name, a rename over a file).
  say((target->replaced ? "replaced " : "created ") + target->path.string());
  return Status::Ok();
}

}  // namespace pteshare
