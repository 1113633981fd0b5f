// The `pteshare plot --html` page: the layout SVG inline in one HTML file
// with no external resource, and a few lines of script that show a
// rectangle's <title> (value, name, bytes, live range) next to the pointer
// at once, where a browser's native tooltip would wait and truncate.
#pragma once

#include <string>
#include <string_view>

namespace pteshare::plot {

/// A complete HTML document titled `title` around `svg` (an SVG element
/// without an XML declaration, as RenderLayoutSvg makes it).
std::string WrapSvgInHtml(std::string_view title, std::string_view svg);

}  // namespace pteshare::plot
