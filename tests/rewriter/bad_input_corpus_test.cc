// The bad-input corpus (tests/bad_inputs/): every command that reads a file
// (inspect, plan --share-auto, verify, rewrite -o, rewrite --in-place on a
// copy), pteshare-selfcheck and the runtime_check library on every broken
// file. Each case must give the exit status its kind promises, one line
// on stderr naming the file when it refuses it, no signal and no sanitizer
// report, nothing written, and the input byte for byte as it was.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "runtime_check/alias_check.h"
#include "tests/bad_inputs/bad_input_cases.h"
#include "tests/fuzz/block_plan_properties.h"
#include "tests/fuzz/plan_properties.h"
#include "tests/fuzz/read_program_properties.h"
#include "tests/fuzz/rewrite_properties.h"
#include "tests/fuzz/runtime_check_properties.h"
#include "tests/test_support.h"
#include "tools/synth/operators.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare {
namespace {

namespace fs = std::filesystem;
namespace rc = runtime_check;
using test_support::CommandOutput;
using test_support::RunTool;
using test_support::TempDir;
using test_support::bad_inputs::BadInput;
using test_support::bad_inputs::Expect;

const std::vector<BadInput>& Cases() {
  static const std::vector<BadInput> cases = test_support::bad_inputs::GeneratedCases();
  return cases;
}

const BadInput& Case(const std::string& name) {
  for (const BadInput& c : Cases()) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no bad input named " + name);
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  for (const BadInput& c : Cases()) names.push_back(c.name);
  return names;
}

// Exit statuses of inspect, plan, verify and rewrite for each kind of case
// (bad_input_cases.h says why).
struct ExitStatuses {
  int inspect, plan, verify, rewrite;
};

ExitStatuses Expected(Expect expect) {
  switch (expect) {
    case Expect::kUnreadable:
      return {2, 2, 2, 2};
    case Expect::kInvalidNumbers:
      return {2, 2, 2, 2};
    case Expect::kInvalidPlacement:
      return {0, 2, 1, 2};
    case Expect::kValid:
      // The base program's caches sit at different offsets in prefill and
      // decode: verify reports that, plan and rewrite fix it.
      return {0, 0, 1, 0};
  }
  return {};
}

std::string Describe(const std::vector<std::string>& args, const CommandOutput& out) {
  std::string text = "pteshare";
  for (const std::string& a : args) text += " " + a;
  return text + "\n  exit " + std::to_string(out.exit_status) + "\n  stderr: " + out.err +
         "\n  stdout (first 400 bytes): " + out.out.substr(0, 400);
}

size_t Lines(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// A sanitizer's error report (not its warnings: with allocator_may_return_null
// ASan warns about an allocation it refuses, which the tool then reports).
bool HasSanitizerReport(const std::string& err) {
  return err.find("ERROR: AddressSanitizer") != std::string::npos ||
         err.find("ERROR: LeakSanitizer") != std::string::npos ||
         err.find("runtime error:") != std::string::npos;
}

// What every run must satisfy: no signal, no sanitizer report, and when the
// file is refused, one line naming it.
void ExpectCleanRun(const std::vector<std::string>& args, const CommandOutput& out,
                    const std::string& named_file) {
  EXPECT_LT(out.exit_status, 128) << "killed by a signal: " << Describe(args, out);
  EXPECT_FALSE(HasSanitizerReport(out.err)) << Describe(args, out);
  if (out.exit_status == 2) {
    EXPECT_EQ(Lines(out.err), 1u) << "one line expected: " << Describe(args, out);
    EXPECT_EQ(out.err.rfind("pteshare: " + named_file + ": ", 0), 0u)
        << "the line must name the file: " << Describe(args, out);
  }
}

// Runs one pteshare command on `file` and checks its exit status.
CommandOutput RunPteshare(const std::vector<std::string>& args, int expected_status,
                          const std::string& named_file) {
  CommandOutput out = RunTool("pteshare", args);
  ExpectCleanRun(args, out, named_file);
  EXPECT_EQ(out.exit_status, expected_status) << Describe(args, out);
  return out;
}

// pteshare-selfcheck allocates one buffer per arena with new (nothrow) and
// reports an arena it cannot allocate. Under ASan an absurd size (2^62, or a
// negative size read as unsigned) aborts instead of returning null unless
// ASan is told to behave like the real allocator.
CommandOutput RunSelfCheck(const std::string& file) {
  static const bool configured = [] {
    const char* options = std::getenv("ASAN_OPTIONS");
    std::string value = options != nullptr ? options : "";
    value += (value.empty() ? "" : ":") + std::string("allocator_may_return_null=1");
    return ::setenv("ASAN_OPTIONS", value.c_str(), 1) == 0;
  }();
  EXPECT_TRUE(configured);
  return RunTool("pteshare-selfcheck", {file});
}

// Every file in `dir` but the ones named: a refused rewrite leaves no
// output, temporary file, journal or lock behind.
std::vector<std::string> OtherFiles(const fs::path& dir, const std::vector<std::string>& known) {
  std::vector<std::string> others;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (std::find(known.begin(), known.end(), name) == known.end()) others.push_back(name);
  }
  return others;
}

// The library an application links, on the same bytes: never a crash, and
// findings that match the kind of case.
void CheckRuntimeCheck(const BadInput& c) {
  const std::vector<uint8_t> bytes = c.bytes;  // heap memory: aligned as the checker wants
  const rc::Report report = rc::CheckProgram(bytes.data(), bytes.size(), rc::CheckOptions{});
  std::vector<rc::MethodBinding> bindings;
  for (const rc::MethodArenas& m : report.methods) {
    rc::MethodBinding binding{m.name, {}};
    for (size_t i = 0; i < m.arena_sizes.size(); ++i) {
      // Addresses only: the checker never touches the bound memory.
      binding.arenas.push_back({reinterpret_cast<const void*>(uintptr_t{1} << (40 + i)),
                                static_cast<size_t>(m.arena_sizes[i])});
    }
    bindings.push_back(std::move(binding));
  }
  const rc::Report bound = rc::CheckBindings(bytes.data(), bytes.size(), {}, bindings);
  for (const rc::Report* r : {&report, &bound}) {
    for (const rc::Finding& f : r->findings) EXPECT_FALSE(f.message.empty());
  }
  switch (c.expect) {
    case Expect::kUnreadable:
      // The checker sees the flatbuffer only; a file whose segments are
      // broken is still a program it can check.
      if (!report.readable()) {
        ASSERT_FALSE(report.findings.empty());
        EXPECT_EQ(report.findings.front().kind, rc::FindingKind::kNotAProgram);
      }
      break;
    case Expect::kInvalidNumbers:
    case Expect::kInvalidPlacement:
      EXPECT_TRUE(report.readable()) << report.Summary();
      EXPECT_GT(report.error_count(), 0u) << "a broken placement must be a finding";
      EXPECT_GT(bound.error_count(), 0u) << "a broken placement must be a finding";
      break;
    case Expect::kValid:
      EXPECT_TRUE(report.readable()) << report.Summary();
      break;
  }
}

class BadInputCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(BadInputCorpus, EveryCommandRefusesCleanlyAndLeavesTheFileAlone) {
  const BadInput& c = Case(GetParam());
  SCOPED_TRACE(c.name + ": " + c.why);
  TempDir dir;
  const std::string file = (dir / (c.name + ".pte")).string();
  const std::string copy = (dir / (c.name + ".copy.pte")).string();
  const std::string out = (dir / "out.pte").string();
  const std::string original(c.bytes.begin(), c.bytes.end());
  test_support::WriteFileBytes(file, original);
  test_support::WriteFileBytes(copy, original);

