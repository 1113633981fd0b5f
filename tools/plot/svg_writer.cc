#include "tools/plot/svg_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pteshare::plot {

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
  const int written = std::snprintf(buf, sizeof buf, "%.2f", value);
  size_t length = written > 0 ? std::min(static_cast<size_t>(written), sizeof buf - 1) : 0;
  // "12.50" -> "12.5", "3.00" -> "3" (%.2f always writes the point).
  while (length > 0 && buf[length - 1] == '0') --length;
  if (length > 0 && buf[length - 1] == '.') --length;
  const std::string_view text(buf, length);
  return text == "-0" ? std::string("0") : std::string(text);
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

}  // namespace pteshare::plot
