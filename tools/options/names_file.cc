#include "tools/options/names_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tools/options/option_text.h"

namespace pteshare::options {
namespace {

constexpr std::string_view kSpace = " \t\r";

std::string_view Trimmed(std::string_view text) {
  const size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kSpace) - begin + 1);
}

// The line without its comment: from a '#' that starts it or follows a
// space (a name never holds " #").
std::string_view WithoutComment(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || kSpace.find(line[i - 1]) != std::string_view::npos)) {
      return line.substr(0, i);
    }
  }
  return line;
}

}  // namespace

Result<std::vector<ValueNaming>> ReadNamesText(std::string_view text, const std::string& path) {
  std::vector<ValueNaming> namings;
  size_t line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t newline = text.find('\n', start);
    const size_t end = newline == std::string_view::npos ? text.size() : newline;
    const std::string_view line = Trimmed(WithoutComment(text.substr(start, end - start)));
    start = end + 1;
    ++line_number;
    if (line.empty()) continue;
    const std::string origin = path + ":" + std::to_string(line_number);
    const std::string got = ", got '" + std::string(line) + "'";
    if (line.find_first_of(kSpace) != std::string_view::npos) {
      return Error{origin + ": expected " + kNamingForms + " (no spaces)" + got};
    }
    Result<ValueNaming> naming = ReadValueNaming(line);
    if (!naming.ok()) return Error{origin + ": " + naming.error().message + got};
    naming->origin = origin;
    namings.push_back(std::move(naming).value());
  }
  if (namings.empty()) {
    return Error{path + ": no names in it: expected lines of " + kNamingForms};
  }
  return namings;
}

Result<std::vector<ValueNaming>> ReadNamesFile(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec) return Error{path + ": cannot read: " + ec.message(), ErrorKind::kIo};
  // A FIFO or a device would block or never end.
  if (!std::filesystem::is_regular_file(status)) {
    return Error{path + ": cannot read: not a regular file", ErrorKind::kIo};
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) {
    return Error{path + ": cannot read: " + std::strerror(errno), ErrorKind::kIo};
  }
  return ReadNamesText(text.str(), path);
}

}  // namespace pteshare::options
