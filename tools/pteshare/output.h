// How every command speaks: errors as one line naming the file, numbers a
// person can read at a glance (tools/report/numbers.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "rewriter/base/result.h"
#include "tools/report/numbers.h"

namespace pteshare::cli {

/// `text` with control characters written as \n, \t, \r or \xHH, so that
/// it prints on one line.
std::string EscapeControl(std::string_view text);
/// Prints `pteshare: FILE: message` on stderr, on one line (EscapeControl).
void PrintFileError(const std::filesystem::path& file, const Error& error);
/// Prints `pteshare: message` on stderr, on one line.
void PrintError(std::string_view message);

}  // namespace pteshare::cli
