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

std::string Grouped(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string HumanBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %s", value, units[unit]);
  return buf;
}

std::string DeviceName(int8_t device_type, int8_t device_index) {
  switch (device_type) {
    case 0:
      return "CPU";
    case 1:
      return "CUDA:" + std::to_string(device_index);
    default:
      return "device " + std::to_string(device_type) + ":" + std::to_string(device_index);
  }
}

}  // namespace pteshare::cli
