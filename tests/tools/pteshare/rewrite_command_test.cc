// `pteshare rewrite` as a user runs it: the summary line, --json, "already
// planned" on a second run, -o and --in-place agreeing, refusals (exit 2,
// one line, input untouched), a round trip through inspect/plan, and real
// exporter bytes from the corpus.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <regex>

#include "rewriter/base/grouped.h"
#include "rewriter/write/journal.h"
#include "tests/filesystem_fixtures.h"
#include "tests/rewrite_fixtures.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

/// Unnamed caches, as the exporter writes them; `named` adds their names.
fs::path SynthLlm(const TempDir& dir, const std::string& name, int layers = 2, bool named = false) {
  fs::path path = dir / name;
  std::vector<std::string> args = {"llm", "--layers", std::to_string(layers), "-o", path.string()};
  if (named) args.push_back("--named");
  CommandOutput out = RunTool("pte-synth", args);
  EXPECT_EQ(out.exit_status, 0) << out.err;
  return path;
}

TEST(RewriteCommand, PrintsOneSummaryLineThenAlreadyPlanned) {
  TempDir dir;
  fs::path in = SynthLlm(dir, "llm.pte");
  fs::path out = dir / "out.pte";
  CommandOutput first = RunTool("pteshare", {"rewrite", in.string(), "--share-auto", "-o", out});
  ASSERT_EQ(first.exit_status, 0) << first.err;
  EXPECT_EQ(first.err, "");
  // The answer first, then what was done.
  EXPECT_TRUE(std::regex_search(
      first.out,
      std::regex("^.*llm\\.pte -> .*out\\.pte: memory for one set of arenas: [0-9.]+ KiB "
                 "instead of [0-9.]+ KiB for separate sets \\(-[0-9]+%; [0-9,]+ vs [0-9,]+ "
                 "bytes\\), 4 shared buffers\n  done: 4 shared buffers front-packed, [0-9,]+ "
                 "tensors moved, [0-9,]+ bytes appended, segments (not moved|moved "
                 "up by [0-9,]+ bytes)\n")))
      << first.out;

  const std::string written = ReadFileBytes(out);
  CommandOutput second =
      RunTool("pteshare", {"rewrite", out.string(), "--share-auto", "--in-place"});
  ASSERT_EQ(second.exit_status, 0) << second.err;
  EXPECT_TRUE(second.out.starts_with(out.string() +
                                     " (in place): already planned, no change: 4 shared buffers "
                                     "sit at one placement in every method; memory for one set "
                                     "of arenas: "))
      << second.out;
  EXPECT_EQ(std::count(second.out.begin(), second.out.end(), '\n'), 1) << second.out;
  EXPECT_EQ(ReadFileBytes(out), written) << "I7: a second rewrite changes no byte";
}

