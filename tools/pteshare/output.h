// How every command speaks: errors as one line naming the file, numbers a
// person can read at a glance.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "rewriter/result.h"

namespace pteshare::cli {

/// `text` with control characters written as \n, \t, \r or \xHH, so that
/// it prints on one line.
std::string EscapeControl(std::string_view text);
/// Prints `pteshare: FILE: message` on stderr, on one line (EscapeControl).
void PrintFileError(const std::filesystem::path& file, const Error& error);
/// Prints `pteshare: message` on stderr, on one line.
void PrintError(std::string_view message);

/// 1234567 -> "1,234,567".
std::string Grouped(uint64_t value);
/// 1234567 -> "1.18 MiB" (exact bytes below 1 KiB).
std::string HumanBytes(uint64_t bytes);
/// "CPU", "CUDA:0", or the number for a device type we do not know.
std::string DeviceName(int8_t device_type, int8_t device_index);

}  // namespace pteshare::cli
