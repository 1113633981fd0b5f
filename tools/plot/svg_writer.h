// SvgWriter: builds an SVG (XML) document as text, element by element, with
// every attribute value and text escaped, and numbers in one short fixed
// format, so the same picture is the same bytes on every run and the
// output is well-formed whatever a tensor is named.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace pteshare::plot {

/// `text` with & < > " ' replaced by entities, and control characters other
/// than tab and newline (not allowed in XML 1.0) replaced by '?'.
std::string EscapeXml(std::string_view text);

/// A coordinate or length: at most two decimals, no trailing zeros, no
/// exponent, never "-0" ("12.5", "3", "0.07").
std::string SvgNumber(double value);

class SvgWriter {
 public:
  /// (name, value) pairs; values are escaped by the writer.
  using Attributes = std::initializer_list<std::pair<std::string_view, std::string_view>>;

  /// `<tag a="v" ...>`; must be matched by Close(tag).
  SvgWriter& Open(std::string_view tag, Attributes attributes = {});
  SvgWriter& Close(std::string_view tag);
  /// `<tag a="v" .../>`.
  SvgWriter& Empty(std::string_view tag, Attributes attributes = {});
  /// `<tag a="v" ...>text</tag>`.
  SvgWriter& Element(std::string_view tag, Attributes attributes, std::string_view text);
  /// Appended as is: for fixed markup (a <style> block) the caller wrote.
  SvgWriter& Raw(std::string_view markup);

  const std::string& str() const { return out_; }

 private:
  void StartTag(std::string_view tag, Attributes attributes);

  std::string out_;
};

}  // namespace pteshare::plot