  const ExitStatuses expected = Expected(c.expect);
  RunPteshare({"inspect", file}, expected.inspect, file);
  RunPteshare({"inspect", file, "--json"}, expected.inspect, file);
  RunPteshare({"plan", file, "--share-auto"}, expected.plan, file);
  RunPteshare({"verify", file}, expected.verify, file);
  RunPteshare({"verify", file, "--json"}, expected.verify, file);
  RunPteshare({"rewrite", file, "--share-auto", "-o", out}, expected.rewrite, file);
  RunPteshare({"rewrite", copy, "--share-auto", "--in-place"}, expected.rewrite, copy);

  EXPECT_EQ(test_support::ReadFileBytes(file), original) << "the input changed";
  if (expected.rewrite != 0) {
    EXPECT_EQ(test_support::ReadFileBytes(copy), original) << "a refused in-place rewrite wrote";
    EXPECT_EQ(OtherFiles(dir.path(), {c.name + ".pte", c.name + ".copy.pte"}),
              std::vector<std::string>{})
        << "a refused rewrite left files behind";
  }

  // The loader-side check, as a program and as a library.
  CommandOutput self = RunSelfCheck(file);
  EXPECT_LT(self.exit_status, 128) << "pteshare-selfcheck killed by a signal: " << self.err;
  EXPECT_FALSE(HasSanitizerReport(self.err)) << self.err;
  if (c.expect == Expect::kUnreadable) {
    EXPECT_NE(self.exit_status, 0) << self.out;
  } else if (c.expect != Expect::kValid) {
    EXPECT_EQ(self.exit_status, 1) << self.out << self.err;
  }
  CheckRuntimeCheck(c);
}

INSTANTIATE_TEST_SUITE_P(Generated, BadInputCorpus, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// Files the fuzzers found (tests/bad_inputs/*.pte, README.md there): every
// fuzz property holds on them (the check that failed when they were found),
// and the commands follow the rules of every bad input (the exact status
// depends on the find).
std::vector<std::string> CommittedFinds() {
  std::vector<std::string> files;
  const fs::path dir = fs::path(PTESHARE_SOURCE_DIR) / "tests" / "bad_inputs";
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".pte") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) files.push_back("none");  // keeps the suite instantiated
  return files;
}

