// `pteshare inspect` as a user runs it: output, --json and exit statuses.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/bundle_fixtures.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using test_support::Contains;
using test_support::RunTool;
using test_support::SharedDir;

TEST(InspectCommand, PrintsLayoutAndMethods) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  std::string path = (SharedDir() / "corpus" / "berndporr__dnf_executorch__dnf__v0c78226.pte");
  test_support::CommandOutput out = RunTool("pteshare", {"inspect", path});
  EXPECT_EQ(out.exit_status, 0) << out.err;
  EXPECT_EQ(out.err, "");
  EXPECT_NE(out.out.find("ET12 program, 4 methods"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("flatbuffer  5,824 bytes (extended header: 32 bytes)"), std::string::npos);
  EXPECT_NE(out.out.find("slack       64 bytes"), std::string::npos);
  EXPECT_NE(out.out.find("method forward: 17 instructions, 52 values, 21 planned tensors"),
            std::string::npos);
  EXPECT_NE(out.out.find("arena 1  CPU      1,296 bytes"), std::string::npos);
  EXPECT_NE(out.out.find("21 allocation tables lack a field"), std::string::npos);
}

TEST(InspectCommand, JsonHasTheDocumentedShape) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  std::string path = (SharedDir() / "corpus" / "pytorch__executorch__add.pte");
  test_support::CommandOutput out = RunTool("pteshare", {"inspect", "--json", path});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  for (const char* key :
       {"\"file_size\": 1072", "\"extended_header\": null", "\"program_size\": 1072",
        "\"slack\": 0", "\"name\": \"forward\"", "\"planned_tensors\": 3",
        "\"tables_missing_fields\": 3", "\"memory_id\": 1", "\"size\": 48", "\"device\": \"CPU\"",
        "\"mutable_buffers\": []"}) {
    EXPECT_NE(out.out.find(key), std::string::npos) << key << "\n" << out.out;
  }
}

std::string CorpusFile(const std::string& name) { return (SharedDir() / "corpus" / name).string(); }

// The example: linear.pte keeps its weights in a .ptd.
TEST(InspectCommand, NamesTheOperatorsAndTheKeysOfTheDataFile) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  test_support::CommandOutput out = RunTool(
      "pteshare", {"inspect", CorpusFile("pytorch__executorch__extension_module_test_resources_"
                                         "linear.pte")});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out,
                       "\n  external data: 2 tensors (48 bytes) by key from a .ptd data file "
                       "given at load (ExecuTorch: Module(model_path, data_path)); keys: "
                       "linear.weight, linear.bias\n"))
      << out.out;
  EXPECT_TRUE(Contains(out.out,
                       "\n  operators (2 kinds, 2 calls): aten::addmm.out x1, "
                       "aten::permute_copy.out x1\n"))
      << out.out;
  // Its one segment is empty: the exporter's constant table names it.
  EXPECT_TRUE(Contains(out.out, "#0  file offset 0, 0 bytes: constant data (0 buffers)\n"));

  test_support::CommandOutput json = RunTool(
      "pteshare", {"inspect", "--json",
                   CorpusFile("pytorch__executorch__extension_module_test_resources_linear.pte")});
  ASSERT_EQ(json.exit_status, 0) << json.err;
  for (const char* part :
       {"\"external_data\": {\n    \"tensors\": 2,\n    \"bytes\": 48,",
        "\"key\": \"linear.weight\",\n        \"nbytes\": 36,\n        \"planned\": false,",
        "\"kernel_calls\": 2,",
        "\"name\": \"aten::addmm.out\",\n          \"operator\": "
        "\"aten::addmm\",\n          \"overload\": \"out\",",
        "\"kind\": \"constant_data\"", "\"delegates\": []"}) {
    EXPECT_TRUE(Contains(json.out, part)) << part << "\n" << json.out;
  }
}

