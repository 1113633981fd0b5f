// The browser half of .ci/plot-browser: node plot-browser.cjs OUT PAGE.html...
// For each page: the after panel and its caption are there; hovering a
// tensor drawn in a before panel shows a tooltip with the operator that
// writes it first, its dtype and its shape; screenshots of the page and
// of the hovered state go to OUT/NAME-page.png and OUT/NAME-hover.png.
const path = require("path");
const { chromium } = require(path.join(process.env.PLOT_BROWSER_MODULES, "playwright-core"));

const [out, ...pages] = process.argv.slice(2);
const failures = [];
function check(page, condition, what) {
  if (!condition) failures.push(`${path.basename(page)}: ${what}`);
  return condition;
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    for (const file of pages) {
      const name = path.basename(file, ".html");
      const page = await browser.newPage({ viewport: { width: 1320, height: 900 } });
      await page.goto("file://" + path.resolve(file));
      const afterPanels = await page.locator("g.panel.after").count();
      check(file, afterPanels > 0, "no after panel");
      const caption = (await page.locator("text.plan-caption").allTextContents()).join(" ");
      check(file, caption.startsWith("after = the replanned layout: "), `caption '${caption}'`);
      await page.screenshot({ path: path.join(out, `${name}-page.png`), fullPage: true });

      // The largest tensor a kernel writes in a before panel: its middle is
      // its own (no label or smaller tensor on top).
      const target = await page.evaluate(() => {
        let best = null;
        for (const rect of document.querySelectorAll("g.panel.before rect.tensor")) {
          if (!/written first by (?!the )/.test(rect.dataset.tip || "")) continue;
          const box = rect.getBoundingClientRect();
          if (!best || box.width * box.height > best.area) {
            best = { area: box.width * box.height, x: box.x + box.width / 2,
                     y: box.y + box.height / 2 + window.scrollY, tip: rect.dataset.tip };
          }
        }
        return best;
      });
      if (!check(file, target !== null, "no tensor with an operator to hover")) continue;
      await page.evaluate((y) => window.scrollTo(0, Math.max(0, y - 300)), target.y);
      const scrolled = await page.evaluate(() => window.scrollY);
      await page.mouse.move(target.x, target.y - scrolled);
      const tip = page.locator("#tip");
      const shown = await tip.evaluate((t) => getComputedStyle(t).display);
      const text = await tip.textContent();
      check(file, shown === "block", `tooltip not shown (display ${shown})`);
      check(file, text === target.tip, `tooltip '${text}' is not the tensor's '${target.tip}'`);
      check(file, /\nwritten first by \w+::[\w.:]+ \(instruction \d+\)/.test(text),
            `no operator in '${text}'`);
      check(file, /\n[A-Z][A-Za-z0-9_]*\[[0-9,]*\]/.test(text), `no dtype and shape in '${text}'`);
      await page.screenshot({ path: path.join(out, `${name}-hover.png`) });
      console.log(`plot-browser: ${name}: ${afterPanels} after panels; hovered:\n  ` +
                  text.replace(/\n/g, "\n  "));
      await page.close();
    }
  } finally {
    await browser.close();
  }
  if (failures.length > 0) {
    for (const f of failures) console.error("plot-browser: FAILED: " + f);
    process.exit(1);
  }
  console.log(`plot-browser: ${pages.length} pages checked, screenshots in ${out}/`);
})().catch((error) => {
  console.error("plot-browser: " + error.stack);
  process.exit(1);
});
