// `pteshare verify`: the program-level alias check from the command line,
// its report, its --json shape and its exit statuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "rewriter/open_program.h"
#include "tests/program_fixture.h"
#include "tests/test_support.h"
#include "tools/synth/operators.h"
#include "tools/synth/program_builder.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare {
namespace {

namespace b = pteshare::synth;
using test_support::CommandOutput;
using test_support::Contains;
using test_support::RunTool;
using test_support::TempDir;

b::Tensor At(int32_t floats, uint64_t offset, std::optional<std::string> name = std::nullopt) {
  return b::PlacedFloats(floats, 1, offset, std::move(name));
}

std::string Write(const TempDir& dir, const b::ProgramSpec& spec, const std::string& name) {
  return test_support::WriteProgram(dir.path(), spec, name);
}

// prefill and decode share k_cache (value 0, 1024 bytes at 0) and v_cache
// (value 1, at 2048); activations at 4096; value 4 is unnamed state at 8192.
b::ProgramSpec KvSpec(uint64_t decode_k_offset = 0) {
  b::ProgramSpec spec;
  for (const char* name : {"prefill", "decode"}) {
    b::MethodSpec& m = spec.methods.emplace_back();
    m.name = name;
    m.Add(At(256, m.name == "decode" ? decode_k_offset : 0, "layers.0.k_cache"));
    m.Add(At(256, 2048, "layers.0.v_cache"));
    b::ValueIndex x = m.Add(At(16, 4096));
    b::ValueIndex y = m.Add(At(16, 4160));
    m.Add(At(16, 8192));
    b::CallOut(m, b::ops::kRelu, {x}, y);
    m.inputs = {x};
    m.outputs = {y};
  }
  return spec;
}

TEST(VerifyCommand, CleanProgramExitsZeroWithEveryNamedBufferChecked) {
  TempDir dir;
  std::string file = Write(dir, KvSpec(), "kv.pte");
  CommandOutput out = RunTool("pteshare", {"verify", file});
  EXPECT_EQ(out.exit_status, 0) << out.out << out.err;
  EXPECT_TRUE(out.err.empty()) << out.err;
  EXPECT_TRUE(
      Contains(out.out, "layers.0.k_cache: arena 1 offset 0, 1,024 bytes, in prefill, decode"))
      << out.out;
  EXPECT_TRUE(Contains(out.out, file + ": ok: 2 shared buffers across 2 methods")) << out.out;
}

TEST(VerifyCommand, ShiftedBufferExitsOneWithTheNumbers) {
  TempDir dir;
  std::string file = Write(dir, KvSpec(/*decode_k_offset=*/16), "shifted.pte");
  CommandOutput out = RunTool("pteshare", {"verify", file, "--share", "layers.0.k_cache"});
  EXPECT_EQ(out.exit_status, 1) << out.out << out.err;
  EXPECT_TRUE(Contains(out.out,
                       "  error: method decode, value 0 (layers.0.k_cache): at offset 16 in arena "
                       "1, but at offset 0 in method prefill (value 0)\n"))
      << out.out;
  EXPECT_TRUE(Contains(out.out, "1 error, 0 warnings")) << out.out;
}

TEST(VerifyCommand, ShareAutoAndExplicitNamesCombine) {
  TempDir dir;
  std::string file = Write(dir, KvSpec(), "kv.pte");
  CommandOutput out = RunTool("pteshare", {"verify", file, "--share-auto"});
  EXPECT_EQ(out.exit_status, 0) << out.out << out.err;
  EXPECT_TRUE(Contains(out.out, "2 shared buffers")) << out.out;

  out = RunTool("pteshare", {"verify", file, "--share-auto", "--share", "no.such.buffer"});
  EXPECT_EQ(out.exit_status, 1) << out.out << out.err;
  EXPECT_TRUE(Contains(out.out, "shared buffer no.such.buffer: no method has a planned tensor"))
      << out.out;
}

TEST(VerifyCommand, NameOptionSharesUnnamedBuffers) {
  TempDir dir;
  std::string file = Write(dir, KvSpec(), "kv.pte");
  CommandOutput out = RunTool("pteshare", {"verify", file, "--name", "prefill:4=state", "--name",
                                           "decode:4=state", "--share", "state"});
  EXPECT_EQ(out.exit_status, 0) << out.out << out.err;
  EXPECT_TRUE(Contains(out.out, "state: arena 1 offset 8,192, 64 bytes, in prefill, decode"))
      << out.out;

  out = RunTool("pteshare", {"verify", file, "--name", "prefill:4=state", "--name",
                             "decode:3=state", "--share", "state"});
  EXPECT_EQ(out.exit_status, 1) << out.out << out.err;
}

TEST(VerifyCommand, JsonReportHasTheDocumentedShape) {
  TempDir dir;
  std::string file = Write(dir, KvSpec(/*decode_k_offset=*/16), "shifted.pte");
  CommandOutput out = RunTool("pteshare", {"verify", file, "--json"});
  EXPECT_EQ(out.exit_status, 1) << out.out << out.err;
  const std::string& json = out.out;
  EXPECT_TRUE(json.starts_with("{\n  \"format_version\": 2,\n  \"file\": \"" + file +
                               "\",\n  \"ok\": false,"))
      << json;
  for (const char* part :
       {"\"summary\": \"1 error, 0 warnings: 2 shared buffers across 2 methods\"",
        "\"errors\": 1",
        "\"warnings\": 0",
        "\"methods\": [",
        "\"planned_tensors\": 5",
        "\"arenas\": [",
        "\"memory_id\": 1",
        "\"size\": 8256",
        "\"shared\": [",
        "\"name\": \"layers.0.k_cache\"",
        "\"initial_state_in\": []",
        "\"findings\": [",
        "\"kind\": \"offset_mismatch\"",
        "\"severity\": \"error\"",
        "\"method\": \"decode\"",
        "\"value_index\": 0",
        "\"placement\": {",
        "\"offset\": 16",
        "\"reference\": {",
        "\"method\": \"prefill\"",
        "\"expected\": 0",
        "\"actual\": 16",
        "\"message\": \"method decode, value 0 (layers.0.k_cache): at offset 16"}) {
    EXPECT_TRUE(Contains(json, part)) << part << "\n" << json;
  }
  EXPECT_TRUE(json.ends_with("}\n")) << json;
}

TEST(VerifyCommand, BadInputExitsTwoWithOneLineOnStderr) {
  TempDir dir;
  std::string not_pte = (dir / "notes.pte").string();
  test_support::WriteFileBytes(not_pte, "these are not the bytes you are looking for");
  CommandOutput out = RunTool("pteshare", {"verify", not_pte});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(out.out.empty()) << out.out;
  EXPECT_EQ(out.err, "pteshare: " + not_pte +
                         ": not a .pte program: identifier 'e ar' at byte 4, expected 'ET12'\n");

  out = RunTool("pteshare", {"verify", (dir / "missing.pte").string()});
  EXPECT_EQ(out.exit_status, 2);

  std::string file = Write(dir, KvSpec(), "kv.pte");
  out = RunTool("pteshare", {"verify", file, "--name", "prefill=oops"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err,
            "pteshare: --name 'prefill=oops': expected METHOD:VALUE_INDEX=NAME or "
            "paired_state.K=NAME\n");
}

TEST(VerifyCommand, EveryCorpusFileGivesAReportOrAClearError) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  std::vector<std::filesystem::path> files = test_support::CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "../shared/corpus is absent: no real programs to verify";
  for (const auto& path : files) {
    CommandOutput out = RunTool("pteshare", {"verify", path.string()});
    if (out.exit_status == 2) {
      // One line naming the file.
      EXPECT_TRUE(out.err.starts_with("pteshare: " + path.string() + ": ")) << out.err;
      EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
    } else {
      EXPECT_EQ(out.exit_status, 0) << path << "\n" << out.out << out.err;
    }
  }
}

// No good rewrite may start failing a check: every corpus program that
// rewrites (--share-auto; most have nothing to share and are replanned)
// passes verify and the loader-side self-check wherever its input passed.
TEST(VerifyCommand, EveryRewrittenCorpusProgramStillVerifies) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  std::vector<std::filesystem::path> files = test_support::CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "../shared/corpus is absent: no real programs to rewrite";
  test_support::TempDir dir;
  size_t rewritten = 0;
  for (const auto& path : files) {
    const std::string out = (dir / path.filename().string()).string();
    // 3: nothing to share, the arenas replanned and written all the same.
    const int status =
        RunTool("pteshare", {"rewrite", path.string(), "--share-auto", "-o", out}).exit_status;
    if (status != 0 && status != 3) continue;  // refused inputs (not programs): their own tests
    EXPECT_TRUE(std::filesystem::exists(out)) << path;
    ++rewritten;
    const int input_status = RunTool("pteshare", {"verify", path.string()}).exit_status;
    CommandOutput verify = RunTool("pteshare", {"verify", out});
    if (input_status == 0) {
      EXPECT_EQ(verify.exit_status, 0) << path << "\n" << verify.out;
    }
    EXPECT_EQ(RunTool("pteshare-selfcheck", {out}).exit_status, 0) << path;
  }
  size_t bundles = 0;  // a .bpte rewrites as its program
  for (const test_support::ManifestRow& row : test_support::CorpusManifest())
    bundles += row.identifier == "BP08";
  EXPECT_EQ(rewritten, test_support::CorpusManifestTotals().programs + bundles);
}

}  // namespace
}  // namespace pteshare

