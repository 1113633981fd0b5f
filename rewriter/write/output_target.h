// OutputTarget: what a rewrite's output path names, decided before anything
// is written, so that pteshare writes only a regular file or a new name.
//
//  - A symbolic link is followed to its target (the link stays a link and
//    the target is rewritten); a link to nothing is refused.
//  - An existing folder means FOLDER/BASENAME of the input (also when OUT
//    is written with a trailing '/', for one input as for several).
//  - A device, FIFO, socket or folder at the final name is refused: a
//    rename over it would replace it (as root, even /dev/null).
//  - An existing regular file with several names (hard links) is refused:
//    a rename would silently split it from its other names.
//  - An existing regular file is replaced with its mode, owner and group
//    kept and its set-id bits cleared (Preserve), or not at all.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>

#include "rewriter/base/result.h"
#include "rewriter/io/file_system.h"

namespace pteshare {

/// Owner and permissions of a file that a rewrite replaces.
struct ReplacedFile {
  uid_t uid = 0;
  gid_t gid = 0;
  unsigned mode = 0;  // permission bits, set-id bits already cleared
};

struct OutputTarget {
  std::filesystem::path path;            // links resolved
  std::optional<ReplacedFile> replaced;  // set when a regular file is there
};

/// Resolves `out` for the input `input` (see above).
Result<OutputTarget> ResolveOutputTarget(const std::filesystem::path& input,
                                         const std::filesystem::path& out);
/// The same for a final name (no folder rule): a new name, or a link
/// followed to a replaceable regular file. The writer asks again just
/// before it renames, so what it replaces is what it checked.
Result<OutputTarget> InspectOutput(const std::filesystem::path& name);

/// Checks that the file at `path` (links resolved) may be replaced by a
/// rename: a regular file with one name. Returns what to keep.
Result<ReplacedFile> ReplaceableFile(const std::filesystem::path& path);

/// Gives the open new file `fd` the owner, group and mode of `replaced`
/// (owner first: chown clears set-id bits). An owner that cannot be kept
/// (not root, not ours) is an error: the rewrite is refused.
Status Preserve(int fd, const ReplacedFile& replaced,
                FileSystem& files = RealFileSystem::Instance());

}  // namespace pteshare