class FuzzerFinds : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzerFinds, NoCommandCrashesOrWrites) {
  if (GetParam() == "none") GTEST_SKIP() << "no fuzzer finds committed";
  const fs::path source = fs::path(PTESHARE_SOURCE_DIR) / "tests" / "bad_inputs" / GetParam();
  const std::string original = test_support::ReadFileBytes(source);
  TempDir dir;
  const std::string file = (dir / "find.pte").string();
  const std::string copy = (dir / "copy.pte").string();
  test_support::WriteFileBytes(file, original);
  test_support::WriteFileBytes(copy, original);
  const std::vector<std::vector<std::string>> commands = {
      {"inspect", file},
      {"plan", file, "--share-auto"},
      {"verify", file},
      {"rewrite", file, "--share-auto", "-o", (dir / "out.pte").string()},
      {"rewrite", copy, "--share-auto", "--in-place"}};
  for (const auto& args : commands) {
    CommandOutput out = RunTool("pteshare", args);
    ExpectCleanRun(args, out, args[1]);
    EXPECT_LE(out.exit_status, 3) << Describe(args, out);  // 3: nothing to share
  }
  EXPECT_EQ(test_support::ReadFileBytes(file), original) << "the input changed";
  CommandOutput self = RunSelfCheck(file);
  EXPECT_LE(self.exit_status, 2) << self.err;
  const std::vector<uint8_t> bytes(original.begin(), original.end());
  using Property = void (*)(std::span<const uint8_t>);
  const std::vector<std::pair<const char*, Property>> properties = {
      {"fuzz_read_program", fuzz::CheckReadProgram},
      {"fuzz_plan", fuzz::CheckPlan},
      {"fuzz_plan (blocks)", fuzz::CheckBlockPlan},
      {"fuzz_runtime_check", fuzz::CheckRuntimeCheck},
      {"fuzz_rewrite", fuzz::CheckRewrite}};
  for (const auto& [target, check] : properties) {
    try {
      check(bytes);
    } catch (const fuzz::PropertyViolation& v) {
      ADD_FAILURE() << target << ": " << v.what;
    }
  }
}

