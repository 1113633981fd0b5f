#include "rewriter/open_program.h"

#include <cstdio>

#include "rewriter/journal.h"

namespace pteshare {

Result<OpenedProgram> OpenProgram(const std::filesystem::path& path, PteFile::Mode mode) {
  // An interrupted in-place rewrite may have left the file half-patched;
  // every command rolls it back (under the writer lock) before reading.
  Result<Recovery> recovery = RecoverInterruptedRewrite(path);
  if (!recovery.ok()) return recovery.error();
  if (*recovery == Recovery::kRolledBack) {
    std::fprintf(stderr,
                 "pteshare: %s: rolled back an interrupted rewrite (journal %s); the file is "
                 "as it was before that rewrite\n",
                 path.c_str(), JournalPath(path).c_str());
  }
  Result<PteFile> file = PteFile::Open(path, mode);
  if (!file.ok()) return file.error();
  Result<ProgramView> view = ReadProgramView(*file->program(), file->layout());
  if (!view.ok()) return view.error();
  return OpenedProgram{std::move(file).value(), std::move(view).value()};
}

}  // namespace pteshare