TEST(RewriteCommand, OutputFileAndInPlaceAreByteIdentical) {
  TempDir dir;
  fs::path in = SynthLlm(dir, "llm.pte", 4);
  fs::copy_file(in, dir / "ip.pte");
  ASSERT_EQ(RunTool("pteshare", {"rewrite", in.string(), "--share-auto", "-o", dir / "o.pte"})
                .exit_status,
            0);
  ASSERT_EQ(
      RunTool("pteshare", {"rewrite", (dir / "ip.pte").string(), "--share-auto", "--in-place"})
          .exit_status,
      0);
  EXPECT_EQ(ReadFileBytes(dir / "o.pte"), ReadFileBytes(dir / "ip.pte"));
  // -o FILE onto itself gives the same bytes too.
  ASSERT_EQ(
      RunTool("pteshare", {"rewrite", in.string(), "--share-auto", "-o", in.string()}).exit_status,
      0);
  EXPECT_EQ(ReadFileBytes(in), ReadFileBytes(dir / "ip.pte"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 3);
}

TEST(RewriteCommand, RoundTripPutsSharedBuffersAtTheFrontOfEveryMethod) {
  TempDir dir;
  fs::path in = SynthLlm(dir, "llm.pte", 2, /*named=*/true);
  fs::path out = dir / "out.pte";
  ASSERT_EQ(RunTool("pteshare", {"rewrite", in.string(), "--share-auto", "-o", out}).exit_status,
            0);
  CommandOutput plan = RunTool("pteshare", {"plan", out.string(), "--share-auto"});
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  EXPECT_NE(plan.out.find("method prefill: 0 of"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("method decode: 0 of"), std::string::npos) << plan.out;
  EXPECT_EQ(RunTool("pteshare", {"inspect", out.string()}).exit_status, 0);

  Result<OpenedProgram> opened = OpenProgram(out);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  uint64_t front_end = 0;
  size_t shared = 0;
  for (const TensorValue& t : opened->view.methods[0].tensors) {
    if (t.name.empty()) continue;
    ++shared;
    const TensorValue* other = nullptr;
    for (const TensorValue& u : opened->view.methods[1].tensors) {
      if (u.name == t.name) other = &u;
    }
    ASSERT_NE(other, nullptr) << t.name;
    EXPECT_EQ(t.placement, other->placement) << t.name;
    front_end = std::max(front_end, t.placement.end());
  }
  EXPECT_EQ(shared, 4u);
  // Nothing but the shared buffers (and their aliases) lies in the front.
  for (const MethodView& m : opened->view.methods) {
    for (const TensorValue& t : m.tensors) {
      if (t.planned && t.placement.offset < front_end && t.placement.memory_id == 1) {
        bool inside_shared = false;
        for (const TensorValue& s : m.tensors) {
          inside_shared |= !s.name.empty() && s.placement.memory_id == 1 &&
                           t.placement.offset >= s.placement.offset &&
                           t.placement.end() <= s.placement.end();
        }
        EXPECT_TRUE(inside_shared) << m.name << " value " << t.value_index;
      }
    }
  }
}

TEST(RewriteCommand, JsonCarriesTheFactsAndThePlan) {
  TempDir dir;
  fs::path in = SynthLlm(dir, "llm.pte");
  CommandOutput out = RunTool("pteshare", {"rewrite", in.string(), "--share-auto", "--in-place",
                                           "--json", "--strategy", "relocate"});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  for (const char* key :
       {"\"output\": null", "\"in_place\": true", "\"changed\": true", "\"shared_buffers\": 4",
        "\"bytes_appended\": ", "\"segments_moved\": ", "\"program_size_after\": ", "\"plan\": {",
        "\"strategy\": \"relocate\"", "\"verified\": true"}) {
    EXPECT_NE(out.out.find(key), std::string::npos) << key << "\n" << out.out;
  }
}

TEST(RewriteCommand, BadUsageAndBadInputAreOneLineExitTwoInputUntouched) {
  TempDir dir;
  fs::path in = SynthLlm(dir, "llm.pte");
  const std::string before = ReadFileBytes(in);
  WriteFileBytes(dir / "junk.pte", "not a program at all");
  struct Bad {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Bad> bads = {
      {{"rewrite", in.string(), "--share-auto"}, "give exactly one of -o OUT and --in-place"},
      {{"rewrite", in.string(), "--in-place", "--strategy", "relocate"},
       "--share NAME... or --share-auto"},
      {{"rewrite", in.string(), "--in-place", "--share", "no.such.buffer"}, in.string() + ": "},
      {{"rewrite", (dir / "junk.pte").string(), "--in-place", "--share-auto"},
       (dir / "junk.pte").string() + ": not a .pte program"},
      {{"rewrite", (dir / "absent.pte").string(), "-o", (dir / "x.pte").string(), "--share-auto"},
       (dir / "absent.pte").string() + ": "},
  };
  for (const Bad& bad : bads) {
    CommandOutput out = RunTool("pteshare", bad.args);
    EXPECT_EQ(out.exit_status, 2) << out.err;
    EXPECT_EQ(out.err.find("pteshare: "), 0u) << out.err;
    EXPECT_NE(out.err.find(bad.message), std::string::npos) << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  }
  EXPECT_EQ(ReadFileBytes(in), before);
  EXPECT_FALSE(fs::exists(dir / "x.pte"));
  EXPECT_FALSE(fs::exists(JournalPath(in)));
}

TEST(RewriteCommand, HelpTeachesWithAnExample) {
  CommandOutput out = RunTool("pteshare", {"rewrite", "--help"});
  EXPECT_EQ(out.exit_status, 0);
  EXPECT_NE(out.out.find("Example: pteshare rewrite"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("--in-place"), std::string::npos);
}

// Real exporter bytes: name one planned tensor of `forward` and share it.
// The result must re-verify and a second rewrite must find nothing to do.
TEST(RewriteCommand, CorpusProgramsRewriteAndReverify) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  TempDir dir;
  size_t rewritten = 0, refused = 0;
  for (const fs::path& path : CorpusFiles()) {
    if (rewritten >= 6) break;
    Result<OpenedProgram> opened = OpenProgram(path);
    if (!opened.ok() || opened->view.method("forward") == nullptr) continue;
    const MethodView& forward = *opened->view.method("forward");
    const TensorValue* pick = nullptr;
    for (const TensorValue& t : forward.tensors) {
      if (t.planned && t.nbytes > 0 && t.placement.offset > 0) pick = &t;
    }
    if (pick == nullptr) continue;
    const std::vector<std::string> share = {
        "--name", "forward:" + std::to_string(pick->value_index) + "=x", "--share", "x"};
    const fs::path out = dir / path.filename();
    std::vector<std::string> args = {"rewrite", path.string(), "-o", out.string()};
    args.insert(args.end(), share.begin(), share.end());
    CommandOutput result = RunTool("pteshare", args);
    if (result.exit_status == 2) {  // an input the planner refuses (e.g. a straddling tensor)
      ++refused;
      std::printf("  planner refused: %s", result.err.c_str());
      continue;
    }
    ASSERT_EQ(result.exit_status, 0) << path << "\n" << result.err;
    ++rewritten;
    std::vector<std::string> again = {"rewrite", out.string(), "--in-place"};
    again.insert(again.end(), share.begin(), share.end());
    CommandOutput second = RunTool("pteshare", again);
    EXPECT_EQ(second.exit_status, 0) << second.err;
    EXPECT_NE(second.out.find("already planned, no change"), std::string::npos) << path << "\n"
                                                                                << second.out;
    Result<OpenedProgram> back = OpenProgram(out);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->view.method("forward")->tensor(pick->value_index)->placement.offset, 0u);
  }
  std::printf("corpus: %zu programs rewritten, %zu refused by the planner\n", rewritten, refused);
  EXPECT_GE(rewritten, 3u);
}

// Every corpus program the default rewrite changes, in place on a
// filesystem that inserts ranges: the file keeps its inode, no segment byte
// is copied (the command would say so), and the bytes equal -o's.
TEST(RewriteCommand, NoCorpusProgramHasItsSegmentsCopiedInPlace) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  TempDir dir;
  if (!CanInsertRange(dir.path())) GTEST_SKIP() << dir.path() << " cannot insert a range";
  size_t changed = 0, moved = 0;
  for (const fs::path& path : CorpusFiles()) {
    // A bundle is one flatbuffer: it is always renamed, never patched in
    // place (bundle_command_test.cc).
    if (path.extension() == ".bpte") continue;
    const fs::path file = dir / "m.pte", out = dir / "o.pte";
    fs::copy_file(path, file, fs::copy_options::overwrite_existing);
    struct stat before;
    ASSERT_EQ(::stat(file.c_str(), &before), 0);
    CommandOutput in_place = RunTool("pteshare", {"rewrite", file.string(), "--in-place"});
    if (!Contains(in_place.out, "bytes appended")) continue;  // unchanged, or refused
    ++changed;
    moved += Contains(in_place.out, "segments moved up by");
    EXPECT_EQ(in_place.exit_status, 0) << path << "\n" << in_place.err;
    EXPECT_FALSE(Contains(in_place.err, "segments copied")) << path << "\n" << in_place.err;
    struct stat after;
    ASSERT_EQ(::stat(file.c_str(), &after), 0);
    EXPECT_EQ(after.st_ino, before.st_ino) << path;
    CommandOutput copy = RunTool("pteshare", {"rewrite", path.string(), "-o", out.string()});
    EXPECT_EQ(copy.exit_status, 0) << path << "\n" << copy.err;
    EXPECT_EQ(ReadFileBytes(out), ReadFileBytes(file)) << path << ": -o and --in-place differ";
  }
  std::printf("corpus: %zu programs changed in place, %zu of them with a gap opened\n", changed,
              moved);
  EXPECT_GT(changed, 0u);
}

}  // namespace
}  // namespace pteshare

