// pteshare-selfcheck: the loader example binds every method to the same
// arena buffers and runs the binding check; exit 0 when the sharing holds,
// 1 when it does not, 2 when the file cannot be read.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime_check/check.h"
#include "tests/program_fixture.h"
#include "tests/test_support.h"
#include "tools/synth/fixed_layout.h"
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

b::Tensor At(int32_t floats, b::MemoryId memory_id, uint64_t offset,
             std::optional<std::string> name = std::nullopt) {
  return b::PlacedFloats(floats, memory_id, offset, std::move(name));
}

std::string Write(const TempDir& dir, const b::ProgramSpec& spec, const std::string& name) {
  return test_support::WriteProgram(dir.path(), spec, name);
}

// prefill and decode share k_cache (1024 bytes at 0 of arena 1) and keep
// an activation in arena 2; `decode_k` moves decode's copy.
b::ProgramSpec KvSpec(b::FixedPlacement decode_k = {1, 0}) {
  b::ProgramSpec spec;
  for (const char* name : {"prefill", "decode"}) {
    b::MethodSpec& m = spec.methods.emplace_back();
    m.name = name;
    b::FixedPlacement k = m.name == "decode" ? decode_k : b::FixedPlacement{1, 0};
    m.Add(At(256, k.memory_id, k.offset, "layers.0.k_cache"));
    b::ValueIndex x = m.Add(At(16, 2, 0));
    b::ValueIndex y = m.Add(At(16, 2, 64));
    b::CallOut(m, b::ops::kRelu, {x}, y);
    m.inputs = {x};
    m.outputs = {y};
  }
  return spec;
}

TEST(SelfCheck, SharedBuffersAliasWhenEveryMethodGetsTheSameArenas) {
  TempDir dir;
  std::string file = Write(dir, KvSpec(), "kv.pte");
  CommandOutput out = RunTool("pteshare-selfcheck", {file});
  EXPECT_EQ(out.exit_status, 0) << out.out << out.err;
  // The scratch a firmware sets aside for check.h: what ScratchBytes says.
  const std::string bytes = test_support::ReadFileBytes(file);
  std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  const size_t scratch = runtime_check::core::ScratchBytes(aligned.data(), bytes.size(),
                                                           runtime_check::core::Options{});
  ASSERT_GT(scratch, 0u);
  EXPECT_TRUE(Contains(out.out, file + ": 2 method(s), 2 arena(s) bound, " +
                                    std::to_string(scratch) + " bytes of check scratch\n"))
      << out.out;
  EXPECT_TRUE(
      Contains(out.out, "  shared layers.0.k_cache: arena 1 offset 0, 1024 bytes, in 2 methods\n"))
      << out.out;
  EXPECT_TRUE(Contains(out.out, file + ": ok: 1 shared buffer across 2 methods\n")) << out.out;
}

TEST(SelfCheck, BufferAtAnotherOffsetFailsWithTheNumbers) {
  TempDir dir;
  std::string file = Write(dir, KvSpec({1, 16}), "shifted.pte");
  CommandOutput out = RunTool("pteshare-selfcheck", {file});
  EXPECT_EQ(out.exit_status, 1) << out.out << out.err;
  // The placements differ, so the same buffers give two addresses.
  EXPECT_TRUE(Contains(out.out, "  error: method decode, value 0 (layers.0.k_cache): at address "))
      << out.out;
  EXPECT_TRUE(Contains(out.out, " (arena 1 + 16), but at ")) << out.out;
  EXPECT_TRUE(Contains(out.out, " (arena 1 + 0) in method prefill (value 0)\n")) << out.out;
  EXPECT_TRUE(Contains(out.out, "1 error, 0 warnings")) << out.out;
}

TEST(SelfCheck, BufferInAnotherArenaFails) {
  TempDir dir;
  std::string file = Write(dir, KvSpec({2, 1024}), "moved.pte");
  CommandOutput out = RunTool("pteshare-selfcheck", {file, "layers.0.k_cache"});
  EXPECT_EQ(out.exit_status, 1) << out.out << out.err;
  EXPECT_TRUE(Contains(out.out, " (arena 2 + 1024), but at ")) << out.out;
  EXPECT_TRUE(Contains(out.out, " (arena 1 + 0) in method prefill (value 0)\n")) << out.out;
}

TEST(SelfCheck, NamedBufferMissingFromEveryMethodFails) {
  TempDir dir;
  std::string file = Write(dir, KvSpec(), "kv.pte");
  CommandOutput out = RunTool("pteshare-selfcheck", {file, "no.such.buffer"});
  EXPECT_EQ(out.exit_status, 1) << out.out << out.err;
  EXPECT_TRUE(Contains(out.out, "shared buffer no.such.buffer: no method has")) << out.out;
}

