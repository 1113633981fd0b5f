// The synthetic LLM has what pteshare exists for: prefill and decode share
// named KV caches that the exporter-like planner placed differently in the
// two methods. Also covers the CNN and the pte-synth command line.
#include "tools/synth/synth_llm.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "rewriter/program/pte_layout.h"
#include "tests/test_support.h"
#include "tools/synth/program_builder.h"
#include "tools/synth/pte_reader.h"
#include "tools/synth/synth_cnn.h"

namespace pteshare::synth {
namespace {

struct Slot {
  uint32_t memory_id = 0;
  uint64_t offset = 0;
  bool operator==(const Slot&) const = default;
};

/// The caches named, as an exporter asked to emit mutable buffer names
/// writes them (the default leaves them unnamed).
LlmConfig Named() {
  LlmConfig config;
  config.named = true;
  return config;
}

std::vector<uint8_t> BuildLlm(const LlmConfig& config) {
  Result<ProgramSpec> spec = SynthesizeLlm(config);
  if (!spec.ok()) throw std::runtime_error(spec.error().message);
  Result<std::vector<uint8_t>> bytes = BuildProgram(*spec);
  if (!bytes.ok()) throw std::runtime_error(bytes.error().message);
  return std::move(*bytes);
}

const fb::Program& Read(const std::vector<uint8_t>& bytes) {
  Result<const fb::Program*> program = VerifiedProgram(bytes);
  if (!program.ok()) throw std::runtime_error(program.error().message);
  return **program;
}
/// The tables point into the bytes: keep them alive.
const fb::Program& Read(std::vector<uint8_t>&&) = delete;

/// Placement of every named tensor of method `index`, read from the file.
std::map<std::string, Slot> NamedSlots(const fb::Program& program, size_t index) {
  std::map<std::string, Slot> slots;
  for (const fb::EValue* value : *program.execution_plan()->Get(index)->values()) {
    const fb::Tensor* tensor = value->val_as_Tensor();
    if (tensor == nullptr || tensor->extra_tensor_info() == nullptr) continue;
    const fb::AllocationDetails* info = tensor->allocation_info();
    if (info == nullptr) throw std::runtime_error("named tensor without allocation_info");
    slots[tensor->extra_tensor_info()->fully_qualified_name()->str()] =
        Slot{info->memory_id(), PlacementOffset(*info)};
  }
  return slots;
}

/// How many caches sit at a different place in prefill than in decode.
int CachesThatMoved(const fb::Program& program) {
  std::map<std::string, Slot> prefill = NamedSlots(program, 0), decode = NamedSlots(program, 1);
  int moved = 0;
  for (const auto& [name, slot] : prefill) moved += decode.at(name) == slot ? 0 : 1;
  return moved;
}

TEST(SynthLlm, DefaultProgramLeavesItsCachesUnnamedAsTheExporterDoes) {
  std::vector<uint8_t> bytes = BuildLlm({});
  EXPECT_TRUE(NamedSlots(Read(bytes), 0).empty());
  EXPECT_TRUE(NamedSlots(Read(bytes), 1).empty());
}

TEST(SynthLlm, NamedProgramHasPrefillAndDecodeSharingNamedCaches) {
  std::vector<uint8_t> bytes = BuildLlm(Named());
  const fb::Program& program = Read(bytes);
  ASSERT_EQ(program.execution_plan()->size(), 10u);  // and the 8 constant methods
  EXPECT_EQ(program.execution_plan()->Get(0)->name()->str(), "prefill");
  EXPECT_EQ(program.execution_plan()->Get(1)->name()->str(), "decode");
  std::map<std::string, Slot> prefill = NamedSlots(program, 0), decode = NamedSlots(program, 1);
  ASSERT_EQ(prefill.size(), 4u);
  for (const std::string& name : {KCacheName(0), VCacheName(0), KCacheName(1), VCacheName(1)}) {
    ASSERT_TRUE(prefill.count(name)) << name;
    ASSERT_TRUE(decode.count(name)) << name;
    EXPECT_EQ(prefill[name].memory_id, 1u);
  }
  // Zero initial state, stored once for all caches.
  ASSERT_EQ(program.mutable_data_segments()->size(), 1u);
  EXPECT_EQ(program.mutable_data_segments()->Get(0)->offsets()->size(), 2u);
}

// As LLM exporters emit them (docs/exporter-facts.md, 4): after the model's
// methods, one per metadata entry, its value the only one and the output,
// one chain with no inputs, outputs or instructions, no operator, and
// non_const_buffer_sizes [0]: nothing planned, no device table.
TEST(SynthLlm, ConstantMethodsAreTheExportersMetadataGetters) {
  LlmConfig config;
  config.layers = 3;
  config.max_seq = 64;
  config.vocab = 100;
  std::vector<uint8_t> bytes = BuildLlm(config);
  const fb::Program& program = Read(bytes);
  const std::vector<std::pair<std::string, int64_t>> expected = {{"get_bos_id", 1},
                                                                 {"get_eos_ids", 2},
                                                                 {"get_max_seq_len", 64},
                                                                 {"get_n_layers", 3},
                                                                 {"get_vocab_size", 100},
                                                                 {"use_kv_cache", 1},
                                                                 {"use_sdpa_with_kv_cache", 0},
                                                                 {"enable_dynamic_shape", 0}};
  ASSERT_EQ(program.execution_plan()->size(), 2 + expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const fb::ExecutionPlan* plan = program.execution_plan()->Get(2 + i);
    SCOPED_TRACE(expected[i].first);
    EXPECT_EQ(plan->name()->str(), expected[i].first);
    ASSERT_EQ(plan->values()->size(), 1u);
    const fb::EValue* value = plan->values()->Get(0);
    if (value->val_type() == fb::KernelTypes::Int) {
      EXPECT_EQ(value->val_as_Int()->int_val(), expected[i].second);
    } else {
      ASSERT_EQ(value->val_type(), fb::KernelTypes::Bool);
      EXPECT_EQ(value->val_as_Bool()->bool_val(), expected[i].second != 0);
    }
    EXPECT_EQ(plan->inputs()->size(), 0u);
    ASSERT_EQ(plan->outputs()->size(), 1u);
    EXPECT_EQ(plan->outputs()->Get(0), 0);
    ASSERT_EQ(plan->chains()->size(), 1u);
    EXPECT_EQ(plan->chains()->Get(0)->instructions()->size(), 0u);
    EXPECT_EQ(plan->chains()->Get(0)->outputs()->size(), 0u);
    EXPECT_EQ(plan->operators()->size(), 0u);
    ASSERT_EQ(plan->non_const_buffer_sizes()->size(), 1u);
    EXPECT_EQ(plan->non_const_buffer_sizes()->Get(0), 0);
    EXPECT_EQ(plan->non_const_buffer_device(), nullptr);
    EXPECT_EQ(plan->container_meta_type()->encoded_out_str()->str(),
              expected[i].first == "get_eos_ids" ? "L1#1($)" : "$");
  }
  config.const_methods = false;
  const std::vector<uint8_t> without = BuildLlm(config);
  EXPECT_EQ(Read(without).execution_plan()->size(), 2u);
}

TEST(SynthLlm, ExporterPlanPutsCachesAtDifferentOffsetsInPrefillAndDecode) {
  std::vector<uint8_t> bytes = BuildLlm(Named());
  const fb::Program& program = Read(bytes);
  EXPECT_EQ(CachesThatMoved(program), 4);
}

TEST(SynthLlm, TheUpdatedCacheSharesTheCachePlacementAndSize) {
  Result<ProgramSpec> spec = SynthesizeLlm({});
  ASSERT_TRUE(spec.ok());
  Result<BuiltPte> built = BuildPte(*spec);
  ASSERT_TRUE(built.ok());
  for (size_t m = 0; m < 2; ++m) {  // prefill and decode; the rest are constant methods
    const MethodSpec& method = spec->methods[m];
    const auto& placements = built->layout.placements[m].by_value;
    int aliases = 0;
    for (size_t v = 0; v < method.values.size(); ++v) {
      const auto* tensor = std::get_if<Tensor>(&method.values[v]);
      if (tensor == nullptr || !std::holds_alternative<AliasOf>(tensor->memory)) continue;
      ValueIndex cache = std::get<AliasOf>(tensor->memory).base;
      EXPECT_EQ(*placements[v], *placements[cache]) << method.name << " value " << v;
      ++aliases;
    }
    EXPECT_EQ(aliases, 2 * 2) << "index_put's out, per cache, per layer";
  }
}

TEST(SynthLlm, DeviceArenaPutsCachesInArena2OnCudaAndStillMovesThem) {
  LlmConfig config = Named();
  config.device_arena = true;
  std::vector<uint8_t> bytes = BuildLlm(config);
  const fb::Program& program = Read(bytes);
  for (size_t m = 0; m < 2; ++m) {
    const fb::ExecutionPlan& plan = *program.execution_plan()->Get(m);
    for (const auto& [name, slot] : NamedSlots(program, m)) EXPECT_EQ(slot.memory_id, 2u) << name;
    ASSERT_EQ(plan.non_const_buffer_sizes()->size(), 3u);
    EXPECT_GT(plan.non_const_buffer_sizes()->Get(1), 0);
    ASSERT_EQ(plan.non_const_buffer_device()->size(), 1u);
    EXPECT_EQ(plan.non_const_buffer_device()->Get(0)->buffer_idx(), 2);
    EXPECT_EQ(plan.non_const_buffer_device()->Get(0)->device_type(), fb::DeviceType::CUDA);
  }
  EXPECT_EQ(CachesThatMoved(program), 4);
}

TEST(SynthLlm, LegacySharedPutsEveryCacheInArena2AtIdenticalOffsets) {
  LlmConfig config = Named();
  config.legacy_shared = true;
  std::vector<uint8_t> bytes = BuildLlm(config);
  const fb::Program& program = Read(bytes);
  EXPECT_EQ(CachesThatMoved(program), 0);
  std::map<std::string, Slot> prefill = NamedSlots(program, 0);
  uint64_t cache_bytes = 4 * 128 * 64;
  // Sorted by name: layers.0.k, layers.0.v, layers.1.k, layers.1.v.
  EXPECT_EQ(prefill[KCacheName(0)], (Slot{2, 0}));
  EXPECT_EQ(prefill[VCacheName(0)], (Slot{2, cache_bytes}));
  EXPECT_EQ(prefill[KCacheName(1)], (Slot{2, 2 * cache_bytes}));
  for (size_t m = 0; m < 2; ++m) {
    EXPECT_EQ(program.execution_plan()->Get(m)->non_const_buffer_sizes()->Get(2),
              static_cast<int64_t>(4 * cache_bytes));
  }
}

TEST(SynthLlm, UnnamedCachesKeepTheirInitialStateButNoName) {
  LlmConfig config;
  config.named = false;
  std::vector<uint8_t> bytes = BuildLlm(config);
  const fb::Program& program = Read(bytes);
  EXPECT_TRUE(NamedSlots(program, 0).empty());
  int mutable_tensors = 0;
  for (const fb::EValue* value : *program.execution_plan()->Get(1)->values()) {
    const fb::Tensor* tensor = value->val_as_Tensor();
    if (tensor && tensor->allocation_info() && tensor->data_buffer_idx() > 0) ++mutable_tensors;
  }
  EXPECT_EQ(mutable_tensors, 4);
}

TEST(SynthLlm, SameSeedGivesSameBytesAndAnotherSeedOtherWeights) {
  LlmConfig config;
  config.seed = 7;
  std::vector<uint8_t> first = BuildLlm(config), second = BuildLlm(config);
  EXPECT_EQ(first, second);
  config.seed = 8;
  std::vector<uint8_t> other = BuildLlm(config);
  ASSERT_EQ(other.size(), first.size());  // same graph
  EXPECT_NE(other, first);
}

// How long this takes is BM_SynthesizeLlm's (tests/bench/replan_bench.cc).
TEST(SynthLlm, ThirtyTwoLayersGiveThousandsOfValues) {
  LlmConfig config = Named();
  config.layers = 32;
  std::vector<uint8_t> bytes = BuildLlm(config);
  const fb::Program& program = Read(bytes);
  size_t values = 0;
  for (const fb::ExecutionPlan* plan : *program.execution_plan()) values += plan->values()->size();
  EXPECT_GT(values, 2000u);
  EXPECT_EQ(CachesThatMoved(program), 64);
}

TEST(SynthLlm, BadSettingIsAnErrorNamingIt) {
  LlmConfig config;
  config.prefill_len = 128;
  Result<ProgramSpec> spec = SynthesizeLlm(config);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message,
            "prefill-len 128 must be < max-seq 128 (decode needs a free cache row)");
}

TEST(SynthCnn, OneStatelessMethodWithListArguments) {
  Result<ProgramSpec> spec = SynthesizeCnn({});
  ASSERT_TRUE(spec.ok());
  Result<std::vector<uint8_t>> bytes = BuildProgram(*spec);
  ASSERT_TRUE(bytes.ok());
  const fb::Program& program = Read(*bytes);
  ASSERT_EQ(program.execution_plan()->size(), 1u);
  EXPECT_EQ(program.mutable_data_segments(), nullptr);
  int tensor_lists = 0, int_lists = 0;
  for (const fb::EValue* value : *program.execution_plan()->Get(0)->values()) {
    tensor_lists += value->val_type() == fb::KernelTypes::TensorList;
    int_lists += value->val_type() == fb::KernelTypes::IntList;
  }
  EXPECT_EQ(tensor_lists, 1);
  EXPECT_GE(int_lists, 3);
}

// ---- pte-synth, run as a user would -------------------------------------

TEST(PteSynthCli, WritesTheSameBytesAsTheLibrary) {
  test_support::TempDir dir;
  test_support::CommandOutput run =
      test_support::RunTool("pte-synth", {"llm", "--seed", "3", "-o", (dir / "x.pte").string()});
  ASSERT_EQ(run.exit_status, 0) << run.err;
  LlmConfig config;
  config.seed = 3;
  std::vector<uint8_t> expected = BuildLlm(config);
  EXPECT_EQ(test_support::ReadFileBytes(dir / "x.pte"),
            std::string(expected.begin(), expected.end()));
}

TEST(PteSynthCli, CnnWithSizeOptionWritesAVerifiedFile) {
  test_support::TempDir dir;
  test_support::CommandOutput run = test_support::RunTool(
      "pte-synth", {"cnn", "--layers", "2", "--size", "8x12", "-o", (dir / "c.pte").string()});
  ASSERT_EQ(run.exit_status, 0) << run.err;
  std::string text = test_support::ReadFileBytes(dir / "c.pte");
  std::vector<uint8_t> bytes(text.begin(), text.end());
  const fb::Program& program = Read(bytes);
  const fb::Tensor* image = program.execution_plan()->Get(0)->values()->Get(0)->val_as_Tensor();
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(image->sizes()->Get(2), 8);
  EXPECT_EQ(image->sizes()->Get(3), 12);
}

TEST(PteSynthCli, BadUsageIsOneLineOnStderrAndExit2) {
  test_support::TempDir dir;
  for (std::vector<std::string> args :
       {std::vector<std::string>{},
        {"llm"},
        {"llm", "--layers", "0", "-o", "x.pte"},
        {"cnn", "--size", "3y4", "-o", (dir / "x.pte").string()},
        {"llm", "--bogus"},
        {"llm", "--segment-alignment", "100", "-o", (dir / "x.pte").string()}}) {
    test_support::CommandOutput run = test_support::RunTool("pte-synth", args);
    EXPECT_EQ(run.exit_status, 2) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_EQ(run.err.rfind("pte-synth: ", 0), 0u) << run.err;
  }
}

// Like the exporter, the flatbuffer is padded only to the next multiple of
// 128 before the segments; --segment-alignment asks for more.
TEST(PteSynthCli, PaddingIsTheExportersUnlessMoreIsAskedFor) {
  test_support::TempDir dir;
  for (const auto& [alignment, args] : {std::pair<uint64_t, std::vector<std::string>>{128, {}},
                                        {4096, {"--segment-alignment", "4096"}}}) {
    std::vector<std::string> all = {"llm", "-o", (dir / "x.pte").string()};
    all.insert(all.end(), args.begin(), args.end());
    test_support::CommandOutput run = test_support::RunTool("pte-synth", all);
    ASSERT_EQ(run.exit_status, 0) << run.err;
    std::string text = test_support::ReadFileBytes(dir / "x.pte");
    Result<pteshare::ExtendedHeader> header = pteshare::ReadExtendedHeader(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    ASSERT_TRUE(header.ok() && header->present);
    EXPECT_EQ(header->segment_base_offset % alignment, 0u);
    EXPECT_LT(header->segment_base_offset - header->program_size, alignment) << "padding only";
  }
}

TEST(PteSynthCli, HelpExplainsTheSubcommandsAndExits0) {
  test_support::CommandOutput run = test_support::RunTool("pte-synth", {"--help"});
  EXPECT_EQ(run.exit_status, 0);
  EXPECT_NE(run.out.find("llm"), std::string::npos);
  EXPECT_NE(run.out.find("cnn"), std::string::npos);
}

}  // namespace
}  // namespace pteshare::synth
