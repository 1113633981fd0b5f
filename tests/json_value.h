// A small JSON reader for tests that check documents the tools write (the
// `plot --trace` trace, `inspect --json`) by their structure rather than by
// regular expressions: RFC 8259 values into a tree, with an error naming
// the byte where the text stops being JSON. Numbers keep whether they were
// written as integers, so a test can check a field's type. Test-only: the
// tools write JSON (tools/report/json_writer.h) and never read it.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace pteshare::test_support {

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  /// A number written without fraction or exponent.
  bool integer = false;
  std::string text;
  std::vector<JsonValue> items;
  /// An object's keys in the order written, and their values (two vectors:
  /// a pair of a type still being defined is not a complete type).
  std::vector<std::string> keys;
  std::vector<JsonValue> values;

  bool is(Type t) const { return type == t; }
  /// The member `key` of an object, or nullptr.
  const JsonValue* find(const std::string& key) const {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return &values[i];
    }
    return nullptr;
  }
};

class JsonReader {
 public:
  /// The document in `text`, or nullopt with `error()` saying where it
  /// stopped being JSON.
  std::optional<JsonValue> Read(const std::string& text) {
    text_ = &text;
    at_ = 0;
    error_.clear();
    JsonValue value;
    if (!Value(value, 0)) return std::nullopt;
    Space();
    if (at_ != text.size()) {
      Fail("text after the document");
      return std::nullopt;
    }
    return value;
  }
  const std::string& error() const { return error_; }

 private:
  bool Fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at byte " + std::to_string(at_);
    return false;
  }
  char Peek() const { return at_ < text_->size() ? (*text_)[at_] : '\0'; }
  void Space() {
    while (at_ < text_->size() &&
           (Peek() == ' ' || Peek() == '\n' || Peek() == '\t' || Peek() == '\r')) {
      ++at_;
    }
  }
  bool Literal(const char* word) {
    const std::string w(word);
    if (text_->compare(at_, w.size(), w) != 0) return false;
    at_ += w.size();
    return true;
  }

  bool Value(JsonValue& value, int depth) {
    if (depth > 200) return Fail("nested too deep");
    Space();
    const char c = Peek();
    if (c == '{') return Object(value, depth);
    if (c == '[') return Array(value, depth);
    if (c == '"') {
      value.type = JsonValue::Type::kString;
      return String(value.text);
    }
    for (const bool word : {true, false}) {
      if (Literal(word ? "true" : "false")) {
        value.type = JsonValue::Type::kBool;
        value.boolean = word;
        return true;
      }
    }
    if (Literal("null")) return true;
    return Number(value);
  }

  bool Object(JsonValue& value, int depth) {
    value.type = JsonValue::Type::kObject;
    ++at_;
    Space();
    if (Peek() == '}') return ++at_, true;
    for (;;) {
      Space();
      std::string key;
      if (Peek() != '"' || !String(key)) return Fail("expected a key");
      Space();
      if (Peek() != ':') return Fail("expected ':'");
      ++at_;
      JsonValue member;
      if (!Value(member, depth + 1)) return false;
      value.keys.push_back(std::move(key));
      value.values.push_back(std::move(member));
      Space();
      if (Peek() == ',') {
        ++at_;
        continue;
      }
      if (Peek() == '}') return ++at_, true;
      return Fail("expected ',' or '}'");
    }
  }

  bool Array(JsonValue& value, int depth) {
    value.type = JsonValue::Type::kArray;
    ++at_;
    Space();
    if (Peek() == ']') return ++at_, true;
    for (;;) {
      JsonValue item;
      if (!Value(item, depth + 1)) return false;
      value.items.push_back(std::move(item));
      Space();
      if (Peek() == ',') {
        ++at_;
        continue;
      }
      if (Peek() == ']') return ++at_, true;
      return Fail("expected ',' or ']'");
    }
  }

  bool String(std::string& out) {
    ++at_;  // the opening quote
    while (at_ < text_->size()) {
      const char c = (*text_)[at_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = Peek();
      ++at_;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (at_ + 4 > text_->size()) return Fail("short \\u escape");
          for (size_t i = 0; i < 4; ++i) {
            if (!std::isxdigit(static_cast<unsigned char>((*text_)[at_ + i]))) {
              return Fail("bad \\u escape");
            }
          }
          const unsigned code =
              static_cast<unsigned>(std::stoul(text_->substr(at_, 4), nullptr, 16));
          at_ += 4;
          // Kept as one byte below 0x80, as '?' above: tests compare ASCII.
          out += code < 0x80 ? static_cast<char>(code) : '?';
          break;
        }
        default:
          return Fail("bad escape");
      }
    }
    return Fail("unterminated string");
  }

  bool Number(JsonValue& value) {
    const size_t start = at_;
    if (Peek() == '-') ++at_;
    if (Peek() == '0') {
      ++at_;
    } else if (std::isdigit(static_cast<unsigned char>(Peek()))) {
      while (std::isdigit(static_cast<unsigned char>(Peek()))) ++at_;
    } else {
      return Fail("expected a value");
    }
    bool integer = true;
    if (Peek() == '.') {
      integer = false;
      ++at_;
      if (!std::isdigit(static_cast<unsigned char>(Peek()))) return Fail("bad fraction");
      while (std::isdigit(static_cast<unsigned char>(Peek()))) ++at_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      integer = false;
      ++at_;
      if (Peek() == '+' || Peek() == '-') ++at_;
      if (!std::isdigit(static_cast<unsigned char>(Peek()))) return Fail("bad exponent");
      while (std::isdigit(static_cast<unsigned char>(Peek()))) ++at_;
    }
    value.type = JsonValue::Type::kNumber;
    value.integer = integer;
    value.number = std::strtod(text_->substr(start, at_ - start).c_str(), nullptr);
    return true;
  }

  const std::string* text_ = nullptr;
  size_t at_ = 0;
  std::string error_;
};

}  // namespace pteshare::test_support
