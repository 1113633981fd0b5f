#include "tools/pteshare/open_input.h"

#include "tools/pteshare/output.h"

namespace pteshare::cli {

std::optional<OpenedProgram> OpenInput(const std::string& file) {
  Result<OpenedProgram> opened = OpenProgram(file);
  if (!opened.ok()) {
    PrintFileError(file, opened.error());
    return std::nullopt;
  }
  if (!opened->notice.empty()) PrintFileError(file, Error{opened->notice});
  return std::move(opened).value();
}

}  // namespace pteshare::cli
