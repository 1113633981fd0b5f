// OpenProgram: read a .pte and its ProgramView in one step, the entry point
// every command uses. The view points into the file's snapshot (pte_file.h),
// which stays put when the pair is moved.
#pragma once

#include <filesystem>
#include <string>

#include "rewriter/program/program_view.h"
#include "rewriter/program/pte_file.h"

namespace pteshare {

class WriterLock;

struct OpenedProgram {
  PteFile file;
  ProgramView view;
  /// Something the user should hear about that did not stop the open (an
  /// interrupted rewrite rolled back); empty otherwise. The library prints
  /// nothing: commands show it.
  std::string notice;
};

Result<OpenedProgram> OpenProgram(const std::filesystem::path& path);

/// The same for the file `lock` holds (its real path), for a writer that
/// took the lock and recovered first (rewrite.h): no journal can appear and
/// nothing can change the file meanwhile, so nothing is looked for or read
/// again. (OpenProgram would take the lock to recover a journal, and a
/// thread waiting for its own lock waits forever.)
Result<OpenedProgram> OpenLockedProgram(const WriterLock& lock);

/// The same for bytes in memory (PteFile::FromBytes): the view points into
/// `bytes`, which must outlive it.
Result<OpenedProgram> OpenProgramBytes(std::span<const uint8_t> bytes);

}  // namespace pteshare
