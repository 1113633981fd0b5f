// `pteshare plot` pictures a person can read, checked on the bytes it
// writes: where buffers fill an arena a zoom panel shows the rest; a
// program with nothing planned says why; labels never overlap (the boxes
// the label placer wrote); the title is the file's base name; moved
// tensors are marked; the memory line is in the picture; an --arena-limit
// miss still draws the input with the limit; the extension picks the
// format. On pte-synth programs and on the corpus (counts from MANIFEST.tsv).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <regex>

#include "tests/json_value.h"
#include "tests/plot_svg_checks.h"
#include "tests/test_support.h"
#include "tools/report/numbers.h"
#include "tools/synth/fixed_layout.h"

namespace pteshare {
namespace {

using test_support::CommandOutput;
using test_support::Contains;
using test_support::Count;
using test_support::JoinedTexts;
using test_support::JsonReader;
using test_support::JsonValue;
using test_support::OverlappingLabels;
using test_support::ReadFileBytes;
using test_support::RunTool;
using test_support::TempDir;
using test_support::TextsOfClass;
using test_support::XmlProblem;

std::string Synth(const TempDir& dir, const std::string& name, std::vector<std::string> args) {
  return test_support::SynthLlm(dir.path(), name, std::move(args));
}

/// `pteshare plot FILE ARGS -o OUT`; the picture's bytes (empty when none
/// was written) and what the command printed.
struct Plotted {
  CommandOutput out;
  std::string svg;
};

Plotted Plot(const std::string& file, std::vector<std::string> args,
             const std::filesystem::path& output) {
  std::vector<std::string> command = {"plot", file};
  command.insert(command.end(), args.begin(), args.end());
  command.push_back("-o");
  command.push_back(output.string());
  Plotted plotted;
  plotted.out = RunTool("pteshare", command);
  if (std::filesystem::exists(output)) plotted.svg = ReadFileBytes(output);
  return plotted;
}

/// What EscapeXml makes of a line of plain text.
std::string Escaped(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '>') {
      out += "&gt;";
    } else if (c == '<') {
      out += "&lt;";
    } else {
      out += c;
    }
  }
  return out;
}

/// `text` with runs of spaces made one and the ends trimmed.
std::string Collapsed(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c != ' ' || (!out.empty() && out.back() != ' ')) out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

void ExpectNoOverlappingLabels(const std::string& svg, const std::string& what) {
  for (const auto& [a, b] : OverlappingLabels(svg)) {
    ADD_FAILURE() << what << ": label '" << a.text << "' (" << a.x << ", " << a.y << ", " << a.width
                  << " x " << a.height << ") overlaps '" << b.text << "' (" << b.x << ", " << b.y
                  << ", " << b.width << " x " << b.height << ")";
  }
}

TEST(PlotReadable, BuffersFillingTheArenaGetAZoomPanelOfTheRest) {
  TempDir dir;
  std::string file = Synth(dir, "llm32.pte", {"--layers", "32"});
  Plotted p = Plot(file, {"--share-auto", "--method", "decode"}, dir / "decode.svg");
  ASSERT_EQ(p.out.exit_status, 0) << p.out.err;
  EXPECT_EQ(XmlProblem(p.svg), "");
  // Decode of 32 layers is nearly all KV cache. After the plan the caches
  // are one block at the front and the rest is zoomed; before, the
  // exporter-like plan interleaves caches and activations, so no one window
  // holds the rest.
  EXPECT_EQ(Count(p.svg, "class=\"panel before zoom\""), 0u);
  EXPECT_EQ(Count(p.svg, "class=\"panel after zoom\""), 1u);
  EXPECT_EQ(Count(p.svg, "<rect class=\"zoom-window\""), 1u);
  EXPECT_TRUE(Contains(p.out.out, "1 zoomed panel of the bytes outside the buffers")) << p.out.out;
  EXPECT_TRUE(Contains(p.svg, "decode - arena 1 (CPU) - after, zoomed</text>"));
  // The zoom panel draws the activations as rectangles of their own, more
  // than the full panel can (most of them are slivers there).
  const size_t zoom_start = p.svg.find("class=\"panel after zoom\"");
  ASSERT_NE(zoom_start, std::string::npos);
  const size_t next_panel = p.svg.find("<g class=\"panel", zoom_start + 1);
  const std::string zoom = p.svg.substr(zoom_start, next_panel - zoom_start);
  EXPECT_GT(Count(zoom, "<rect class=\"tensor") - Count(zoom, "<rect class=\"tensor shared"), 20u);
  // Of the 64 caches only those at the window's edges show, cut to it.
  EXPECT_LE(Count(zoom, "<rect class=\"tensor shared"), 2u);
}

