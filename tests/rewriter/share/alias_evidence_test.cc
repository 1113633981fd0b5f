// Alias by evidence, end to end on exporter-like files (unnamed state,
// padding as the builder lays it out): pairing unnamed caches, and tensors
// planted inside a shared buffer, which pteshare plan refuses and both
// checkers (pteshare verify, the loader-side self-check) report.
#include "rewriter/share/alias_evidence.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "rewriter/open_program.h"
#include "rewriter/program/program_tables.h"
#include "tests/test_support.h"
#include "wire.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

fs::path Synth(const TempDir& dir, const std::string& name, std::vector<std::string> extra = {}) {
  fs::path path = dir / name;
  std::vector<std::string> args = {"llm", "--layers", "2", "-o", path.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  EXPECT_EQ(RunTool("pte-synth", args).exit_status, 0);
  return path;
}

// pte-synth's LLM rewritten with --share-auto: a good file to plant into.
fs::path SharedLlm(const TempDir& dir, std::vector<std::string> extra = {}) {
  const fs::path good = dir / "good.pte";
  CommandOutput out =
      RunTool("pteshare", {"rewrite", Synth(dir, "llm.pte", std::move(extra)).string(),
                           "--share-auto", "-o", good.string()});
  EXPECT_EQ(out.exit_status, 0) << out.err;
  return good;
}

// Where a tensor's memory_offset_low is stored in the file.
uint64_t OffsetFieldAt(const OpenedProgram& opened, const MethodView& method,
                       const TensorValue& t) {
  const fb::Tensor& tensor = TensorTable(ProgramTable(opened.file.bytes()), method, t);
  const auto* table = reinterpret_cast<const flatbuffers::Table*>(tensor.allocation_info());
  const uint8_t* field = table->GetAddressOf(fb::AllocationDetails::VT_MEMORY_OFFSET_LOW);
  EXPECT_NE(field, nullptr) << "value " << t.value_index << " stores no offset";
  return static_cast<uint64_t>(field - opened.file.bytes().data());
}

// The first unnamed mutable buffer (the first k cache) of `method`.
const TensorValue& FirstCache(const MethodView& method) {
  for (const TensorValue& t : method.tensors) {
    if (t.has_initial_state) return t;
  }
  throw std::logic_error("no cache");
}

/// Copies `in` to `out`, moving value `pick(method)` of method `method_name`
/// to `cache offset + 4096` of that method's first cache.
template <typename Pick>
void Plant(const fs::path& in, const fs::path& out, const std::string& method_name, Pick pick) {
  Result<OpenedProgram> opened = OpenProgram(in);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  const MethodView& method = *opened->view.method(method_name);
  const TensorValue& victim = pick(method);
  const TensorValue& cache = FirstCache(method);
  ASSERT_EQ(victim.placement.memory_id, cache.placement.memory_id);
  ASSERT_LE(4096 + victim.nbytes, cache.nbytes);
  std::string bytes = ReadFileBytes(in);
  wire::StoreU32(reinterpret_cast<uint8_t*>(bytes.data()) + OffsetFieldAt(*opened, method, victim),
                 static_cast<uint32_t>(cache.placement.offset + 4096));
  WriteFileBytes(out, bytes);
}

// A [1,64] float that a kernel writes from other activations (decode's
// attention output and the like): scratch, not an alias.
const TensorValue& Scratch(const MethodView& method) {
  for (const TensorValue& t : method.tensors) {
    if (t.planned && !t.has_initial_state && t.nbytes == 256 && t.stored.offset_low &&
        t.Shape() == "FLOAT[1,64]") {
      return t;
    }
  }
  throw std::logic_error("no [1,64] scratch with a stored offset");
}

TEST(AliasEvidence, UnnamedLlmIsPairedRewrittenAndConfirmedByBothCheckers) {
  TempDir dir;
  const fs::path in = Synth(dir, "llm.pte");
  const fs::path out = dir / "shared.pte";
  // Before: the checkers pair the unnamed caches and see them apart.
  CommandOutput before = RunTool("pteshare", {"verify", in.string()});
  EXPECT_EQ(before.exit_status, 1) << before.out << before.err;
  EXPECT_TRUE(Contains(before.out, "4 shared buffers")) << before.out;
  EXPECT_TRUE(Contains(before.out, "paired_state.000")) << before.out;
  EXPECT_TRUE(Contains(before.out, "(position 0 of the unnamed state; no name in the program)"))
      << before.out;

  CommandOutput rewrite = RunTool("pteshare", {"rewrite", in.string(), "--share-auto", "-o", out});
  ASSERT_EQ(rewrite.exit_status, 0) << rewrite.err;
  EXPECT_TRUE(Contains(rewrite.out, "4 shared buffers front-packed")) << rewrite.out;
  EXPECT_TRUE(Contains(rewrite.out, "prefill:34 <-> decode:34  FLOAT[128,4,16]  arena 1"))
      << rewrite.out;
  EXPECT_TRUE(Contains(rewrite.out, "memory to allocate")) << rewrite.out;
  EXPECT_TRUE(Contains(rewrite.out, "warning: 4 shared buffer(s)")) << rewrite.out;

  CommandOutput verify = RunTool("pteshare", {"verify", out.string()});
  EXPECT_EQ(verify.exit_status, 0) << verify.out << verify.err;
  EXPECT_TRUE(Contains(verify.out, "ok: 4 shared buffers across 10 methods")) << verify.out;
  CommandOutput self = RunTool("pteshare-selfcheck", {out.string()});
  EXPECT_EQ(self.exit_status, 0) << self.out << self.err;
}

TEST(AliasEvidence, ScratchPlantedInsideADecodeCacheIsAnIntruderEverywhere) {
  TempDir dir;
  const fs::path good = SharedLlm(dir);
  const fs::path bad = dir / "bad.pte";
  Plant(good, bad, "decode", Scratch);
  CommandOutput verify = RunTool("pteshare", {"verify", bad.string()});
  EXPECT_EQ(verify.exit_status, 1) << verify.out;
  EXPECT_TRUE(Contains(verify.out, "lies inside shared buffer paired_state.000")) << verify.out;
  EXPECT_TRUE(Contains(verify.out, "which references neither the buffer nor an alias of it"))
      << verify.out;
  CommandOutput self = RunTool("pteshare-selfcheck", {bad.string()});
  EXPECT_NE(self.exit_status, 0) << self.out;
  EXPECT_TRUE(Contains(self.out + self.err, "lies inside shared buffer")) << self.out << self.err;
  // The planner refuses to take such a file as input.
  CommandOutput plan = RunTool("pteshare", {"plan", bad.string(), "--share-auto"});
  EXPECT_EQ(plan.exit_status, 2) << plan.out;
  EXPECT_TRUE(Contains(plan.err, "FLOAT[1,64]")) << plan.err;
  EXPECT_TRUE(Contains(plan.err, "would overwrite the shared state")) << plan.err;
}

TEST(AliasEvidence, MethodInputPlantedInsideACacheIsAnIntruder) {
  TempDir dir;
  const fs::path good = SharedLlm(dir);
  const fs::path bad = dir / "bad.pte";
  Plant(good, bad, "decode", [](const MethodView& m) -> const TensorValue& {
    const int32_t input = m.inputs.at(0);  // tokens
    return *m.tensor(static_cast<uint32_t>(input));
  });
  CommandOutput verify = RunTool("pteshare", {"verify", bad.string()});
  EXPECT_EQ(verify.exit_status, 1) << verify.out;
  EXPECT_TRUE(Contains(verify.out, "is a method input, which the caller writes")) << verify.out;
  CommandOutput plan = RunTool("pteshare", {"plan", bad.string(), "--share-auto"});
  EXPECT_EQ(plan.exit_status, 2);
  EXPECT_TRUE(Contains(plan.err, "is a method input")) << plan.err;
}

TEST(AliasEvidence, DeviceActivationAtTheStartOfTheDeviceFrontIsAnIntruder) {
  TempDir dir;
  const fs::path good = SharedLlm(dir, {"--device-arena"});
  Result<OpenedProgram> opened = OpenProgram(good);
  ASSERT_TRUE(opened.ok());
  const MethodView& decode = *opened->view.method("decode");
  uint64_t front_end = 0;  // the caches sit at the front of arena 2
  for (const TensorValue& t : decode.tensors) {
    if (t.has_initial_state) front_end = std::max(front_end, t.placement.end());
  }
  const TensorValue* activation = nullptr;
  for (const TensorValue& t : decode.tensors) {
    if (t.planned && t.placement.memory_id == 2 && !t.has_initial_state && t.stored.offset_low &&
        t.placement.offset >= front_end && activation == nullptr) {
      activation = &t;
    }
  }
  ASSERT_NE(activation, nullptr);
  std::string bytes = ReadFileBytes(good);
  wire::StoreU32(
      reinterpret_cast<uint8_t*>(bytes.data()) + OffsetFieldAt(*opened, decode, *activation), 0);
  const fs::path bad = dir / "bad.pte";
  WriteFileBytes(bad, bytes);
  CommandOutput verify = RunTool("pteshare", {"verify", bad.string()});
  EXPECT_EQ(verify.exit_status, 1) << verify.out;
  EXPECT_TRUE(Contains(verify.out, "unproven") || Contains(verify.out, "lies inside shared"))
      << verify.out;
  EXPECT_NE(RunTool("pteshare-selfcheck", {bad.string()}).exit_status, 0);
}

TEST(AliasEvidence, TheCacheUpdateIsAnAliasTheProgramShows) {
  TempDir dir;
  const fs::path in = Synth(dir, "llm.pte");
  Result<OpenedProgram> opened = OpenProgram(in);
  ASSERT_TRUE(opened.ok());
  const MethodView& decode = *opened->view.method("decode");
  const TensorValue& cache = FirstCache(decode);
  const SharedAliases aliases = FindSharedAliases(decode, {{0, cache.value_index}});
  EXPECT_TRUE(aliases.intruders.empty());
  // index_put's out (the cache updated in place) sits on the cache.
  size_t accepted = 0;
  for (const TensorValue& t : decode.tensors) {
    if (t.value_index != cache.value_index && aliases.buffer_of[t.value_index] == 0) ++accepted;
  }
  EXPECT_EQ(accepted, 1u);
}

TEST(AliasEvidence, UnpairableStateIsRefusedNamingTheMismatchAndTheNameForm) {
  TempDir dir;
  const fs::path in = Synth(dir, "llm.pte");
  // Make decode's first cache a different shape: its sizes no longer agree.
  Result<OpenedProgram> opened = OpenProgram(in);
  ASSERT_TRUE(opened.ok());
  const MethodView& decode = *opened->view.method("decode");
  const TensorValue& cache = FirstCache(decode);
  const uint8_t* sizes = reinterpret_cast<const uint8_t*>(
      TensorTable(ProgramTable(opened->file.bytes()), decode, cache).sizes()->Data());
  std::string bytes = ReadFileBytes(in);
  const uint64_t at = static_cast<uint64_t>(sizes - opened->file.bytes().data());
  wire::StoreU32(reinterpret_cast<uint8_t*>(bytes.data()) + at, 64);  // [64, 4, 16]: half of it
  const fs::path bad = dir / "bad.pte";
  WriteFileBytes(bad, bytes);
  CommandOutput plan = RunTool("pteshare", {"plan", bad.string(), "--share-auto"});
  EXPECT_EQ(plan.exit_status, 2);
  EXPECT_TRUE(Contains(plan.err, "cannot pair the unnamed state of methods prefill and decode"))
      << plan.err;
  EXPECT_TRUE(Contains(plan.err, "--name prefill:34=NAME --name decode:34=NAME")) << plan.err;
  EXPECT_EQ(std::count(plan.err.begin(), plan.err.end(), '\n'), 1) << plan.err;
}

}  // namespace
}  // namespace pteshare
