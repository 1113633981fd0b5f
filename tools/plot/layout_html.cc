#include "tools/plot/layout_html.h"

#include "tools/plot/svg_writer.h"

namespace pteshare::plot {
namespace {

constexpr std::string_view kStyle = R"(<style>
body { font-family: DejaVu Sans, Helvetica, Arial, sans-serif; margin: 12px; background: #fff; }
svg .tensor:hover, svg .group:hover { stroke: #000; stroke-width: 2; }
#tip { position: fixed; display: none; pointer-events: none; white-space: pre; font-size: 12px;
       background: #fffdf0; border: 1px solid #999; padding: 4px 6px; box-shadow: 1px 1px 3px #aaa; }
</style>
)";

// Moves each <title> into data-tip (so the native tooltip does not pop up
// on top of ours) and follows the pointer with it.
constexpr std::string_view kScript = R"(<div id="tip"></div>
<script>
const tip = document.getElementById("tip");
for (const t of document.querySelectorAll("svg title")) {
  if (t.parentNode.tagName !== "svg") t.parentNode.dataset.tip = t.textContent;
  t.remove();
}
document.addEventListener("mousemove", (e) => {
  const owner = e.target.closest("[data-tip]");
  if (!owner) { tip.style.display = "none"; return; }
  tip.textContent = owner.dataset.tip;
  tip.style.left = (e.clientX + 14) + "px";
  tip.style.top = (e.clientY + 14) + "px";
  tip.style.display = "block";
});
</script>
)";

}  // namespace

std::string WrapSvgInHtml(std::string_view title, std::string_view svg) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<title>" + EscapeXml(title) + "</title>\n";
  html += kStyle;
  html += "</head>\n<body>\n";
  html += svg;
  html += kScript;
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace pteshare::plot
