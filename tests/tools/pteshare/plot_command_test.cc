// `pteshare plot` as a user runs it on pte-synth programs: the SVG is
// well-formed XML, has one rectangle per planned tensor (twice where the
// plan changes something, once where it changes nothing), the front region,
// the panel titles and the caption with plan's numbers; tooltips hold to
// the program's own tables; big programs stay small pictures. (The trace:
// tests/tools/plot/plot_trace_test.cc.)
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <regex>
#include <sstream>

#include "program_generated.h"
#include "rewriter/open_program.h"
#include "tests/json_value.h"
#include "tests/plot_svg_checks.h"
#include "tests/test_support.h"
#include "tools/report/numbers.h"

namespace pteshare {
namespace {

using test_support::CommandOutput;
using test_support::Contains;
using test_support::Count;
using test_support::JoinedTexts;
using test_support::JsonReader;
using test_support::JsonValue;
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

/// What `pteshare plan FILE ARGS --json` says: whether the plan changes a
/// placement or an arena size, and one set of arenas before and after.
struct PlanSays {
  bool changes = false;
  uint64_t one_set_before = 0;
  uint64_t one_set_after = 0;
  uint64_t separate_before = 0;
};

PlanSays PlanJson(const std::string& file, std::vector<std::string> args = {}) {
  std::vector<std::string> command = {"plan", file, "--json"};
  command.insert(command.end(), args.begin(), args.end());
  CommandOutput out = RunTool("pteshare", command);
  EXPECT_EQ(out.exit_status, 0) << out.err;
  std::optional<JsonValue> plan = JsonReader().Read(out.out);
  PlanSays says;
  if (!plan) return says;
  for (const JsonValue& method : plan->find("methods")->items) {
    says.changes = says.changes || method.find("moved_tensors")->number > 0;
    for (const JsonValue& arena : method.find("arenas")->items) {
      says.changes =
          says.changes || arena.find("size_before")->number != arena.find("size_after")->number;
    }
  }
  const JsonValue& total = *plan->find("memory")->find("total");
  says.one_set_before = static_cast<uint64_t>(total.find("one_set_before")->number);
  says.one_set_after = static_cast<uint64_t>(total.find("one_set_after")->number);
  says.separate_before = static_cast<uint64_t>(total.find("separate_before")->number);
  return says;
}

TEST(PlotCommand, TheDefaultPlanIsDrawnAfterWhereItChangesSomething) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  // `pteshare plan FILE` with no flag replans both methods' arenas.
  const PlanSays plan = PlanJson(file);
  ASSERT_TRUE(plan.changes);
  ASSERT_LT(plan.one_set_after, plan.one_set_before);
  std::string svg_path = (dir / "layout.svg").string();
  CommandOutput out = RunTool("pteshare", {"plot", file, "-o", svg_path});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  const std::string whole = ReadFileBytes(svg_path);
  EXPECT_EQ(XmlProblem(whole), "");
  const std::string svg = WithoutZoomPanels(whole);
  // Every planned tensor is drawn once per panel: as its own rectangle, or
  // (scalars and other tensors under a pixel) in the density shade.
  const Drawn drawn = ParseSummary(out.out);
  EXPECT_EQ(Count(svg, "<rect class=\"tensor"), drawn.rectangles);
  EXPECT_EQ(drawn.rectangles + drawn.aggregated, 2 * PlannedTensors(file));
  EXPECT_EQ(Count(svg, "class=\"panel after\""), 2u);
  EXPECT_TRUE(Contains(svg, ">prefill - arena 1 (CPU) - after</text>"));
  // Nothing shared: no front region, and the caches stay "other" state.
  EXPECT_EQ(Count(svg, "class=\"front\""), 0u);
  EXPECT_EQ(Count(svg, "class=\"tensor shared"), 0u);
  EXPECT_GT(Count(svg, "class=\"tensor mutable"), 0u);
  // The caption says it is the replanned layout and by how much it
  // shrinks, with plan's numbers; the command prints it too.
  const std::string caption = "after = the replanned layout: one set of arenas " +
                              cli::Grouped(plan.one_set_before) + " -&gt; " +
                              cli::Grouped(plan.one_set_after) + " bytes (-" +
                              cli::Grouped(plan.one_set_before - plan.one_set_after);
  EXPECT_TRUE(Contains(JoinedTexts(svg, "plan-caption"), caption)) << caption;
  EXPECT_TRUE(Contains(out.out, ": after = the replanned layout: one set of arenas ")) << out.out;
  // The after panels' subtitles give the size it had.
  EXPECT_TRUE(Contains(svg, " bytes (was ")) << svg.substr(0, 3000);
}

TEST(PlotCommand, OnlyBeforeWhereThePlanChangesNothing) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2"});
  // The replanned program: planning it again changes nothing (I7).
  const std::string replanned = (dir / "replanned.pte").string();
  ASSERT_EQ(RunTool("pteshare", {"rewrite", file, "-o", replanned}).exit_status, 0);
  ASSERT_FALSE(PlanJson(replanned).changes);
  std::string svg_path = (dir / "layout.svg").string();
  CommandOutput out = RunTool("pteshare", {"plot", replanned, "-o", svg_path});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "wrote " + svg_path)) << out.out;
  const std::string whole = ReadFileBytes(svg_path);
  EXPECT_EQ(XmlProblem(whole), "");
  const std::string svg = WithoutZoomPanels(whole);
  const Drawn drawn = ParseSummary(out.out);
  EXPECT_EQ(Count(svg, "<rect class=\"tensor"), drawn.rectangles);
  EXPECT_EQ(drawn.rectangles + drawn.aggregated, PlannedTensors(replanned));
  EXPECT_GT(drawn.rectangles, 50u);
  EXPECT_EQ(Count(svg, "class=\"front\""), 0u);
  EXPECT_EQ(Count(svg, "class=\"panel after\""), 0u);
  EXPECT_TRUE(Contains(svg, ">prefill - arena 1 (CPU) - before</text>")) << svg.substr(0, 2000);
  EXPECT_TRUE(Contains(svg, ">decode - arena 1 (CPU) - before</text>"));
  // Said where one looks: the heading, the caption, the command's output.
  EXPECT_TRUE(Contains(svg, "replanned.pte: memory layout (the plan changes nothing)"));
  EXPECT_EQ(JoinedTexts(svg, "plan-caption")
                .rfind("the plan changes nothing: every placement and arena size stays", 0),
            0u);
  EXPECT_TRUE(Contains(out.out, ": the plan changes nothing: ")) << out.out;
  EXPECT_EQ(Count(svg, " moved\""), 0u);
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
  // Shared, one set of arenas serves both methods; the input needs a set
  // per method: the caption gives that saving, with plan's numbers.
  const PlanSays plan = PlanJson(file, {"--share-auto"});
  EXPECT_TRUE(Contains(JoinedTexts(svg, "plan-caption"),
                       "after = the replanned layout with the state shared: one set of "
                       "arenas for every method, " +
                           cli::Grouped(plan.one_set_after) +
                           " bytes, where the input needs a set per method, " +
                           cli::Grouped(plan.separate_before) + " bytes (-" +
                           cli::Grouped(plan.separate_before - plan.one_set_after)))
      << svg.substr(0, 3000);
  // 2 layers x (k, v) caches in 2 methods, before and after.
  EXPECT_EQ(Count(svg, "class=\"tensor shared"), 16u);
  EXPECT_TRUE(Contains(svg, "<title>value 34 layers.0.attention.kv_cache.k_cache\n"))
      << svg.substr(0, 3000);
  EXPECT_GT(Count(svg, "\nshared buffer\n"), 0u);
}