namespace pteshare {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Batch mode: several inputs, one output each in a folder, in parallel; a
// bad file does not stop the others and sets the exit status.
TEST(RewriteCommand, SeveralInputsGoToAFolderAndOneFailureDoesNotStopTheOthers) {
  test_support::TempDir dir;
  std::vector<std::string> inputs;
  int seed = 0;
  for (const char* name : {"a.pte", "b.pte", "c.pte"}) {
    std::string path = (dir / name).string();
    ASSERT_EQ(
        test_support::RunTool("pte-synth", {"llm", "--seed", std::to_string(++seed), "-o", path})
            .exit_status,
        0);
    inputs.push_back(path);
  }
  test_support::WriteFileBytes(dir / "b.pte", "not a program at all");
  const std::string before_b = test_support::ReadFileBytes(dir / "b.pte");
  std::vector<std::string> args = {"rewrite"};
  args.insert(args.end(), inputs.begin(), inputs.end());
  for (const char* a : {"--share-auto", "-o", "", "-j", "2"}) args.push_back(a);
  args[args.size() - 3] = (dir / "shared").string();
  test_support::CommandOutput out = test_support::RunTool("pteshare", args);

  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Has(out.err, "pteshare: " + inputs[1] + ": ")) << out.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "shared" / "a.pte"));
  EXPECT_FALSE(std::filesystem::exists(dir / "shared" / "b.pte"));
  EXPECT_TRUE(std::filesystem::exists(dir / "shared" / "c.pte"));
  EXPECT_EQ(test_support::ReadFileBytes(dir / "b.pte"), before_b);
  // The batch's totals first, then the files in input order.
  size_t a_line = out.out.find(inputs[0] + " -> "), c_line = out.out.find(inputs[2] + " -> ");
  ASSERT_NE(a_line, std::string::npos) << out.out;
  ASSERT_NE(c_line, std::string::npos) << out.out;
  EXPECT_LT(a_line, c_line);
  EXPECT_TRUE(out.out.starts_with("3 files: memory ")) << out.out;
  const std::string totals = out.out.substr(0, out.out.find('\n'));
  EXPECT_TRUE(totals.ends_with(" bytes over 2 planned); 2 share state, 1 failed")) << totals;

  // The batch output equals a one-file rewrite of the same input.
  std::string single = (dir / "single.pte").string();
  ASSERT_EQ(test_support::RunTool("pteshare", {"rewrite", inputs[0], "--share-auto", "-o", single})
                .exit_status,
            0);
  EXPECT_EQ(test_support::ReadFileBytes(dir / "shared" / "a.pte"),
            test_support::ReadFileBytes(single));
}

