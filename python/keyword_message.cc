#include "python/keyword_message.h"

#include <cctype>
#include <string_view>
#include <vector>

#include "tools/options/option_table.h"

namespace pteshare::python {
namespace {

using options::OptionRow;
using options::ValueKind;

struct FlagWord {
  std::string flag;
  std::string keyword;
  ValueKind kind;
  const OptionRow* row = nullptr;  // null for rewrite's own switches
};

std::vector<FlagWord> FlagWords() {
  std::vector<FlagWord> words;
  for (const OptionRow& row : options::OptionTable()) {
    words.push_back({row.flag, row.keyword, row.kind, &row});
  }
  words.push_back({"--write-names", "write_names", ValueKind::kSwitch});
  words.push_back({"--allow-position-names", "allow_position_names", ValueKind::kSwitch});
  words.push_back({"--in-place", "in_place", ValueKind::kSwitch});
  return words;
}

bool IsFlagChar(char c) { return std::islower(static_cast<unsigned char>(c)) || c == '-'; }

std::string Quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

// The value a message gives after the flag, as Python writes it, or empty
// when the text after the flag is no value of it.
std::string PythonValue(const FlagWord& word, std::string_view token) {
  const size_t equals = token.rfind('=');
  switch (word.kind) {
    case ValueKind::kSwitch:
      return "";
    case ValueKind::kWord:
      for (const options::Word& w : word.row->words) {
        if (token == w.name) return Quoted(token);
      }
      return "";
    case ValueKind::kUnsigned:
      for (char c : token) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return "";
      }
      return std::string(token);
    case ValueKind::kNameList:
      if (token == "NAME") return "['NAME']";
      if (token == "NAME...") return "['NAME', ...]";
      return "";
    case ValueKind::kValueNamings:
      // METHOD:VALUE_INDEX=NAME or paired_state.K=NAME.
      if (equals == std::string_view::npos || equals == 0) return "";
      return "{" + Quoted(token.substr(0, equals)) + ": " + Quoted(token.substr(equals + 1)) + "}";
    case ValueKind::kNamesFile:
      return Quoted(token);
    case ValueKind::kArenaLimits:
      if (equals == std::string_view::npos) return "";
      return "{" + std::string(token.substr(0, equals)) + ": " +
             std::string(token.substr(equals + 1)) + "}";
  }
  return "";
}

}  // namespace

std::string InKeywordTerms(const std::string& message) {
  static const std::vector<FlagWord> words = FlagWords();
  std::string out;
  size_t i = 0;
  while (i < message.size()) {
    const bool at_word_start = i == 0 || !IsFlagChar(message[i - 1]);
    size_t flag_end = i + 2;
    while (flag_end < message.size() && IsFlagChar(message[flag_end])) ++flag_end;
    const FlagWord* word = nullptr;
    if (at_word_start && message.compare(i, 2, "--") == 0) {
      const std::string_view flag(message.data() + i, flag_end - i);
      for (const FlagWord& w : words) {
        if (flag == w.flag) word = &w;
      }
    }
    if (word == nullptr) {
      out += message[i++];
      continue;
    }
    i = flag_end;
    if (word->kind == ValueKind::kSwitch) {
      out += word->keyword + "=True";
      continue;
    }
    // The token after one space, without the punctuation that ends a
    // clause ("--name decode:22=k0: the program has ...").
    std::string value;
    size_t token_end = i;
    if (i < message.size() && message[i] == ' ') {
      token_end = message.find(' ', i + 1);
      if (token_end == std::string::npos) token_end = message.size();
      while (token_end > i + 1 &&
             std::string_view(":,;)").find(message[token_end - 1]) != std::string_view::npos) {
        --token_end;
      }
      value = PythonValue(*word, std::string_view(message).substr(i + 1, token_end - i - 1));
    }
    if (value.empty()) {
      out += word->keyword + (i < message.size() && message[i] == ':' ? "" : "=");
    } else {
      out += word->keyword + "=" + value;
      i = token_end;
    }
  }
  return out;
}

}  // namespace pteshare::python
