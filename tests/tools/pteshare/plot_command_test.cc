// `pteshare plot` as a user runs it on pte-synth programs: the SVG is
// well-formed XML, has one rectangle per planned tensor (twice with a plan),
// the front region and the panel titles; big programs stay small pictures.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "tests/plot_svg_checks.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using test_support::CommandOutput;
using test_support::Contains;
using test_support::Count;
using test_support::ReadFileBytes;
using test_support::RunTool;
using test_support::TempDir;
using test_support::WithoutZoomPanels;
using test_support::XmlProblem;

std::string Synth(const TempDir& dir, const std::string& name, std::vector<std::string> args) {
  return test_support::SynthLlm(dir.path(), name, std::move(args));
}

/// What `pteshare plot` says it drew: "(4 panels, 136 tensor rectangles,
/// 60 smaller tensors drawn as density)".
struct Drawn {
  size_t rectangles = 0;
  size_t aggregated = 0;
};

Drawn ParseSummary(const std::string& out) {
  static const std::regex summary(
      "([0-9]+) tensor rectangles(, ([0-9]+) smaller tensors drawn as density)?\\)");
  std::smatch m;
  Drawn drawn;
  EXPECT_TRUE(std::regex_search(out, m, summary)) << out;
  if (m.empty()) return drawn;
  drawn.rectangles = std::stoul(m[1].str());
  if (m[3].matched) drawn.aggregated = std::stoul(m[3].str());
  return drawn;
}

/// Sum of "planned_tensors" over the methods `pteshare inspect --json` lists.
size_t PlannedTensors(const std::string& file) {
  CommandOutput out = RunTool("pteshare", {"inspect", file, "--json"});
  EXPECT_EQ(out.exit_status, 0) << out.err;
  static const std::regex planned("\"planned_tensors\": ([0-9]+)");
  size_t total = 0;
  for (std::sregex_iterator it(out.out.begin(), out.out.end(), planned), end; it != end; ++it) {
    total += std::stoul((*it)[1].str());
  }
  return total;
}

/// xmllint's verdict on `path` when it is installed (libxml2-utils); the
/// tests that need it skip without it.
bool HaveXmllint() { return std::system("xmllint --version > /dev/null 2>&1") == 0; }

TEST(PlotXmlCheck, CatchesWhatItShould) {
  EXPECT_EQ(XmlProblem("<svg a=\"1\"><g><rect/></g><text>a &amp; b</text></svg>"), "");
  EXPECT_NE(XmlProblem("<svg><g></svg></g>"), "");
  EXPECT_NE(XmlProblem("<svg a=1></svg>"), "");
  EXPECT_NE(XmlProblem("<svg><text>a & b</text></svg>"), "");
  EXPECT_NE(XmlProblem("<svg><rect></svg>"), "");
}

TEST(PlotCommand, BeforeOnlyWithoutSharesHasOneRectanglePerPlannedTensor) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  std::string svg_path = (dir / "layout.svg").string();
  CommandOutput out = RunTool("pteshare", {"plot", file, "-o", svg_path});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "wrote " + svg_path)) << out.out;
  const std::string whole = ReadFileBytes(svg_path);
  EXPECT_EQ(XmlProblem(whole), "");
  // The full panels (a zoom panel draws some tensors a second time).
  const std::string svg = WithoutZoomPanels(whole);
  // Every planned tensor is drawn once: as its own rectangle, or (scalars
  // and other tensors under a pixel) in the density shade.
  const Drawn drawn = ParseSummary(out.out);
  EXPECT_EQ(Count(svg, "<rect class=\"tensor"), drawn.rectangles);
  EXPECT_EQ(drawn.rectangles + drawn.aggregated, PlannedTensors(file));
  EXPECT_GT(drawn.rectangles, 50u);
  EXPECT_EQ(Count(svg, "class=\"front\""), 0u);
  EXPECT_EQ(Count(svg, "class=\"panel after\""), 0u);
  EXPECT_TRUE(Contains(svg, ">prefill - arena 1 (CPU) - before</text>")) << svg.substr(0, 2000);
  EXPECT_TRUE(Contains(svg, ">decode - arena 1 (CPU) - before</text>"));
  // The KV caches are mutable buffers; without --share none is "shared".
  EXPECT_GT(Count(svg, "class=\"tensor mutable\""), 0u);
  EXPECT_EQ(Count(svg, "class=\"tensor shared\""), 0u);
  EXPECT_EQ(Count(svg, "class=\"bound\""), 2u);
  // Self-contained: no link to anything outside the file.
  EXPECT_FALSE(Contains(svg, "href"));
  EXPECT_FALSE(Contains(svg, "<script"));
}

