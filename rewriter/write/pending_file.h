// PendingFile: a file the writer builds and only then gives a name, so that
// a writer killed at any moment leaves nothing a later command must guess
// about.
//
// It is made with O_TMPFILE in the folder of its final name: an inode with
// no name, which the kernel frees if the process dies. Publish() gives it
// its name:
//  - a new name: linkat straight to it (the name appears complete, or not at
//    all; there is no temporary name);
//  - replacing a file: linkat to `.BASE.pteshare-tmp-INO` (INO is the new
//    file's own inode number), then rename over the final name. A writer
//    killed between those two calls (microseconds) leaves that name.
// Such a leftover is recognised by CleanAbandonedTemps, never by its name
// alone: it must be a regular file whose inode number is the one in its
// name, and no live process may hold the open-file-description lock that
// every PendingFile holds on itself (the kernel drops it when its owner
// dies). Only then is it deleted; anything else is left alone.
//
// Filesystems without O_TMPFILE get the `.BASE.pteshare-tmp-INO` name at
// once (created under a unique name and renamed to it), deleted by the
// destructor unless published.
#pragma once

#include <filesystem>

#include "rewriter/base/result.h"
#include "rewriter/io/file_io.h"
#include "rewriter/io/file_system.h"

namespace pteshare {

class PendingFile {
 public:
  /// A new, empty, read-write file beside `final_path` with permissions
  /// `mode` (set-id bits are never given). Every call it makes, to its
  /// last unlink, goes through `files`, which must outlive it.
  static Result<PendingFile> Create(const std::filesystem::path& final_path, unsigned mode,
                                    FileSystem& files = RealFileSystem::Instance());

  PendingFile(PendingFile&&) noexcept = default;
  PendingFile& operator=(PendingFile&&) = delete;
  ~PendingFile();

  int fd() const { return fd_.get(); }
  /// Gives the file its final name. `replace`: rename over an existing file
  /// (atomic); otherwise the name must not exist yet (EEXIST is an error).
  /// The folder is fsynced afterwards.
  Status Publish(bool replace);
  /// Whether the file has its final name (Publish got that far, even if
  /// the fsync of its folder then failed).
  bool published() const { return published_; }

 private:
  PendingFile() = default;
  Status LinkAs(const std::filesystem::path& name);

  FileSystem* files_ = nullptr;
  std::filesystem::path final_path_;
  std::filesystem::path named_temp_;  // set while the file has a temporary name
  UniqueFd fd_;
  bool published_ = false;
  /// fsync of the final name's folder, its error saying the file is there.
  Status SyncPublishedFolder();
};

/// `.BASE.pteshare-tmp-INO` beside `final_path` for inode `ino`.
std::filesystem::path AbandonedTempName(const std::filesystem::path& final_path,
                                        unsigned long long ino);

/// Deletes the temporaries killed writers left beside `final_path` (see
/// above: provably ours and provably abandoned); returns how many. Errors
/// are ignored: a leftover that cannot be removed harms nothing.
size_t CleanAbandonedTemps(const std::filesystem::path& final_path);

}  // namespace pteshare