/// A tensor's hover text and the method whose panel holds it.
struct Tooltip {
  std::string method;
  uint32_t value = 0;
  std::vector<std::string> lines;
};

/// Every tensor tooltip of `svg` ("value N ..." titles), by panel.
std::vector<Tooltip> TensorTooltips(const std::string& svg) {
  static const std::regex panel_title("<text class=\"title\"[^>]*>([^<]*) - arena ");
  static const std::regex title("<title>value ([0-9]+)([^<]*)</title>");
  std::vector<Tooltip> tooltips;
  size_t at = svg.find("<g class=\"panel");
  while (at != std::string::npos) {
    const size_t next = svg.find("<g class=\"panel", at + 1);
    const std::string panel = svg.substr(at, next == std::string::npos ? next : next - at);
    std::smatch m;
    if (std::regex_search(panel, m, panel_title)) {
      const std::string method = m[1].str();
      for (std::sregex_iterator it(panel.begin(), panel.end(), title), end; it != end; ++it) {
        Tooltip tip{method, static_cast<uint32_t>(std::stoul((*it)[1].str())), {}};
        std::stringstream lines((*it)[2].str());
        for (std::string line; std::getline(lines, line);) tip.lines.push_back(line);
        tooltips.push_back(std::move(tip));
      }
    }
    at = next;
  }
  return tooltips;
}