// A batch's first line and its JSON totals add up its files' own numbers,
// and a file with nothing to share makes the batch exit 3, not 0.
TEST(RewriteCommand, BatchTotalsAreTheSumOfItsFilesAndNothingToShareExitsThree) {
  test_support::TempDir dir;
  const std::string a = (dir / "a.pte").string(), b = (dir / "b.pte").string();
  const std::string cnn = (dir / "cnn.pte").string();
  ASSERT_EQ(test_support::RunTool("pte-synth", {"llm", "-o", a}).exit_status, 0);
  ASSERT_EQ(test_support::RunTool("pte-synth", {"llm", "--layers", "3", "-o", b}).exit_status, 0);
  ASSERT_EQ(test_support::RunTool("pte-synth", {"cnn", "-o", cnn}).exit_status, 0);
  const std::vector<std::string> args = {
      "rewrite", a, b, cnn, "--share-auto", "-o", (dir / "out").string()};
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  test_support::CommandOutput json = test_support::RunTool("pteshare", json_args);
  EXPECT_EQ(json.exit_status, 3) << json.err;
  auto number = [](const std::string& text, const std::string& key) {
    std::smatch m;
    EXPECT_TRUE(std::regex_search(text, m, std::regex("\"" + key + "\": ([0-9]+)"))) << key;
    return m.size() > 1 ? std::stoull(m[1].str()) : 0ull;
  };
  // The totals, then one document per file (its first "saving" is its own).
  std::vector<std::string> parts;
  for (size_t at = json.out.find("\"format_version\""), next; at != std::string::npos; at = next) {
    next = json.out.find("\"format_version\"", at + 1);
    parts.push_back(json.out.substr(at, next == std::string::npos ? next : next - at));
  }
  ASSERT_EQ(parts.size(), 4u) << json.out;
  uint64_t before = 0, after = 0;
  for (size_t i = 1; i < parts.size(); ++i) {
    before += number(parts[i], "before_bytes");
    after += number(parts[i], "after_bytes");
  }
  EXPECT_EQ(number(parts[0], "before_bytes"), before);
  EXPECT_EQ(number(parts[0], "after_bytes"), after);
  EXPECT_EQ(number(parts[0], "shared"), 2u);
  EXPECT_EQ(number(parts[0], "replanned") + number(parts[0], "unchanged"), 1u);

  std::filesystem::remove_all(dir / "out");
  test_support::CommandOutput text = test_support::RunTool("pteshare", args);
  EXPECT_EQ(text.exit_status, 3);
  const std::string first = text.out.substr(0, text.out.find('\n'));
  EXPECT_TRUE(first.starts_with("3 files: memory ")) << first;
  // --summary: the totals and each file's first line, nothing else.
  std::filesystem::remove_all(dir / "out");
  std::vector<std::string> summary_args = args;
  summary_args.push_back("--summary");
  test_support::CommandOutput summary = test_support::RunTool("pteshare", summary_args);
  EXPECT_EQ(summary.exit_status, 3);
  std::string expected = first + "\n";
  for (const std::string& file : {a, b, cnn}) {
    const size_t at = text.out.find(file + " -> ");
    ASSERT_NE(at, std::string::npos) << text.out;
    expected += text.out.substr(at, text.out.find('\n', at) + 1 - at);
  }
  EXPECT_EQ(summary.out, expected);
  EXPECT_TRUE(Has(first, Grouped(after) + " vs " + Grouped(before) +
                             " bytes over 3 planned); 2 "
                             "share state, 1 nothing "
                             "to share"))
      << first;
}