namespace pteshare {
namespace {

// The whole point: what `rewrite` writes passes both checkers, for every
// shape pte-synth makes (one arena, a device arena, the legacy extra arena).
TEST(VerifyCommand, RewrittenProgramsPassWhereTheirInputsFail) {
  for (std::vector<std::string> variant :
       {std::vector<std::string>{}, {"--device-arena"}, {"--layers", "3", "--heads", "2"}}) {
    test_support::TempDir dir;
    std::string input = (dir / "llm.pte").string(), output = (dir / "shared.pte").string();
    std::vector<std::string> synth = {"llm", "-o", input};
    synth.insert(synth.end(), variant.begin(), variant.end());
    ASSERT_EQ(test_support::RunTool("pte-synth", synth).exit_status, 0);

    test_support::CommandOutput before = test_support::RunTool("pteshare", {"verify", input});
    EXPECT_EQ(before.exit_status, 1) << before.out;
    EXPECT_NE(before.out.find("error: "), std::string::npos) << before.out;

    test_support::CommandOutput rewrite =
        test_support::RunTool("pteshare", {"rewrite", input, "--share-auto", "-o", output});
    ASSERT_EQ(rewrite.exit_status, 0) << rewrite.err;
    test_support::CommandOutput after = test_support::RunTool("pteshare", {"verify", output});
    EXPECT_EQ(after.exit_status, 0) << after.out;
    test_support::CommandOutput self_check = test_support::RunTool("pteshare-selfcheck", {output});
    EXPECT_EQ(self_check.exit_status, 0) << self_check.out << self_check.err;
  }
}

// verify cannot see inside a delegate: a program whose methods call one
// says so, naming each backend the program lists; others say nothing.
TEST(VerifyCommand, DelegateProgramsSayTheirMemoryIsNotChecked) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  size_t noted = 0;
  for (const test_support::ManifestRow& row : test_support::CorpusProgramRows()) {
    const std::filesystem::path path = test_support::CorpusPath(row);
    SCOPED_TRACE(row.file);
    Result<OpenedProgram> opened = OpenProgram(path);
    if (!opened.ok()) continue;  // an old version: its own tests
    std::vector<std::string> backends;
    for (const MethodView& m : opened->view.methods) {
      for (const auto& id : m.delegate_ids) {
        if (id && std::find(backends.begin(), backends.end(), *id) == backends.end())
          backends.emplace_back(*id);
      }
    }
    CommandOutput verify = RunTool("pteshare", {"verify", path.string()});
    const size_t note = verify.out.find("\n  note: ");
    EXPECT_EQ(note != std::string::npos, !backends.empty()) << verify.out;
    if (note == std::string::npos) continue;
    ++noted;
    const std::string line = verify.out.substr(note + 1, verify.out.find('\n', note + 1) - note);
    for (const std::string& backend : backends) {
      EXPECT_NE(line.find(backend + " (in "), std::string::npos) << line;
    }
    EXPECT_NE(line.find("its own memory: any state inside it is not checked here"),
              std::string::npos)
        << line;
  }
  EXPECT_GT(noted, 0u);
}

}  // namespace
}  // namespace pteshare