TEST(PlotReadable, ArenaMostlyActivationsHasNoZoomPanel) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  // Prefill's activations take most of its arena (decode's do not).
  Plotted p = Plot(file, {"--share-auto", "--method", "prefill"}, dir / "layout.svg");
  ASSERT_EQ(p.out.exit_status, 0) << p.out.err;
  EXPECT_EQ(Count(p.svg, " zoom\""), 0u);
  EXPECT_FALSE(Contains(p.out.out, "zoomed"));
}

TEST(PlotReadable, TitleIsTheBaseName) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  Plotted p = Plot(file, {"--share-auto"}, dir / "layout.svg");
  ASSERT_EQ(p.out.exit_status, 0) << p.out.err;
  const std::vector<std::string> headings = TextsOfClass(p.svg, "heading");
  ASSERT_EQ(headings.size(), 1u);
  EXPECT_EQ(headings[0].rfind("llm.pte: memory layout before and after the plan", 0), 0u)
      << headings[0];
  EXPECT_TRUE(Contains(p.svg, "<title>pteshare plot: llm.pte</title>"));
  EXPECT_FALSE(Contains(p.svg, dir.path().string())) << "the folder is not in the picture";
}

TEST(PlotReadable, MovedTensorsAreMarkedAsThePlanCountsThem) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2", "--named"});
  Plotted p = Plot(file, {"--share-auto"}, dir / "layout.svg");
  ASSERT_EQ(p.out.exit_status, 0) << p.out.err;
  // `plan --json` says how many tensors each method's plan moves.
  CommandOutput plan = RunTool("pteshare", {"plan", file, "--share-auto", "--json"});
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  static const std::regex moved_json("\"moved_tensors\": ([0-9]+)");
  size_t moved = 0;
  for (std::sregex_iterator it(plan.out.begin(), plan.out.end(), moved_json), end; it != end;
       ++it) {
    moved += std::stoul((*it)[1].str());
  }
  ASSERT_GT(moved, 0u);
  // Each after panel's subtitle counts its moved tensors; before and after
  // mark the same ones.
  size_t in_subtitles = 0;
  static const std::regex moved_text(", ([0-9]+) moved by the plan");
  for (const std::string& subtitle : TextsOfClass(p.svg, "subtitle")) {
    std::smatch m;
    if (std::regex_search(subtitle, m, moved_text)) in_subtitles += std::stoul(m[1].str());
  }
  EXPECT_EQ(in_subtitles, 2 * moved);
  EXPECT_GT(Count(p.svg, " moved\""), 0u);
  EXPECT_TRUE(Contains(p.svg, ">placement changed by the plan</text>"));
  // Prefill's caches move down into the front region; decode's are there.
  EXPECT_GT(Count(p.svg, "class=\"tensor shared moved\""), 0u);
}

TEST(PlotReadable, TheMemoryLineIsInThePicture) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  Plotted p = Plot(file, {"--share-auto"}, dir / "layout.svg");
  ASSERT_EQ(p.out.exit_status, 0) << p.out.err;
  // Every memory line the command prints is a line of the picture.
  const std::vector<std::string> memory = TextsOfClass(p.svg, "memory");
  size_t printed = 0;
  std::stringstream out(p.out.out);
  for (std::string line; std::getline(out, line);) {
    // The memory lines, indented (the caption line names the file first).
    if (!Contains(line, "one set") || line.rfind("  ", 0) != 0) continue;
    ++printed;
    EXPECT_NE(std::find(memory.begin(), memory.end(), Escaped(Collapsed(line))), memory.end())
        << Collapsed(line);
  }
  EXPECT_GE(printed, 2u);  // the heading and arena 1
  EXPECT_TRUE(std::any_of(memory.begin(), memory.end(), [](const std::string& line) {
    return Contains(line, "arena 1 CPU one set ") && Contains(line, " -&gt; ");
  }));
}