TEST(RewriteCommand, SameFileTwiceInOneBatchIsRefused) {
  test_support::TempDir dir;
  std::string a = (dir / "a.pte").string();
  ASSERT_EQ(test_support::RunTool("pte-synth", {"llm", "-o", a}).exit_status, 0);
  test_support::CommandOutput out =
      test_support::RunTool("pteshare", {"rewrite", a, a, "--share-auto", "--in-place"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Has(out.err, "are the same file")) << out.err;
}

TEST(RewriteCommand, TwoInputsWithOneOutputNameAreRefused) {
  test_support::TempDir dir;
  std::filesystem::create_directories(dir / "x");
  std::filesystem::create_directories(dir / "y");
  std::string a = (dir / "x" / "m.pte").string(), b = (dir / "y" / "m.pte").string();
  ASSERT_EQ(test_support::RunTool("pte-synth", {"llm", "-o", a}).exit_status, 0);
  ASSERT_EQ(test_support::RunTool("pte-synth", {"llm", "-o", b}).exit_status, 0);
  test_support::CommandOutput out = test_support::RunTool(
      "pteshare", {"rewrite", a, b, "--share-auto", "-o", (dir / "out").string()});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Has(out.err, "two inputs would both be written to")) << out.err;
}

TEST(RewriteCommand, SeveralInputsInPlace) {
  test_support::TempDir dir;
  std::string a = (dir / "a.pte").string(), b = (dir / "b.pte").string();
  ASSERT_EQ(test_support::RunTool("pte-synth", {"llm", "-o", a}).exit_status, 0);
  ASSERT_EQ(test_support::RunTool("pte-synth", {"llm", "--layers", "3", "-o", b}).exit_status, 0);
  test_support::CommandOutput out =
      test_support::RunTool("pteshare", {"rewrite", a, b, "--share-auto", "--in-place"});
  EXPECT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(out.out.starts_with("2 files: memory ")) << out.out;
  EXPECT_TRUE(Has(out.out, "over 2 planned); 2 share state\n")) << out.out;
  out =
      test_support::RunTool("pteshare", {"rewrite", a, b, "--share-auto", "--in-place", "--json"});
  EXPECT_EQ(out.exit_status, 0);
  EXPECT_TRUE(out.out.starts_with("{\n  \"format_version\": 2,\n  \"totals\": {")) << out.out;
  EXPECT_TRUE(Has(out.out, "\"already_shared\": 2")) << out.out;
  EXPECT_TRUE(Has(out.out, "\"changed\": false")) << out.out;
}

}  // namespace
}  // namespace pteshare

