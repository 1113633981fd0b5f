// Checks the `pteshare plot` tests make on the SVG they read back: counts
// of a substring, XML well-formedness, the texts of a class, and the label
// boxes the label placer wrote (data-box="x y w h") with the pairs that
// overlap.
#pragma once

#include <algorithm>
#include <cctype>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace pteshare::test_support {

inline size_t Count(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

/// A small XML well-formedness check (what the SVG needs): every tag is
/// closed in order, attribute values are quoted, '<' never appears in text
/// or values, and every '&' starts one of the five entities or a character
/// reference. Returns an empty string or what is wrong and where.
inline std::string XmlProblem(const std::string& xml) {
  std::vector<std::string> open;
  auto entity_ok = [&](size_t at) {
    static const std::regex entity("&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
    return std::regex_search(xml.begin() + at, xml.begin() + std::min(xml.size(), at + 12), entity,
                             std::regex_constants::match_continuous);
  };
  size_t i = 0;
  bool root_seen = false;
  while (i < xml.size()) {
    if (xml[i] == '&' && !entity_ok(i)) return "bad entity at " + std::to_string(i);
    if (xml[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(xml[i]))) {
        return "text outside the root at " + std::to_string(i);
      }
      ++i;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0 || xml.compare(i, 2, "<?") == 0) {
      const std::string close = xml.compare(i, 4, "<!--") == 0 ? "-->" : "?>";
      size_t end = xml.find(close, i);
      if (end == std::string::npos) return "unclosed comment or declaration";
      i = end + close.size();
      continue;
    }
    const bool closing = xml.compare(i, 2, "</") == 0;
    size_t j = i + (closing ? 2 : 1);
    size_t name_start = j;
    while (j < xml.size() && (std::isalnum(static_cast<unsigned char>(xml[j])) || xml[j] == '-' ||
                              xml[j] == ':' || xml[j] == '_')) {
      ++j;
    }
    const std::string name = xml.substr(name_start, j - name_start);
    if (name.empty()) return "tag without a name at " + std::to_string(i);
    // Attributes: name="value".
    for (;;) {
      while (j < xml.size() && std::isspace(static_cast<unsigned char>(xml[j]))) ++j;
      if (j >= xml.size()) return "unterminated tag <" + name;
      if (xml[j] == '>' || xml.compare(j, 2, "/>") == 0) break;
      if (closing) return "attribute in closing tag </" + name;
      size_t eq = xml.find('=', j);
      if (eq == std::string::npos || xml[eq + 1] != '"') {
        return "unquoted attribute in <" + name + " at " + std::to_string(j);
      }
      size_t value_end = xml.find('"', eq + 2);
      if (value_end == std::string::npos) return "unterminated attribute in <" + name;
      for (size_t k = eq + 2; k < value_end; ++k) {
        if (xml[k] == '<') return "'<' in an attribute of <" + name;
        if (xml[k] == '&' && !entity_ok(k)) return "bad entity in an attribute of <" + name;
      }
      j = value_end + 1;
    }
    const bool self_closing = xml[j] == '/';
    i = j + (self_closing ? 2 : 1);
    if (closing) {
      if (open.empty() || open.back() != name) return "</" + name + "> closes nothing open";
      open.pop_back();
    } else if (!self_closing) {
      if (open.empty() && root_seen) return "a second root <" + name + ">";
      root_seen = true;
      open.push_back(name);
    }
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  return root_seen ? "" : "no root element";
}

/// The text of every <text class="CLASS" ...> element.
inline std::vector<std::string> TextsOfClass(const std::string& svg, const std::string& css_class) {
  const std::regex text("<text class=\"" + css_class + "\"[^>]*>([^<]*)</text>");
  std::vector<std::string> texts;
  for (std::sregex_iterator it(svg.begin(), svg.end(), text), end; it != end; ++it) {
    texts.push_back((*it)[1].str());
  }
  return texts;
}

/// The lines of every <text class="CLASS"> joined by spaces: a note the
/// header wrapped, whole again.
inline std::string JoinedTexts(const std::string& svg, const std::string& css_class) {
  std::string joined;
  for (const std::string& line : TextsOfClass(svg, css_class)) {
    joined += (joined.empty() ? "" : " ") + line;
  }
  return joined;
}

/// `svg` without its zoom panels (they draw again what a full panel
/// drew): from each `<g class="panel ... zoom">` to the next panel.
inline std::string WithoutZoomPanels(const std::string& svg) {
  std::string out;
  size_t at = 0;
  for (;;) {
    const size_t zoom = svg.find(" zoom\">", at);
    if (zoom == std::string::npos) break;
    const size_t start = svg.rfind("<g class=\"panel", zoom);
    out += svg.substr(at, start - at);
    const size_t next = svg.find("<g class=\"panel", zoom);
    at = next == std::string::npos ? svg.rfind("</svg>") : next;
  }
  return out + svg.substr(at);
}

/// A label's box as the placer recorded it, and its text.
struct SvgLabel {
  double x = 0, y = 0, width = 0, height = 0;
  std::string text;
};

/// Every <text data-box="..."> of `svg`, in document order.
inline std::vector<SvgLabel> LabelBoxes(const std::string& svg) {
  static const std::regex label(
      "<text [^>]*data-box=\"([-0-9.]+) ([-0-9.]+) ([-0-9.]+) ([-0-9.]+)\"[^>]*>([^<]*)</text>");
  std::vector<SvgLabel> labels;
  for (std::sregex_iterator it(svg.begin(), svg.end(), label), end; it != end; ++it) {
    labels.push_back(SvgLabel{std::stod((*it)[1].str()), std::stod((*it)[2].str()),
                              std::stod((*it)[3].str()), std::stod((*it)[4].str()),
                              (*it)[5].str()});
  }
  return labels;
}

/// The pairs of labels whose boxes overlap (the boxes are written rounded
/// to 0.01 px; touching is not overlapping).
inline std::vector<std::pair<SvgLabel, SvgLabel>> OverlappingLabels(const std::string& svg) {
  const std::vector<SvgLabel> labels = LabelBoxes(svg);
  std::vector<std::pair<SvgLabel, SvgLabel>> overlaps;
  constexpr double kRounding = 0.02;
  for (size_t i = 0; i < labels.size(); ++i) {
    for (size_t j = i + 1; j < labels.size(); ++j) {
      const SvgLabel& a = labels[i];
      const SvgLabel& b = labels[j];
      if (a.x + a.width - kRounding > b.x && b.x + b.width - kRounding > a.x &&
          a.y + a.height - kRounding > b.y && b.y + b.height - kRounding > a.y) {
        overlaps.emplace_back(a, b);
      }
    }
  }
  return overlaps;
}

}  // namespace pteshare::test_support
