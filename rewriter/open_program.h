// OpenProgram: map a .pte and read its ProgramView in one step, the entry
// point every command uses. The view points into the file's mapping, which
// stays put when the pair is moved.
#pragma once

#include <filesystem>

#include "rewriter/program_view.h"
#include "rewriter/pte_file.h"

namespace pteshare {

struct OpenedProgram {
  PteFile file;
  ProgramView view;
};

Result<OpenedProgram> OpenProgram(const std::filesystem::path& path,
                                  PteFile::Mode mode = PteFile::Mode::kReadOnly);

}  // namespace pteshare
