// JsonWriter: a small streaming writer for the `--json` output of every
// command. Keys come out in the order they are written, so output is
// deterministic; strings are escaped per RFC 8259, and a byte that is not
// part of well-formed UTF-8 is written as the text \xNN, so the document is
// always valid UTF-8 and valid JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pteshare::cli {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  /// Writes `"key":`; the next value call supplies the value.
  JsonWriter& Key(std::string_view key);

  JsonWriter& String(std::string_view value);
  JsonWriter& Uint(uint64_t value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Double(double value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  /// A whole document another JsonWriter made, as this value (indented to
  /// its depth; its final newline dropped).
  JsonWriter& Document(std::string_view document);

  // Key + value in one call.
  JsonWriter& Field(std::string_view key, std::string_view value) { return Key(key).String(value); }
  JsonWriter& Field(std::string_view key, const char* value) { return Key(key).String(value); }
  JsonWriter& Field(std::string_view key, const std::string& value) {
    return Key(key).String(value);
  }
  JsonWriter& Field(std::string_view key, uint64_t value) { return Key(key).Uint(value); }
  JsonWriter& Field(std::string_view key, uint32_t value) { return Key(key).Uint(value); }
  JsonWriter& Field(std::string_view key, int64_t value) { return Key(key).Int(value); }
  JsonWriter& Field(std::string_view key, int value) { return Key(key).Int(value); }
  JsonWriter& Field(std::string_view key, double value) { return Key(key).Double(value); }
  JsonWriter& Field(std::string_view key, bool value) { return Key(key).Bool(value); }

  /// The document so far, with two-space indentation and a final newline
  /// once every object and array is closed.
  const std::string& str() const { return out_; }

 private:
  void BeforeValue();
  JsonWriter& Close(char bracket);
  void WriteQuoted(std::string_view value);
  void Newline();

  std::string out_;
  // Per open container: whether it already has an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

}  // namespace pteshare::cli