TEST(PlotReadable, AnArenaLimitMissDrawsTheInputWithTheLimit) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  const std::vector<std::string> limit = {"--share-auto", "--arena-limit", "1=400000"};
  Plotted p = Plot(file, limit, dir / "layout.svg");
  // The same failure as `plan` reports, and the same exit status.
  std::vector<std::string> plan_args = {"plan", file};
  plan_args.insert(plan_args.end(), limit.begin(), limit.end());
  CommandOutput plan = RunTool("pteshare", plan_args);
  EXPECT_EQ(plan.exit_status, 1);
  EXPECT_EQ(p.out.exit_status, plan.exit_status);
  EXPECT_EQ(p.out.err, plan.err);
  ASSERT_FALSE(p.svg.empty()) << "the input is still drawn";
  EXPECT_EQ(XmlProblem(p.svg), "");
  EXPECT_EQ(Count(p.svg, "class=\"panel after"), 0u);
  EXPECT_EQ(Count(p.svg, "<line class=\"limit\""), 2u);  // arena 1 of prefill and decode
  EXPECT_EQ(Count(p.svg, ">--arena-limit 391 KiB</text>"), 2u);
  // The miss, wrapped onto lines, says what stderr says.
  std::string failure;
  for (const std::string& line : TextsOfClass(p.svg, "failure")) failure += line + " ";
  EXPECT_TRUE(Contains(failure, "no plan fits: method prefill: arena 1 needs 442,880 bytes"))
      << failure;
  EXPECT_TRUE(Contains(plan.err, failure.substr(std::string("no plan fits: ").size(), 60)));
  EXPECT_TRUE(Contains(TextsOfClass(p.svg, "heading")[0], "no plan fits --arena-limit"));
  // The buffers --share-auto chose are marked in the input.
  EXPECT_GT(Count(p.svg, "class=\"tensor shared"), 0u);
}

TEST(PlotReadable, HtmlExtensionWritesHtml) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  Plotted p = Plot(file, {"--share-auto"}, dir / "layout.HTML");
  ASSERT_EQ(p.out.exit_status, 0) << p.out.err;
  EXPECT_EQ(p.svg.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(Contains(p.svg, "<title>pteshare plot: llm.pte</title>"));
  EXPECT_EQ(Count(p.svg, "<svg "), 1u);
  Plotted svg = Plot(file, {"--share-auto"}, dir / "layout.svg");
  EXPECT_EQ(svg.svg.rfind("<svg ", 0), 0u);
}

TEST(PlotReadable, UnknownExtensionIsExitTwoAndWritesNothing) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  const std::filesystem::path png = dir / "layout.png";
  Plotted p = Plot(file, {}, png);
  EXPECT_EQ(p.out.exit_status, 2);
  EXPECT_EQ(p.out.err, "pteshare: " + png.string() +
                           ": unknown extension '.png': the picture is written as .svg or .html "
                           "(the trace as .json), name the output so\n");
  EXPECT_FALSE(std::filesystem::exists(png));
  Plotted contradiction = Plot(file, {"--html"}, dir / "layout.svg");
  EXPECT_EQ(contradiction.out.exit_status, 2);
  EXPECT_TRUE(Contains(contradiction.out.err, "--html asks for HTML but the name ends in .svg"))
      << contradiction.out.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "layout.svg"));
}