TEST(SelfCheck, UnreadableInputExitsTwo) {
  TempDir dir;
  CommandOutput out = RunTool("pteshare-selfcheck", {});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_TRUE(Contains(out.err, "usage: pteshare-selfcheck FILE")) << out.err;

  std::string missing = (dir / "missing.pte").string();
  out = RunTool("pteshare-selfcheck", {missing});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err, "pteshare-selfcheck: " + missing + ": cannot read the file\n");

  std::string zip = (dir / "model.pte").string();
  // Built by append: GCC 12 warns wrongly (-Warray-bounds) on the sum of
  // two temporary strings here.
  std::string zip_bytes("PK\x03\x04", 4);
  zip_bytes.append(60, 'z');
  test_support::WriteFileBytes(zip, zip_bytes);
  out = RunTool("pteshare-selfcheck", {zip});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err,
            "pteshare-selfcheck: " + zip +
                ": not a .pte program: this is a ZIP archive (a PyTorch .pt/.pth file?)\n");
}

// Issue 23: 30,000 declared arenas of 4 GiB cost 20 s of reservations
// before anything was checked. Arenas beyond the machine's memory are
// refused at once: a loader could not bind them either.
TEST(SelfCheck, ArenasBeyondTheMachinesMemoryAreRefusedWithAMessage) {
  TempDir dir;
  b::ProgramSpec spec =
      synth::FixedLayoutSpec({{"forward", {{16, 1, 0}}, {int64_t{1} << 50, int64_t{1} << 50}}});
  const std::string file = Write(dir, spec, "huge.pte");
  CommandOutput out = RunTool("pteshare-selfcheck", {file});
  EXPECT_EQ(out.exit_status, 2) << out.out;
  EXPECT_TRUE(Contains(out.err,
                       ": the program declares 2 arena(s) of 2251799813685248 bytes in "
                       "all, more than this machine's memory ("))
      << out.err;
}

// Issue 23: a file cut short (its header declares segments past its end)
// was "ok" to the self-check while every pteshare command refused it. A
// sparse 2 GiB file with such a header also cost it 76 s: only the bytes
// the file stores are read now.
TEST(SelfCheck, AFileShorterThanItsSegmentsIsRefused) {
  TempDir dir;
  const std::string file = Write(dir, KvSpec(), "cut.pte");
  const std::string bytes = test_support::ReadFileBytes(file);
  test_support::WriteFileBytes(file, bytes.substr(0, bytes.size() - 1));
  CommandOutput out = RunTool("pteshare-selfcheck", {file});
  EXPECT_EQ(out.exit_status, 2) << out.out;
  EXPECT_TRUE(Contains(out.err, "pteshare-selfcheck: " + file + ": file is too small: "))
      << out.err;
}

TEST(SelfCheck, EveryCorpusFileLoadsOrIsRefusedClearly) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  std::vector<std::filesystem::path> files = test_support::CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "../shared/corpus is absent: no real programs to load";
  for (const auto& path : files) {
    CommandOutput out = RunTool("pteshare-selfcheck", {path.string()});
    if (path.extension() == ".bpte") {  // the program inside is loaded
      EXPECT_EQ(out.exit_status, 0) << path << "\n" << out.out << out.err;
    }
    // No real file shares state, so each loads cleanly or is not a program.
    EXPECT_TRUE(out.exit_status == 0 || out.exit_status == 2)
        << path << " exit " << out.exit_status << "\n"
        << out.out << out.err;
  }
}

}  // namespace
}  // namespace pteshare

namespace pteshare {
namespace {

// Every program answers --version with the project's version, and the
// self-check's --help says what it does.
TEST(SelfCheck, EveryProgramHasVersionAndTheSelfCheckHasHelp) {
  for (const char* tool : {"pteshare", "pte-synth", "pteshare-selfcheck"}) {
    test_support::CommandOutput out = test_support::RunTool(tool, {"--version"});
    EXPECT_EQ(out.exit_status, 0) << tool << out.err;
    EXPECT_EQ(out.out, std::string(tool) + " " + PTESHARE_VERSION_FOR_TESTS + "\n") << tool;
  }
  test_support::CommandOutput help = test_support::RunTool("pteshare-selfcheck", {"--help"});
  EXPECT_EQ(help.exit_status, 0);
  EXPECT_TRUE(test_support::Contains(help.out, "usage: pteshare-selfcheck FILE")) << help.out;
}

// README.md shows `file` whole, byte for byte, in the code block after
// `marker`: an application copies it, and it once drifted from the file
// (issue 24).
void ExpectReadmeShowsWhole(const std::string& marker, const std::filesystem::path& file) {
  const std::filesystem::path root(PTESHARE_SOURCE_DIR);
  const std::string readme = test_support::ReadFileBytes(root / "README.md");
  const std::string source = test_support::ReadFileBytes(root / file);
  const std::string opening = marker + "\n\n```cpp\n";
  const size_t start = readme.find(opening);
  ASSERT_NE(start, std::string::npos) << "README.md lost the section of " << file;
  const size_t begin = start + opening.size();
  const size_t end = readme.find("```\n", begin);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(readme.substr(begin, end - begin), source)
      << "README.md's copy of " << file << " differs from the file";
}

// The self-check's source and the firmware example (issue 25).
TEST(SelfCheck, ReadmeShowsTheExamplesWholeSourceAsItIs) {
  ExpectReadmeShowsWhole("Its whole source:", "runtime_check/self_check_main.cc");
  ExpectReadmeShowsWhole("the firmware example, whole:",
                         "runtime_check/examples/firmware_check.cc");
}

}  // namespace
}  // namespace pteshare
