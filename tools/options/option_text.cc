#include "tools/options/option_text.h"

#include <charconv>
#include <optional>

#include "tools/options/names_file.h"

namespace pteshare::options {
namespace {

std::string Quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

// The error `error` about `text`, said of the row's flag.
Error AboutText(const OptionRow& row, std::string_view text, const Error& error) {
  return Error{std::string(row.flag) + " " + Quoted(text) + ": " + error.message, error.kind};
}

Error AboutFlag(const OptionRow& row, const Error& error) {
  return Error{std::string(row.flag) + ": " + error.message, error.kind};
}

// Every text of an option that takes a list, read by `read`.
template <typename T, typename Read>
Result<OptionValue> ReadEach(const OptionRow& row, const std::vector<std::string>& texts,
                             Read read) {
  std::vector<T> values;
  for (const std::string& text : texts) {
    Result<T> value = read(text);
    if (!value.ok()) return AboutText(row, text, value.error());
    values.push_back(std::move(value).value());
  }
  return OptionValue(std::move(values));
}

Result<OptionValue> ReadArenaLimits(const OptionRow& row, const std::vector<std::string>& texts) {
  std::map<uint32_t, uint64_t> limits;
  for (const std::string& text : texts) {
    Result<std::pair<uint32_t, uint64_t>> limit = ReadArenaLimit(text);
    if (!limit.ok()) return AboutText(row, text, limit.error());
    if (Status id = CheckArenaId(limit->first); !id.ok()) return AboutText(row, text, id.error());
    Status added = AddArenaLimit(limits, limit->first, limit->second);
    if (!added.ok()) return AboutFlag(row, added.error());
  }
  return OptionValue(std::move(limits));
}

// The one text of a single-value option, or its default.
std::string_view SingleText(const OptionRow& row, const std::vector<std::string>& texts) {
  return texts.empty() ? std::string_view(row.default_text) : std::string_view(texts.back());
}

}  // namespace

Result<int> ReadWord(const OptionRow& row, std::string_view text) {
  for (const Word& word : row.words) {
    if (text == word.name) return word.value;
  }
  return Error{Quoted(text) + ": expected " + WordList(row)};
}

Result<uint64_t> ReadUnsigned(std::string_view text, uint64_t max) {
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) return Error{Quoted(text) + " is not a non-negative integer"};
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > max) {
    return Error{Quoted(text) + " is more than " + std::to_string(max)};
  }
  return value;
}

Result<std::pair<uint32_t, uint64_t>> ReadArenaLimit(std::string_view text) {
  const size_t eq = text.find('=');
  uint32_t id = 0;
  uint64_t bytes = 0;
  bool ok = eq != std::string_view::npos && eq > 0 && eq + 1 < text.size();
  if (ok) {
    auto [id_end, id_ec] = std::from_chars(text.data(), text.data() + eq, id);
    auto [bytes_end, bytes_ec] =
        std::from_chars(text.data() + eq + 1, text.data() + text.size(), bytes);
    ok = id_ec == std::errc() && id_end == text.data() + eq && bytes_ec == std::errc() &&
         bytes_end == text.data() + text.size();
  }
  if (!ok) return Error{"expected ID=BYTES, e.g. 1=1048576"};
  return std::make_pair(id, bytes);
}

Status CheckArenaId(uint32_t id) {
  if (id == 0) return Error{"arena ids start at 1"};
  return Status::Ok();
}

Status AddArenaLimit(std::map<uint32_t, uint64_t>& limits, uint32_t id, uint64_t bytes) {
  if (Status valid = CheckArenaId(id); !valid.ok()) return valid;
  auto [it, fresh] = limits.emplace(id, bytes);
  if (!fresh && it->second != bytes) {
    return Error{"arena " + std::to_string(id) + " is given two limits, " +
                 std::to_string(it->second) + " and " + std::to_string(bytes)};
  }
  return Status::Ok();
}

Result<ValueNaming> ReadValueNaming(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    return Error{std::string("expected ") + kNamingForms};
  }
  const std::string_view position = text.substr(0, eq);
  std::optional<ValueNaming> naming = ParseValuePosition(position);
  if (!naming) {
    if (position.substr(0, kPairedStatePrefix.size()) == kPairedStatePrefix) {
      return Error{"K " + Quoted(position.substr(kPairedStatePrefix.size())) + " of " +
                   std::string(kPairedStatePrefix) + "K is not a non-negative integer"};
    }
    // METHOD may itself contain ':' in principle; the index follows the
    // last ':'.
    const size_t colon = position.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
      return Error{std::string("expected ") + kNamingForms};
    }
    return Error{"VALUE_INDEX " + Quoted(position.substr(colon + 1)) +
                 " is not a non-negative integer"};
  }
  naming->name = std::string(text.substr(eq + 1));
  return std::move(*naming);
}

Result<OptionValue> ReadTexts(const OptionRow& row, const std::vector<std::string>& texts) {
  switch (row.kind) {
    case ValueKind::kWord: {
      Result<int> word = ReadWord(row, SingleText(row, texts));
      if (!word.ok()) return AboutFlag(row, word.error());
      return OptionValue(*word);
    }
    case ValueKind::kUnsigned: {
      Result<uint64_t> number = ReadUnsigned(SingleText(row, texts));
      if (!number.ok()) return AboutFlag(row, number.error());
      return OptionValue(*number);
    }
    case ValueKind::kArenaLimits:
      return ReadArenaLimits(row, texts);
    case ValueKind::kNameList:
      return OptionValue(texts);
    case ValueKind::kValueNamings:
      return ReadEach<ValueNaming>(row, texts, ReadValueNaming);
    case ValueKind::kNamesFile: {
      // The file's errors name the file and line, which the flag need not.
      std::vector<ValueNaming> namings;
      for (const std::string& path : texts) {
        Result<std::vector<ValueNaming>> read = ReadNamesFile(path);
        if (!read.ok()) return read.error();
        for (ValueNaming& naming : *read) namings.push_back(std::move(naming));
      }
      return OptionValue(std::move(namings));
    }
    case ValueKind::kSwitch:
      break;
  }
  return OptionValue(!texts.empty());  // a switch: on when given
}

}  // namespace pteshare::options
