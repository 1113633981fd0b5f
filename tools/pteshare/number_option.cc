#include "tools/pteshare/number_option.h"

#include "tools/options/option_text.h"

namespace pteshare::cli {

CLI::Validator UnsignedInteger(uint64_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        Result<uint64_t> number = options::ReadUnsigned(text, max);
        return number.ok() ? "" : number.error().message;
      },
      "UINT");
}

}  // namespace pteshare::cli
