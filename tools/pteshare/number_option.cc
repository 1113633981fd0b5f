#include "tools/pteshare/number_option.h"

#include <cmath>
#include <cstdlib>

#include "tools/options/option_text.h"

namespace pteshare::cli {

CLI::Validator UnsignedInteger(uint64_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        Result<uint64_t> number = options::ReadUnsigned(text, max);
        return number.ok() ? "" : number.error().message;
      },
      // No name: CLI11 would append it to the placeholder each option
      // chooses ("--alignment BYTES:UINT").
      "");
}

CLI::Validator NonNegativeSeconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits =
            !text.empty() && text.find_first_not_of("0123456789.") == std::string::npos;
        char* end = nullptr;
        const double seconds = digits ? std::strtod(text.c_str(), &end) : -1;
        if (!digits || end != text.c_str() + text.size() || !std::isfinite(seconds)) {
          return "'" + text + "' is not a number of seconds (e.g. 2 or 0.5)";
        }
        return "";
      },
      "");
}

}  // namespace pteshare::cli
