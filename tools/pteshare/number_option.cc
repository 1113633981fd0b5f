#include "tools/pteshare/number_option.h"

#include <charconv>

namespace pteshare::cli {

CLI::Validator UnsignedInteger(uint64_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        const bool digits =
            !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits) return "'" + text + "' is not a non-negative integer";
        uint64_t value = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size() || value > max) {
          return "'" + text + "' is more than " + std::to_string(max);
        }
        return "";
      },
      "UINT");
}

}  // namespace pteshare::cli