TEST(PlotReadable, LabelsNeverOverlapOnPteSynthPrograms) {
  TempDir dir;
  const std::vector<std::vector<std::string>> programs = {
      {"--layers", "1", "--named"}, {"--layers", "2", "--named"}, {"--layers", "32", "--named"}};
  for (const std::vector<std::string>& synth : programs) {
    std::string file = Synth(dir, "llm" + synth[1] + ".pte", synth);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{}, std::vector<std::string>{"--share-auto"},
          std::vector<std::string>{"--share-auto", "--arena-limit", "1=300000"}}) {
      Plotted p = Plot(file, args, dir / "layout.svg");
      ASSERT_NE(p.svg, "") << p.out.err;
      const std::vector<test_support::SvgLabel> labels = test_support::LabelBoxes(p.svg);
      // The level lines at least: the arena size of every panel.
      EXPECT_GE(labels.size(), static_cast<size_t>(Count(p.svg, "<line class=\"arena-size\"")));
      ExpectNoOverlappingLabels(p.svg, file + " " + (args.empty() ? "" : args[0]));
    }
  }
}

TEST(PlotReadable, ARunOfBuffersSaysHowManyOfThePanelsItHolds) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  Plotted p = Plot(file, {}, dir / "layout.svg");
  ASSERT_EQ(p.out.exit_status, 0) << p.out.err;
  // Decode's exporter-like plan keeps its 4 caches in two runs of two.
  static const std::regex run_label(
      "class=\"label buffer-run\"[^>]*>([0-9]+) of ([0-9]+) mutable buffers, ");
  size_t partial_runs = 0;
  size_t at = p.svg.find("<g class=\"panel");
  while (at != std::string::npos) {
    const size_t next = p.svg.find("<g class=\"panel", at + 1);
    const std::string panel = p.svg.substr(at, next == std::string::npos ? next : next - at);
    const size_t buffers = Count(panel, "<rect class=\"tensor mutable");
    for (std::sregex_iterator it(panel.begin(), panel.end(), run_label), end; it != end; ++it) {
      ++partial_runs;
      EXPECT_LT(std::stoul((*it)[1].str()), std::stoul((*it)[2].str()));
      EXPECT_EQ(std::stoul((*it)[2].str()), buffers);
    }
    at = next;
  }
  EXPECT_GT(partial_runs, 0u);
}

TEST(PlotReadable, AProgramThePlannerRefusesIsDrawnAsItStandsSayingWhy) {
  TempDir dir;
  // A tensor past the end of its arena: verify reports it, the planners
  // refuse it, and the picture is how one looks at it.
  Result<std::vector<uint8_t>> bytes = synth::BuildFixedLayout(
      {{.name = "forward",
        .tensors = {{.nbytes = 64, .offset = 0}, {.nbytes = 64, .offset = 64}},
        .arena_sizes = {96}}});
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  const std::filesystem::path file = dir / "past-the-arena.pte";
  test_support::WriteBytes(file, *bytes);
  CommandOutput plan = RunTool("pteshare", {"plan", file.string()});
  ASSERT_EQ(plan.exit_status, 2);
  const std::string refusal = plan.err.substr(("pteshare: " + file.string() + ": ").size());
  Plotted p = Plot(file.string(), {}, dir / "layout.svg");
  ASSERT_EQ(p.out.exit_status, 0) << p.out.err;
  EXPECT_EQ(p.out.err, "");
  EXPECT_EQ(Count(p.svg, "class=\"panel before"), 1u);
  EXPECT_EQ(Count(p.svg, "class=\"panel after"), 0u);
  // The planner's own words (the picture escapes '>' as XML does).
  const std::string caption = JoinedTexts(p.svg, "plan-caption");
  EXPECT_EQ(caption, Escaped("not replanned: " + refusal.substr(0, refusal.size() - 1) +
                             "; only the input is drawn"));
  EXPECT_TRUE(Contains(p.out.out, ": not replanned: ")) << p.out.out;
  // With a sharing option, the refusal is plot's as it is plan's.
  Plotted shared = Plot(file.string(), {"--share-auto"}, dir / "shared.svg");
  EXPECT_EQ(shared.out.exit_status, 2);
  EXPECT_TRUE(shared.svg.empty());
}

