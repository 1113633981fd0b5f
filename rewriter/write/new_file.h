// NewFile: the safety of `rewrite -o`, for any content. OUT is inspected
// (output_target.h: a regular file with one name, a new name, or a link
// followed to one), the new file is built without a name beside it
// (pending_file.h), filled, fsynced and checked by re-reading it; OUT is
// inspected again (it must still be what was checked), and only then is
// the file linked as OUT or renamed over it and the folder fsynced. A
// replaced file's owner, group and mode are kept. Used for every file
// pteshare writes: rewritten programs (writer.h), rewritten bundles
// (bundle_writer.h) and pictures (`plot -o`).
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "rewriter/base/result.h"
#include "rewriter/io/file_system.h"

namespace pteshare {

struct NewFileSteps {
  /// Writes every byte of the new, empty file `fd`.
  std::function<Status(int fd)> fill;
  /// Re-reads the complete, synced file and says whether it may stand.
  std::function<Status(int fd)> check;
  /// Receives a line per step (may be empty).
  std::function<void(const std::string&)> say;
};

/// Writes a new file for `out` (see above). `source_fd`: the input, whose
/// permission bits a new name gets. The new file is made, synced and named
/// through `files` (file_system.h; the inspections of OUT stay real).
Status WriteNewFile(const std::filesystem::path& out, int source_fd, const NewFileSteps& steps,
                    FileSystem& files = RealFileSystem::Instance());

/// The same, a new name getting the permission bits `new_name_mode`.
Status WriteNewFileWithMode(const std::filesystem::path& out, unsigned new_name_mode,
                            const NewFileSteps& steps,
                            FileSystem& files = RealFileSystem::Instance());

/// 0666 less this process's umask: what a plain open(O_CREAT, 0666) gives
/// a new file (a picture, a report), read without changing the umask.
unsigned DefaultNewFileMode();

}  // namespace pteshare
