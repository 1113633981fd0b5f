// Numbers in messages as a person reads them: 1234567 -> "1,234,567".
// Header-only beside result.h, so that every library down to the block
// planner writes the bytes of its errors the way the reports print them.
#pragma once

#include <cstdint>
#include <string>

namespace pteshare {

/// 1234567 -> "1,234,567".
inline std::string Grouped(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace pteshare