/// Corpus rows that are programs with methods, read from MANIFEST.tsv.
std::vector<test_support::ManifestRow> CorpusPrograms() {
  std::vector<test_support::ManifestRow> rows;
  for (test_support::ManifestRow& row : test_support::CorpusProgramRows()) {
    if (!row.methods.empty()) rows.push_back(std::move(row));
  }
  return rows;
}

TEST(PlotReadableCorpus, ProgramsWithNothingPlannedSaySoAndNameEveryMethod) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared (the corpus) is absent";
  size_t unplanned_programs = 0;
  TempDir dir;
  for (const test_support::ManifestRow& row : CorpusPrograms()) {
    const bool nothing_planned = std::all_of(row.planned_tensors.begin(), row.planned_tensors.end(),
                                             [](uint64_t n) { return n == 0; });
    if (!nothing_planned) continue;
    ++unplanned_programs;
    const std::string file = test_support::CorpusPath(row).string();
    Plotted p = Plot(file, {}, dir / "empty.svg");
    ASSERT_EQ(p.out.exit_status, 0) << row.file << ": " << p.out.err;
    EXPECT_EQ(XmlProblem(p.svg), "") << row.file;
    EXPECT_EQ(Count(p.svg, "class=\"panel"), 0u) << row.file;
    EXPECT_EQ(Count(p.svg, "class=\"empty-message\""), 1u) << row.file;
    // The message's lines joined without the spaces wrapping may add or
    // take (a long file name is cut inside a word).
    const size_t at = p.svg.find("class=\"empty-message\"");
    const std::string message = p.svg.substr(at, p.svg.find("</g>", at) - at);
    std::string words;
    static const std::regex line(">([^<]+)</text>");
    for (std::sregex_iterator it(message.begin(), message.end(), line), end; it != end; ++it) {
      for (char c : (*it)[1].str()) {
        if (c != ' ') words += c;
      }
    }
    EXPECT_TRUE(
        Contains(words, "Nothingtodraw:nomethodof" + row.file + "hasamemory-plannedtensor."))
        << row.file << ": " << words;
    EXPECT_TRUE(Contains(words, "delegate,whichplansitsownmemory")) << row.file;
    // Every method the manifest lists is named in the message.
    for (const std::string& method : row.methods) {
      const std::regex named("[.:,]" + method + "[,:(]");
      EXPECT_TRUE(std::regex_search(words, named)) << row.file << ": " << method;
    }
  }
  EXPECT_GT(unplanned_programs, 0u) << "MANIFEST.tsv lists no program with nothing planned";
}

TEST(PlotReadableCorpus, LabelsNeverOverlapOnTheCorpus) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared (the corpus) is absent";
  TempDir dir;
  size_t plotted = 0;
  for (const test_support::ManifestRow& row : CorpusPrograms()) {
    const std::string file = test_support::CorpusPath(row).string();
    Plotted p = Plot(file, {"--share-auto"}, dir / "corpus.svg");
    // Programs with nothing to share still plot (replanned only); the
    // ones pteshare refuses say so with exit 2 and are not drawn.
    if (p.out.exit_status == 2) {
      EXPECT_TRUE(p.svg.empty()) << row.file;
      continue;
    }
    ++plotted;
    EXPECT_EQ(XmlProblem(p.svg), "") << row.file;
    ExpectNoOverlappingLabels(p.svg, row.file);
    EXPECT_FALSE(Contains(TextsOfClass(p.svg, "heading")[0], "/")) << row.file;
  }
  EXPECT_GT(plotted, CorpusPrograms().size() / 2);
}

/// `pteshare COMMAND FILE ARGS --json` read back.
std::optional<JsonValue> JsonOf(const std::vector<std::string>& command) {
  CommandOutput out = RunTool("pteshare", command);
  if (out.exit_status != 0) return std::nullopt;
  JsonReader reader;
  std::optional<JsonValue> json = reader.Read(out.out);
  EXPECT_TRUE(json.has_value()) << reader.error();
  return json;
}