// fuzz_plan, on a ../shared/corpus program (rebuilt here, that file stays
// out of the repository): four bytes shared by position in a 48-byte arena
// with --alignment 256 take a 256-byte slot, and the others move up by the
// slot's padding. The verifier's I6 allowed only the slots of missing
// buffers and called that a pteshare bug (exit 1); design.md's I6 allows
// alignment padding.
TEST(FuzzerFinds, SlotPaddingOfACoarseAlignmentIsNotAnI6Violation) {
  synth::ProgramSpec spec;
  synth::MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  for (uint64_t offset : {0, 16, 32}) {
    synth::Tensor t;
    t.sizes = {1};
    t.memory = synth::FixedPlacement{1, offset};
    m.Add(t);
  }
  synth::CallOut(m, synth::ops::kRelu, {1}, 2);
  m.inputs = {1};
  m.outputs = {2};
  TempDir dir;
  const std::string file = (dir / "add.pte").string();
  Result<synth::PteLayout> written = synth::WritePteFile(spec, {}, file);
  ASSERT_TRUE(written.ok()) << written.error().message;
  const std::vector<std::string> args = {"plan",       file,      "--name",      "forward:0=state",
                                         "--share",    "state",   "--alignment", "256",
                                         "--strategy", "relocate"};
  CommandOutput out = RunTool("pteshare", args);
  EXPECT_EQ(out.exit_status, 0) << Describe(args, out);
}

INSTANTIATE_TEST_SUITE_P(Committed, FuzzerFinds, ::testing::ValuesIn(CommittedFinds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

TEST(BadInputCorpus, DirectoryIsRefusedByEveryCommand) {
  TempDir dir;
  const std::string folder = (dir / "model.pte").string();
  fs::create_directory(folder);
  RunPteshare({"inspect", folder}, 2, folder);
  RunPteshare({"plan", folder, "--share-auto"}, 2, folder);
  RunPteshare({"verify", folder}, 2, folder);
  RunPteshare({"rewrite", folder, "--share-auto", "-o", (dir / "out.pte").string()}, 2, folder);
  RunPteshare({"rewrite", folder, "--share-auto", "--in-place"}, 2, folder);
  EXPECT_TRUE(fs::is_directory(folder));
  EXPECT_TRUE(fs::is_empty(folder));
  EXPECT_FALSE(fs::exists(dir / "out.pte"));
  CommandOutput self = RunSelfCheck(folder);
  EXPECT_EQ(self.exit_status, 2) << self.err;
}

// A file truncated and restored by another thread while the tools read it:
// a reader that touched a mapping past the new end of file would die of
// SIGBUS. pteshare reads the flatbuffer with pread (pte_file.h), so every
// run ends with a status: 0/1 when it read a whole snapshot, 2 with one
// line when the file was short.
TEST(BadInputCorpus, FileShrinkingWhileBeingReadIsNotACrash) {
  synth::LlmConfig config;
  config.layers = 24;  // a flatbuffer of a few hundred KiB: reading it takes a while
  config.heads = 2;
  config.head_dim = 8;
  config.max_seq = 16;
  Result<synth::ProgramSpec> spec = synth::SynthesizeLlm(config);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  Result<std::vector<uint8_t>> built = synth::BuildProgram(*spec);
  ASSERT_TRUE(built.ok()) << built.error().message;
  const std::string original(built->begin(), built->end());

  TempDir dir;
  const std::string file = (dir / "shrinking.pte").string();
  test_support::WriteFileBytes(file, original);
  std::atomic<bool> stop{false};
  std::atomic<int> truncations{0};
  std::thread shrinker([&] {
    while (!stop) {
      // Shrink to a page, then put the bytes back.
      if (::truncate(file.c_str(), 4096) == 0) ++truncations;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      test_support::WriteFileBytes(file, original);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  int refused = 0, read = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  for (int run = 0; std::chrono::steady_clock::now() < deadline || run < 12; ++run) {
    const std::vector<std::vector<std::string>> commands = {
        {"inspect", file}, {"verify", file}, {"plan", file, "--share-auto"}};
    const auto& args = commands[run % commands.size()];
    CommandOutput out = RunTool("pteshare", args);
    ExpectCleanRun(args, out, file);
    EXPECT_LE(out.exit_status, 3) << Describe(args, out);  // 3: nothing to share
    (out.exit_status == 2 ? refused : read) += 1;
    CommandOutput self = RunSelfCheck(file);
    EXPECT_LT(self.exit_status, 128) << "pteshare-selfcheck killed by a signal";
  }
  stop = true;
  shrinker.join();
  EXPECT_GT(truncations.load(), 0);
  std::printf("shrinking file: %d runs read a whole snapshot, %d refused a short file\n", read,
              refused);
}

}  // namespace
}  // namespace pteshare
