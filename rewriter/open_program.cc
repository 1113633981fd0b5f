#include "rewriter/open_program.h"

#include "rewriter/journal.h"
#include "rewriter/output_target.h"

namespace pteshare {

Result<OpenedProgram> OpenProgram(const std::filesystem::path& path, PteFile::Mode mode) {
  // An interrupted in-place rewrite may have left the file half-patched;
  // every command rolls it back (under the writer lock) before reading.
  Result<Recovery> recovery = RecoverInterruptedRewrite(path);
  if (!recovery.ok()) return recovery.error();
  std::string notice;
  if (*recovery == Recovery::kRolledBack) {
    Result<std::filesystem::path> real = ResolveLinks(path);
    notice = "rolled back an interrupted rewrite (journal " +
             JournalPath(real.ok() ? *real : path).string() +
             "); the file is as it was before that rewrite";
  }
  Result<PteFile> file = PteFile::Open(path, mode);
  if (!file.ok()) return file.error();
  Result<ProgramView> view = ReadProgramView(*file->program(), file->layout());
  if (!view.ok()) return view.error();
  return OpenedProgram{std::move(file).value(), std::move(view).value(), std::move(notice)};
}

}  // namespace pteshare
