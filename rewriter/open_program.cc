#include "rewriter/open_program.h"

namespace pteshare {

Result<OpenedProgram> OpenProgram(const std::filesystem::path& path, PteFile::Mode mode) {
  Result<PteFile> file = PteFile::Open(path, mode);
  if (!file.ok()) return file.error();
  Result<ProgramView> view = ReadProgramView(*file->program(), file->layout());
  if (!view.ok()) return view.error();
  return OpenedProgram{std::move(file).value(), std::move(view).value()};
}

}  // namespace pteshare
