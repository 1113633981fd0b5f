// Numbers a person can read at a glance, in the text and JSON reports:
// grouped digits, binary units, device names.
#pragma once

#include <cstdint>
#include <string>

#include "rewriter/base/grouped.h"

namespace pteshare::cli {

/// 1234567 -> "1,234,567" (rewriter/base/grouped.h, which the library's
/// messages use too).
using ::pteshare::Grouped;
/// (1, "call", "calls") -> "1 call", (1234, ...) -> "1,234 calls".
std::string Counted(uint64_t count, const std::string& one, const std::string& many);
/// 1234567 -> "1.18 MiB" (exact bytes below 1 KiB).
std::string HumanBytes(uint64_t bytes);
/// "CPU", "CUDA:0", or the number for a device type we do not know.
std::string DeviceName(int8_t device_type, int8_t device_index);

}  // namespace pteshare::cli