// Issue 27: the NVFlare program's picture said "2 mutable buffers, 64 B"
// where inspect lists 4 (88 B): that label named a run of buffers packed
// together, and nothing counted them all. Now the header counts each
// method's mutable buffers as inspect lists them, and a run says "2 of 4".
TEST(PlotReadableCorpus, MutableBufferCountsAreInspects) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared (the corpus) is absent";
  TempDir dir;
  size_t compared = 0, with_buffers = 0;
  for (const test_support::ManifestRow& row : CorpusPrograms()) {
    SCOPED_TRACE(row.file);
    const std::string file = test_support::CorpusPath(row).string();
    std::optional<JsonValue> inspect = JsonOf({"inspect", file, "--json"});
    ASSERT_TRUE(inspect.has_value());
    std::string listed;
    for (const JsonValue& method : inspect->find("methods")->items) {
      const std::vector<JsonValue>& buffers = method.find("mutable_buffers")->items;
      if (buffers.empty()) continue;
      uint64_t bytes = 0;
      for (const JsonValue& b : buffers) bytes += static_cast<uint64_t>(b.find("nbytes")->number);
      listed += (listed.empty() ? "" : "; ") + method.find("name")->text + " " +
                std::to_string(buffers.size()) + ", " + cli::Grouped(bytes) + " bytes";
    }
    Plotted p = Plot(file, {}, dir / "buffers.svg");
    ASSERT_EQ(p.out.exit_status, 0) << p.out.err;
    if (Count(p.svg, "class=\"panel") == 0) continue;  // nothing planned, no header note
    ++compared;
    with_buffers += listed.empty() ? 0 : 1;
    EXPECT_EQ(JoinedTexts(p.svg, "mutable-buffers"),
              "mutable buffers (as pteshare inspect lists them): " +
                  (listed.empty() ? std::string("none") : listed));
  }
  EXPECT_GT(compared, CorpusPrograms().size() / 2);
  EXPECT_GT(with_buffers, 0u) << "no corpus program has a mutable buffer";
}

TEST(PlotReadableCorpus, AfterIsDrawnExactlyWhereThePlanChangesSomething) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared (the corpus) is absent";
  TempDir dir;
  size_t changed = 0, unchanged = 0;
  for (const test_support::ManifestRow& row : CorpusPrograms()) {
    SCOPED_TRACE(row.file);
    const std::string file = test_support::CorpusPath(row).string();
    std::optional<JsonValue> plan = JsonOf({"plan", file, "--json"});
    Plotted p = Plot(file, {}, dir / "after.svg");
    ASSERT_EQ(p.out.exit_status, 0) << p.out.err;
    if (!plan) {  // plot draws what the planner refuses, and says why
      EXPECT_TRUE(Contains(JoinedTexts(p.svg, "plan-caption"), "not replanned: "));
      continue;
    }
    bool changes = false;
    for (const JsonValue& method : plan->find("methods")->items) {
      changes = changes || method.find("moved_tensors")->number > 0;
      for (const JsonValue& arena : method.find("arenas")->items) {
        changes = changes || arena.find("size_before")->number != arena.find("size_after")->number;
      }
    }
    const JsonValue& total = *plan->find("memory")->find("total");
    const uint64_t before = static_cast<uint64_t>(total.find("one_set_before")->number);
    const uint64_t after = static_cast<uint64_t>(total.find("one_set_after")->number);
    const std::string caption = JoinedTexts(p.svg, "plan-caption");
    if (Count(p.svg, "class=\"panel") == 0) continue;  // nothing planned: nothing drawn
    (changes ? changed : unchanged) += 1;
    EXPECT_EQ(Count(p.svg, "class=\"panel after") > 0, changes);
    if (!changes) {
      EXPECT_EQ(caption.rfind("the plan changes nothing", 0), 0u) << caption;
      continue;
    }
    EXPECT_EQ(caption.rfind("after = the replanned layout: ", 0), 0u) << caption;
    if (before != after) {
      EXPECT_TRUE(Contains(caption, "one set of arenas " + cli::Grouped(before) + " -&gt; " +
                                        cli::Grouped(after) + " bytes"))
          << caption;
    }
  }
  EXPECT_GT(changed, 0u);
  EXPECT_GT(unchanged, 0u);
}

}  // namespace
}  // namespace pteshare
