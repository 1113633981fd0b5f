#include "tools/pteshare/output.h"

#include <cstdio>

#include "tools/pteshare/json_document.h"

namespace pteshare::cli {

std::string EscapeControl(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    }
  }
  return out;
}

void PrintFileError(const std::filesystem::path& file, const Error& error) {
  RecordError({file.string(), error.message});  // the first error of a run is kept
  PrintError(file.string() + ": " + error.message);
}

void PrintError(std::string_view message) {
  // One line, always: a name or message with a newline in it cannot split it.
  const std::string line = EscapeControl(message);
  std::fprintf(stderr, "pteshare: %s\n", line.c_str());
  RecordError({"", std::string(message)});
}

}  // namespace pteshare::cli