namespace pteshare {
namespace {

// Issue 8: with replan (or best) and nothing shared, a stateless CNN is
// simply replanned to smaller arenas; relocate alone has nothing to do.
TEST(RewriteCommand, ReplanWithoutSharedBuffersShrinksACnn) {
  test_support::TempDir dir;
  std::string in = (dir / "cnn.pte").string(), out = (dir / "small.pte").string();
  ASSERT_EQ(test_support::RunTool("pte-synth", {"cnn", "-o", in}).exit_status, 0);
  test_support::CommandOutput rewrite =
      test_support::RunTool("pteshare", {"rewrite", in, "-o", out});
  ASSERT_EQ(rewrite.exit_status, 0) << rewrite.err;
  test_support::CommandOutput before = test_support::RunTool("pteshare", {"inspect", "--json", in});
  test_support::CommandOutput after = test_support::RunTool("pteshare", {"inspect", "--json", out});
  auto arena_size = [](const std::string& json) {
    size_t at = json.find("\"size\": ", json.find("\"arenas\""));
    return std::stoull(json.substr(at + 8));
  };
  EXPECT_LT(arena_size(after.out), arena_size(before.out)) << before.out << after.out;
  test_support::CommandOutput relocate =
      test_support::RunTool("pteshare", {"rewrite", in, "-o", out, "--strategy", "relocate"});
  EXPECT_EQ(relocate.exit_status, 2);
  EXPECT_TRUE(test_support::Contains(relocate.err, "say which buffers to share")) << relocate.err;
}

// paired_state.K says only where a buffer is in the pairing: stored as
// the tensor's name it would pass for the model's own, so --write-names
// refuses it and says what to give instead; nothing is written.
TEST(RewriteCommand, WriteNamesRefusesMadeUpPositionNamesAndSaysWhatToGive) {
  TempDir dir;
  fs::path in = SynthLlm(dir, "llm.pte");  // unnamed, as exported
  fs::path out = dir / "named.pte";
  CommandOutput refused = RunTool(
      "pteshare", {"rewrite", in.string(), "--share-auto", "--write-names", "-o", out.string()});
  EXPECT_EQ(refused.exit_status, 2);
  EXPECT_EQ(refused.err, "pteshare: " + in.string() +
                             ": --write-names would store made-up names: paired_state.000 to "
                             "paired_state.003 are positions in the unnamed state of "
                             "prefill/decode, not the model's names; give the real ones with "
                             "--names-from FILE (a line each like "
                             "paired_state.000=layers.0.k_cache) or --name paired_state.000=NAME, "
                             "or add --allow-position-names to store the positions as names\n");
  EXPECT_FALSE(fs::exists(out));
  // Without --write-names the same pairing rewrites, saying what the
  // names are.
  CommandOutput unnamed =
      RunTool("pteshare", {"rewrite", in.string(), "--share-auto", "-o", out.string()});
  ASSERT_EQ(unnamed.exit_status, 0) << unnamed.err;
  EXPECT_TRUE(Contains(unnamed.out,
                       "paired 4 unnamed mutable buffers by position (paired_state.K: position K, "
                       "no name in the program):"))
      << unnamed.out;
}

// The real names, a line per cache in a file: stored in the program, found
// by name by both checkers.
TEST(RewriteCommand, WriteNamesStoresTheNamesOfANamesFile) {
  TempDir dir;
  fs::path in = SynthLlm(dir, "llm.pte");
  fs::path out = dir / "named.pte";
  const fs::path names = dir / "names.txt";
  WriteFileBytes(names,
                 "# llm.pte's caches, in the order the exporter lists them\n"
                 "paired_state.000=layers.0.k_cache\n"
                 "paired_state.001=layers.0.v_cache\n"
                 "paired_state.002=layers.1.k_cache\n"
                 "paired_state.003=layers.1.v_cache\n");
  CommandOutput first = RunTool("pteshare", {"rewrite", in.string(), "--share-auto", "--names-from",
                                             names.string(), "--write-names", "-o", out.string()});
  ASSERT_EQ(first.exit_status, 0) << first.err;
  EXPECT_TRUE(Contains(first.out, "8 names written")) << first.out;  // 4 caches x 2 methods
  EXPECT_TRUE(Contains(first.out, "paired 4 unnamed mutable buffers by position:\n")) << first.out;
  EXPECT_TRUE(Contains(first.out, "(layers.1.v_cache)")) << first.out;
  Result<OpenedProgram> opened = OpenProgram(out);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  for (const MethodView& m : opened->view.methods) {
    if (m.tensors.empty()) continue;  // the constant metadata methods
    std::vector<std::string> named;
    for (const TensorValue& t : m.tensors) {
      if (!t.name.empty()) named.emplace_back(t.name);
    }
    EXPECT_EQ(named, (std::vector<std::string>{"layers.0.k_cache", "layers.0.v_cache",
                                               "layers.1.k_cache", "layers.1.v_cache"}))
        << m.name;
  }
  CommandOutput verify = RunTool("pteshare", {"verify", out.string()});
  EXPECT_EQ(verify.exit_status, 0) << verify.out;
  EXPECT_TRUE(Contains(verify.out,
                       "  layers.0.k_cache: arena 1 offset 0, 32,768 bytes, in "
                       "prefill, decode\n"))
      << verify.out;
  EXPECT_EQ(RunTool("pteshare-selfcheck", {out.string(), "layers.1.v_cache"}).exit_status, 0);
  // verify takes the same file: before the rewrite it finds the caches
  // apart under their real names.
  CommandOutput before =
      RunTool("pteshare", {"verify", in.string(), "--names-from", names.string()});
  EXPECT_EQ(before.exit_status, 1) << before.out;
  EXPECT_TRUE(Contains(before.out, "error: method decode, value 34 (layers.0.k_cache)"))
      << before.out;
}

TEST(RewriteCommand, WriteNamesStoresPositionNamesWhenAllowed) {
  TempDir dir;
  fs::path in = SynthLlm(dir, "llm.pte");  // unnamed, as exported
  fs::path out = dir / "named.pte";
  CommandOutput first =
      RunTool("pteshare", {"rewrite", in.string(), "--share-auto", "--write-names",
                           "--allow-position-names", "-o", out.string()});
  ASSERT_EQ(first.exit_status, 0) << first.err;
  EXPECT_TRUE(Contains(first.out, "8 names written")) << first.out;  // 4 caches x 2 methods
  Result<OpenedProgram> opened = OpenProgram(out);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  for (const MethodView& m : opened->view.methods) {
    if (m.tensors.empty()) continue;  // the constant metadata methods
    size_t named = 0;
    for (const TensorValue& t : m.tensors) named += t.name.rfind("paired_state.", 0) == 0 ? 1 : 0;
    EXPECT_EQ(named, 4u) << m.name;
  }
  // Found by name now, not by pairing; and a second run has nothing to do.
  CommandOutput verify = RunTool("pteshare", {"verify", out.string(), "--json"});
  EXPECT_EQ(verify.exit_status, 0) << verify.out;
  EXPECT_TRUE(Contains(verify.out, "\"paired\": false")) << verify.out;
  EXPECT_FALSE(Contains(verify.out, "\"paired\": true")) << verify.out;
  EXPECT_EQ(RunTool("pteshare-selfcheck", {out.string(), "paired_state.000"}).exit_status, 0);
  CommandOutput again =
      RunTool("pteshare", {"rewrite", out.string(), "--share-auto", "--write-names", "--in-place"});
  EXPECT_EQ(again.exit_status, 0) << again.err;
  EXPECT_TRUE(Contains(again.out, "already planned, no change")) << again.out;
}

// -v says what became of OUT in the user's words: created where nothing
// was, replaced where a file was.
TEST(RewriteCommand, VerboseSaysCreatedForANewFileAndReplacedForAnOldOne) {
  TempDir dir;
  fs::path in = SynthLlm(dir, "llm.pte");
  fs::path out = dir / "fresh.pte";
  CommandOutput created =
      RunTool("pteshare", {"rewrite", in.string(), "--share-auto", "-o", out.string(), "-v"});
  ASSERT_EQ(created.exit_status, 0) << created.err;
  EXPECT_TRUE(Contains(created.err, ": created " + out.string() + "\n")) << created.err;
  EXPECT_FALSE(Contains(created.err, "replaced")) << created.err;
  CommandOutput replaced =
      RunTool("pteshare", {"rewrite", in.string(), "--share-auto", "-o", out.string(), "-v"});
  ASSERT_EQ(replaced.exit_status, 0) << replaced.err;
  EXPECT_TRUE(Contains(replaced.err, ": replaced " + out.string() + "\n")) << replaced.err;
  EXPECT_FALSE(Contains(replaced.err, "created")) << replaced.err;
}

}  // namespace
}  // namespace pteshare