TEST(InspectCommand, ShowsDelegatesAndWhatEachSegmentHolds) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  const std::string path =
      CorpusFile("balthazarneveu__executorch_smoothly__xnnpack_simpleconv.pte");
  test_support::CommandOutput out = RunTool("pteshare", {"inspect", path});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  for (const char* line :
       {"    #1  file offset 1,024, 2,496 bytes: blob of method forward's delegate #0 "
        "(XnnpackBackend)\n",
        "method forward: 1 instruction, 2 values, 2 planned tensors\n"
        "  operators: none\n"
        "  delegates (1, 1 call):\n"
        "    #0 XnnpackBackend: segment #1, 2,496 bytes, 0 compile specs, 1 call\n"}) {
    EXPECT_TRUE(Contains(out.out, line)) << line << "\n" << out.out;
  }
  test_support::CommandOutput json = RunTool("pteshare", {"inspect", "--json", path});
  ASSERT_EQ(json.exit_status, 0) << json.err;
  for (const char* part :
       {"\"kind\": \"delegate_blob\",\n          \"segment_index\": 1,\n          "
        "\"method\": \"forward\",\n          \"delegate\": 0,\n          \"backend\": "
        "\"XnnpackBackend\"",
        "\"delegate_calls\": 1,", "\"location\": \"segment\",", "\"location_index\": 1,",
        "\"blob_size\": 2496,", "\"compile_specs\": 0,"}) {
    EXPECT_TRUE(Contains(json.out, part)) << part << "\n" << json.out;
  }
}

TEST(InspectCommand, InlineBlobsCompileSpecsAndNamedData) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  test_support::CommandOutput ethos = RunTool(
      "pteshare", {"inspect", CorpusFile("Arm-Examples__CMSIS-Executorch__ai_layer_engine_model_"
                                         "ethos_u_minimal_example__v0ff7865.pte")});
  ASSERT_EQ(ethos.exit_status, 0) << ethos.err;
  EXPECT_TRUE(Contains(ethos.out,
                       "    #0 EthosUBackend: inline backend_delegate_data[0], 1,312 "
                       "bytes, 4 compile specs, 1 call\n"))
      << ethos.out;
  test_support::CommandOutput named = RunTool(
      "pteshare",
      {"inspect", CorpusFile("corey-cole__executorch-numpy-runtime__tests_models_quantized.pte")});
  ASSERT_EQ(named.exit_status, 0) << named.err;
  EXPECT_TRUE(Contains(named.out,
                       "    #3  file offset 2,560, 32 bytes: named data "
                       "'c789246d4ce12492936dee737bed7cbac88b32df4237708e849a7bc9de1f0"
                       "81d'\n"))
      << named.out;
  EXPECT_TRUE(Contains(named.out,
                       "\n  named data: 2 keys in 2 segments (96 bytes) that backends "
                       "look up by key (the segments above say which)\n"))
      << named.out;
}

// Issue 27: plot said "2 mutable buffers, 64 B" of this program; inspect
// counts by TensorValue::is_mutable_buffer, as every command must.
TEST(InspectCommand, CountsMutableBuffersByTheOneDefinition) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  test_support::CommandOutput out = RunTool(
      "pteshare", {"inspect", CorpusFile("NVIDIA__NVFlare__nvflare_edge_device_android_app_src_"
                                         "test_resources_xor_test_model.pte")});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "\n  mutable buffers (4, 88 bytes):\n")) << out.out;
  // Their initial states are the mutable data segment's 4 buffers.
  EXPECT_TRUE(Contains(out.out,
                       "#1  file offset 13,824, 88 bytes: initial state of mutable "
                       "buffers (mutable_data_segments[0], 4 buffers)\n"))
      << out.out;
}