TEST(PlotCommand, ShareAutoDrawsBeforeAndAfterWithTheFrontRegion) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2", "--named"});
  std::string svg_path = (dir / "layout.svg").string();
  CommandOutput out = RunTool("pteshare", {"plot", file, "--share-auto", "-o", svg_path});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  const std::string whole = ReadFileBytes(svg_path);
  EXPECT_EQ(XmlProblem(whole), "");
  const std::string svg = WithoutZoomPanels(whole);
  const Drawn drawn = ParseSummary(out.out);
  EXPECT_EQ(Count(svg, "<rect class=\"tensor"), drawn.rectangles);
  EXPECT_EQ(drawn.rectangles + drawn.aggregated, 2 * PlannedTensors(file));
  // Two methods, one arena each: one front region per after panel.
  EXPECT_EQ(Count(svg, "<rect class=\"front\""), 2u);
  EXPECT_EQ(Count(svg, "class=\"panel after\""), 2u);
  EXPECT_TRUE(Contains(svg, ">prefill - arena 1 (CPU) - after</text>"));
  EXPECT_TRUE(Contains(svg, ">decode - arena 1 (CPU) - after</text>"));
  EXPECT_TRUE(Contains(svg, "before and after the plan (strategy "));
  // 2 layers x (k, v) caches in 2 methods, before and after.
  EXPECT_EQ(Count(svg, "class=\"tensor shared"), 16u);
  EXPECT_TRUE(Contains(svg, "<title>value 34 layers.0.attention.kv_cache.k_cache\nshared buffer"))
      << svg.substr(0, 3000);
}

TEST(PlotCommand, WellFormedForXmllint) {
  if (!HaveXmllint()) GTEST_SKIP() << "xmllint not installed (apt-get install libxml2-utils)";
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  std::string svg_path = (dir / "layout.svg").string();
  ASSERT_EQ(RunTool("pteshare", {"plot", file, "--share-auto", "-o", svg_path}).exit_status, 0);
  EXPECT_EQ(std::system(("xmllint --noout '" + svg_path + "'").c_str()), 0);
}

TEST(PlotCommand, MethodOptionDrawsOnlyThatMethod) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  std::string svg_path = (dir / "layout.svg").string();
  CommandOutput out = RunTool("pteshare", {"plot", file, "--method", "decode", "-o", svg_path});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  std::string svg = ReadFileBytes(svg_path);
  EXPECT_TRUE(Contains(svg, ">decode - arena 1 (CPU) - before</text>"));
  EXPECT_FALSE(Contains(svg, ">prefill - arena"));
}

TEST(PlotCommand, HtmlIsOnePageWithTheSvgAndTooltips) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2", "--named"});
  std::string html_path = (dir / "layout.html").string();
  CommandOutput out =
      RunTool("pteshare", {"plot", file, "--share-auto", "--html", "-o", html_path});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  std::string html = ReadFileBytes(html_path);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(Count(html, "<svg "), 1u);
  EXPECT_EQ(Count(html, "<script>"), 1u);
  EXPECT_TRUE(Contains(html, "<title>value 34 layers.0.attention.kv_cache.k_cache"));
  EXPECT_TRUE(Contains(html, "live [0, "));
  EXPECT_FALSE(Contains(html, "src="));
  EXPECT_FALSE(Contains(html, "href"));
}

TEST(PlotCommand, LargeProgramIsAggregatedIntoABoundedPicture) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "256"});
  const size_t planned = PlannedTensors(file);
  ASSERT_GT(planned, 10000u);
  std::string svg_path = (dir / "layout.svg").string();
  CommandOutput out = RunTool("pteshare", {"plot", file, "--share-auto", "-o", svg_path});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "smaller tensors drawn as density")) << out.out;
  std::string svg = ReadFileBytes(svg_path);
  EXPECT_EQ(XmlProblem(svg), "");
  // Four panels of at most 2,000 tensors each plus the density grid.
  EXPECT_LE(Count(svg, "<rect"), 4 * 2000u + 4 * 15000u);
  EXPECT_LT(Count(svg, "<rect class=\"tensor"), planned * 2);
  EXPECT_GT(Count(svg, "<g class=\"aggregate\""), 0u);
  EXPECT_LT(svg.size(), 8u << 20);
}

