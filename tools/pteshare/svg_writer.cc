#include "tools/pteshare/svg_writer.h"

#include <cmath>
#include <cstdio>

namespace pteshare::cli {

std::string EscapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters even as entities.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string SvgNumber(double value) {
  if (!std::isfinite(value)) return "0";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f", value);
  std::string out = buf;
  // "12.50" -> "12.5", "3.00" -> "3".
  while (!out.empty() && out.back() == '0') out.pop_back();
  if (!out.empty() && out.back() == '.') out.pop_back();
  if (out == "-0") out = "0";
  return out;
}

void SvgWriter::StartTag(std::string_view tag, Attributes attributes) {
  out_ += '<';
  out_ += tag;
  for (const auto& [name, value] : attributes) {
    out_ += ' ';
    out_ += name;
    out_ += "=\"";
    out_ += EscapeXml(value);
    out_ += '"';
  }
}

SvgWriter& SvgWriter::Open(std::string_view tag, Attributes attributes) {
  StartTag(tag, attributes);
  out_ += ">";
  return *this;
}

SvgWriter& SvgWriter::Close(std::string_view tag) {
  out_ += "</";
  out_ += tag;
  out_ += ">\n";
  return *this;
}

SvgWriter& SvgWriter::Empty(std::string_view tag, Attributes attributes) {
  StartTag(tag, attributes);
  out_ += "/>\n";
  return *this;
}

SvgWriter& SvgWriter::Element(std::string_view tag, Attributes attributes, std::string_view text) {
  StartTag(tag, attributes);
  out_ += '>';
  out_ += EscapeXml(text);
  out_ += "</";
  out_ += tag;
  out_ += ">\n";
  return *this;
}

SvgWriter& SvgWriter::Raw(std::string_view markup) {
  out_ += markup;
  return *this;
}

}  // namespace pteshare::cli