// Every KernelCall of the synthetic LLM's prefill is counted once under its
// operator, in the text and in the JSON.
TEST(InspectCommand, OperatorCountsAddUpToTheKernelCalls) {
  test_support::TempDir dir;
  const std::string llm = test_support::SynthLlm(dir.path(), "llm.pte");
  test_support::CommandOutput json = RunTool("pteshare", {"inspect", "--json", llm});
  ASSERT_EQ(json.exit_status, 0) << json.err;
  // The first method (prefill): its instruction count, its KernelCalls and
  // the sum of its operators' calls (the operators come before the next
  // method's "name").
  auto number_after = [&](const std::string& key, size_t from) {
    const size_t at = json.out.find("\"" + key + "\": ", from);
    EXPECT_NE(at, std::string::npos) << key;
    return std::stoull(json.out.substr(at + key.size() + 4));
  };
  const size_t prefill = json.out.find("\"name\": \"prefill\"");
  ASSERT_NE(prefill, std::string::npos);
  const uint64_t instructions = number_after("instructions", prefill);
  const uint64_t kernel_calls = number_after("kernel_calls", prefill);
  const size_t operators = json.out.find("\"operators\": [", prefill);
  const size_t operators_end = json.out.find("\"delegates\": [", operators);
  uint64_t summed = 0, kinds = 0;
  for (size_t at = json.out.find("\"calls\": ", operators); at < operators_end;
       at = json.out.find("\"calls\": ", at + 1)) {
    summed += std::stoull(json.out.substr(at + 9));
    ++kinds;
  }
  EXPECT_EQ(kernel_calls, instructions);  // the LLM has only KernelCalls
  EXPECT_EQ(summed, kernel_calls);

  // The text says the same counts, and lists the first ten kinds.
  ASSERT_GT(kinds, 10u);
  ASSERT_LT(kernel_calls, 1000u);  // no thousands separator to write here
  test_support::CommandOutput text = RunTool("pteshare", {"inspect", llm});
  ASSERT_EQ(text.exit_status, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "  operators (" + std::to_string(kinds) + " kinds, " +
                                     std::to_string(kernel_calls) + " calls): "))
      << text.out;
  EXPECT_TRUE(
      Contains(text.out, ", and " + std::to_string(kinds - 10) + " more (--json lists all)\n"))
      << text.out;
}

TEST(InspectCommand, WorksOnEveryCorpusFile) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  size_t ok = 0, refused = 0;
  for (const auto& path : test_support::CorpusFiles()) {
    test_support::CommandOutput out = RunTool("pteshare", {"inspect", path.string()});
    if (out.exit_status == 0) {
      ++ok;
      continue;
    }
    ++refused;
    // A refusal is exit 2 and exactly one line naming the file.
    EXPECT_EQ(out.exit_status, 2) << path;
    EXPECT_EQ(out.err.find("pteshare: " + path.string() + ": "), 0u) << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  }
  // Programs and bundled programs are read; the ET02 file, ZIP archives and
  // placeholders are refused.
  const test_support::ManifestTotals totals = test_support::CorpusManifestTotals();
  const size_t bundles = test_support::CorpusBundleCount();
  EXPECT_EQ(ok, totals.programs + bundles);
  EXPECT_EQ(refused, totals.not_programs - bundles);
}

TEST(InspectCommand, MissingFileIsExitTwo) {
  test_support::CommandOutput out = RunTool("pteshare", {"inspect", "/nonexistent/model.pte"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err, "pteshare: /nonexistent/model.pte: cannot open: no such file\n");
}

TEST(InspectCommand, UsageErrorIsExitTwo) {
  test_support::CommandOutput out = RunTool("pteshare", {"inspect"});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(out.err,
            "pteshare: inspect needs FILE: type pteshare inspect FILE [options] (pteshare inspect "
            "--help)\n");
}

// F14: a newline in a file name split its error over two lines. Control
// characters in a name are escaped: one error, one line.
TEST(InspectCommand, ControlCharactersInANameStayOnOneLine) {
  test_support::TempDir dir;
  const std::filesystem::path file = dir / "bad\nname\t.pte";
  test_support::WriteFileBytes(file, "not a program at all");
  test_support::CommandOutput out = RunTool("pteshare", {"inspect", file.string()});
  EXPECT_EQ(out.exit_status, 2);
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
  EXPECT_NE(out.err.find("bad\\nname\\t.pte: not a .pte program"), std::string::npos) << out.err;
}

}  // namespace
}  // namespace pteshare