TEST(PlotCommand, SamePictureEveryRun) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "4"});
  std::string a = (dir / "a.svg").string(), b = (dir / "b.svg").string();
  ASSERT_EQ(RunTool("pteshare", {"plot", file, "--share-auto", "-o", a}).exit_status, 0);
  ASSERT_EQ(RunTool("pteshare", {"plot", file, "--share-auto", "-o", b}).exit_status, 0);
  EXPECT_EQ(ReadFileBytes(a), ReadFileBytes(b));
}

TEST(PlotCommand, UnknownMethodIsExitTwoWithOneLine) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out =
      RunTool("pteshare", {"plot", file, "--method", "train", "-o", (dir / "x.svg").string()});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err,
            "pteshare: " + file +
                ": no method 'train' (the program has: prefill, decode, get_bos_id, get_eos_ids, "
                "get_max_seq_len, get_n_layers, get_vocab_size, use_kv_cache, "
                "use_sdpa_with_kv_cache, enable_dynamic_shape)\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "x.svg"));
}

TEST(PlotCommand, UnreadableInputIsExitTwo) {
  TempDir dir;
  std::string missing = (dir / "missing.pte").string();
  CommandOutput out = RunTool("pteshare", {"plot", missing, "-o", (dir / "x.svg").string()});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err.rfind("pteshare: " + missing + ": ", 0), 0u) << out.err;
}

TEST(PlotCommand, UnknownShareNameIsExitTwo) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out =
      RunTool("pteshare", {"plot", file, "--share", "kv", "-o", (dir / "x.svg").string()});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Contains(out.err, "shared buffer 'kv' is not the name")) << out.err;
}

TEST(PlotCommand, OutputIsRequired) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  EXPECT_EQ(RunTool("pteshare", {"plot", file}).exit_status, 2);
}

// Issue 23: plot wrote OUT.pteshare-tmp with a plain open and renamed it,
// so a link by that name made it write into the link's target (a model was
// overwritten), a user's file of that name was destroyed, and a FIFO, a
// link to /dev/stdout or a hard-linked OUT was replaced. Now the picture
// is written as every file pteshare writes (rewrite -o's path): the same
// refusals, a nameless temp, nothing left after a kill.
TEST(PlotCommand, TheOutputIsWrittenAsRewriteWritesItsOutput) {
  TempDir dir;
  const std::string file = Synth(dir, "llm.pte", {});
  const std::string model = ReadFileBytes(file);
  const std::filesystem::path out = dir / "layout.svg";
  // What the old temp name reached stays as it was.
  std::filesystem::create_symlink(file, out.string() + ".pteshare-tmp");
  std::filesystem::create_directory(dir / "mine");
  const std::filesystem::path users = dir / "mine" / "layout.svg.pteshare-tmp";
  test_support::WriteFileBytes(users, "the user's own file");
  for (const std::filesystem::path& target : {out, dir / "mine" / "layout.svg"}) {
    CommandOutput drawn = RunTool("pteshare", {"plot", file, "-o", target.string()});
    ASSERT_EQ(drawn.exit_status, 0) << drawn.err;
    EXPECT_EQ(XmlProblem(ReadFileBytes(target)), "");
  }
  EXPECT_EQ(ReadFileBytes(file), model)
      << "a link at the old temp name must not be written through";
  EXPECT_EQ(ReadFileBytes(users), "the user's own file");

  // Refused, exit 2, nothing replaced: a FIFO, a link to /dev/stdout, a
  // hard-linked OUT.
  const std::filesystem::path fifo = dir / "fifo.svg";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::filesystem::path linked = dir / "linked.svg";
  test_support::WriteFileBytes(linked, "two names");
  std::filesystem::create_hard_link(linked, dir / "other-name.svg");
  const std::filesystem::path to_stdout = dir / "stdout.svg";
  std::filesystem::create_symlink("/dev/stdout", to_stdout);
  for (const std::string& target : {fifo.string(), to_stdout.string(), linked.string()}) {
    SCOPED_TRACE(target);
    CommandOutput refused = RunTool("pteshare", {"plot", file, "-o", target});
    EXPECT_EQ(refused.exit_status, 2) << refused.err;
    EXPECT_TRUE(Contains(refused.err, "refusing to write")) << refused.err;
  }
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  EXPECT_EQ(std::filesystem::hard_link_count(linked), 2u);

  // A kill before the picture is published leaves nothing.
  ::setenv("PTESHARE_TEST_CRASH_AT", "before-publish", 1);
  CommandOutput killed = RunTool("pteshare", {"plot", file, "-o", (dir / "killed.svg").string()});
  ::unsetenv("PTESHARE_TEST_CRASH_AT");
  EXPECT_EQ(killed.exit_status, 99) << killed.err;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename().string().find("killed"), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace pteshare