/// The instructions of a method of the program, chain after chain (time,
/// as plot counts it).
std::vector<const fb::Instruction*> Instructions(const fb::ExecutionPlan& plan) {
  std::vector<const fb::Instruction*> instructions;
  for (const fb::Chain* chain : *plan.chains()) {
    for (const fb::Instruction* instruction : *chain->instructions()) {
      instructions.push_back(instruction);
    }
  }
  return instructions;
}

/// "FLOAT[64,128]" of value `v`, from the flatbuffer.
std::string ShapeOf(const fb::ExecutionPlan& plan, uint32_t v) {
  const fb::Tensor* t = plan.values()->Get(v)->val_as_Tensor();
  std::string shape = fb::EnumNameScalarType(t->scalar_type());
  shape += "[";
  for (flatbuffers::uoffset_t i = 0; i < t->sizes()->size(); ++i) {
    shape += (i > 0 ? "," : "") + std::to_string(t->sizes()->Get(i));
  }
  return shape + "]";
}

TEST(PlotCommand, TooltipsNameDtypeShapeAndTheOperatorThatWritesFirst) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {"--layers", "2", "--named"});
  std::string html_path = (dir / "layout.html").string();
  ASSERT_EQ(RunTool("pteshare", {"plot", file, "--share-auto", "-o", html_path}).exit_status, 0);
  // The full panels (a zoom panel draws some tensors a second time).
  const std::vector<Tooltip> tooltips = TensorTooltips(WithoutZoomPanels(ReadFileBytes(html_path)));
  ASSERT_GT(tooltips.size(), 50u);
  // Each is held to the program's own tables, read here from the
  // flatbuffer: the dtype and sizes of the value, and instruction N is a
  // kernel call of the operator named that takes the value.
  Result<OpenedProgram> opened = OpenProgram(file);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  const fb::Program& program = *opened->file.program();
  static const std::regex by_instruction("written first by (.+) \\(instruction ([0-9]+)\\)");
  size_t by_kernel = 0, by_loader = 0;
  for (const Tooltip& tip : tooltips) {
    SCOPED_TRACE(tip.method + " value " + std::to_string(tip.value));
    const fb::ExecutionPlan* plan = nullptr;
    for (const fb::ExecutionPlan* p : *program.execution_plan()) {
      if (p->name()->str() == tip.method) plan = p;
    }
    ASSERT_NE(plan, nullptr);
    ASSERT_GE(tip.lines.size(), 3u);
    EXPECT_EQ(tip.lines[1], ShapeOf(*plan, tip.value));
    std::smatch m;
    if (std::regex_match(tip.lines[2], m, by_instruction)) {
      ++by_kernel;
      const fb::Instruction* instruction = Instructions(*plan)[std::stoul(m[2].str())];
      const fb::KernelCall* call = instruction->instr_args_as_KernelCall();
      ASSERT_NE(call, nullptr);
      const fb::Operator* op = plan->operators()->Get(call->op_index());
      EXPECT_EQ(m[1].str(), op->name()->str() + "." + op->overload()->str());
      const auto* args = call->args();
      EXPECT_NE(std::find(args->begin(), args->end(), static_cast<int32_t>(tip.value)),
                args->end());
    } else if (Contains(tip.lines[2], "by the loader (initial state")) {
      ++by_loader;
      const fb::Tensor* t = plan->values()->Get(tip.value)->val_as_Tensor();
      EXPECT_GT(t->data_buffer_idx(), 0u);
    } else {
      EXPECT_TRUE(Contains(tip.lines[2], "written first by the caller") ||
                  Contains(tip.lines[2], "no instruction writes it"))
          << tip.lines[2];
    }
  }
  EXPECT_GT(by_kernel, 40u);
  // 2 layers x (k, v) caches in 2 methods, before and after.
  EXPECT_EQ(by_loader, 16u);
}

TEST(PlotCommand, SomethingToWriteIsRequired) {
  TempDir dir;
  std::string file = Synth(dir, "llm.pte", {});
  CommandOutput out = RunTool("pteshare", {"plot", file});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err, "pteshare: " + file +
                         ": nothing to write: give -o OUT.svg, OUT.html or OUT.json, or --trace "
                         "OUT.json\n");
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
