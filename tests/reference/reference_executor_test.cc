// The reference executor on tiny hand-made programs with results worked out
// by hand: each operator it needs, state that persists between runs and
// across methods sharing an arena, loops, moves, and the loader's checks.
// If these hold, a difference in the differential test is the rewrite's.
#include "tests/reference/reference_executor.h"

#include <gtest/gtest.h>

#include <cstring>

#include "tools/synth/operators.h"
#include "tools/synth/program_builder.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare::reference {
namespace {

namespace b = pteshare::synth;
namespace ops = pteshare::synth::ops;

std::vector<uint8_t> Floats(std::vector<float> values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<float> AsFloats(const std::vector<uint8_t>& bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

std::shared_ptr<const ReferenceProgram> Read(const b::ProgramSpec& spec) {
  Result<std::vector<uint8_t>> bytes = b::BuildProgram(spec);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  if (!bytes.ok()) return nullptr;
  Result<std::shared_ptr<const ReferenceProgram>> program = ReferenceProgram::Read(*bytes);
  EXPECT_TRUE(program.ok()) << program.error().message;
  return program.ok() ? *program : nullptr;
}

/// Loads `method` on its own arenas, runs it once with `inputs` and returns
/// its first output as floats.
struct SingleRun {
  std::shared_ptr<const ReferenceProgram> program;
  std::unique_ptr<ArenaSet> arenas;
  std::optional<LoadedMethod> method;

  explicit SingleRun(const b::ProgramSpec& spec, const std::string& name = "forward")
      : program(Read(spec)) {
    if (!program) return;
    arenas = std::make_unique<ArenaSet>(program->ArenaSizes(name));
    Result<LoadedMethod> loaded = LoadedMethod::Load(program, name, *arenas);
    EXPECT_TRUE(loaded.ok()) << loaded.error().message;
    if (loaded.ok()) method.emplace(std::move(loaded).value());
  }

  std::vector<float> Run(const std::vector<std::vector<float>>& inputs, size_t output = 0) {
    if (!method) return {};
    for (size_t i = 0; i < inputs.size(); ++i) {
      Status s = method->SetInput(i, Floats(inputs[i]));
      EXPECT_TRUE(s.ok()) << s.error().message;
    }
    Status s = method->Execute();
    EXPECT_TRUE(s.ok()) << s.error().message;
    Result<std::vector<uint8_t>> out = method->Output(output);
    EXPECT_TRUE(out.ok()) << out.error().message;
    return out.ok() ? AsFloats(*out) : std::vector<float>{};
  }
};

TEST(ReferenceExecutor, AddsAnInputToAConstant) {
  b::ProgramSpec spec;
  b::MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  b::ValueIndex x = b::AddActivation(m, {4});
  b::ValueIndex w = b::AddConstant(m, {4}, Floats({1, 2, 3, 4}));
  b::ValueIndex y = b::AddActivation(m, {4});
  b::CallAdd(m, x, w, y);
  m.inputs = {x};
  m.outputs = {y};
  SingleRun run(spec);
  EXPECT_EQ(run.Run({{10, 20, 30, 40}}), (std::vector<float>{11, 22, 33, 44}));
}

TEST(ReferenceExecutor, MultipliesThenClampsNegativesToZero) {
  b::ProgramSpec spec;
  b::MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  b::ValueIndex x = b::AddActivation(m, {3});
  b::ValueIndex y = b::AddActivation(m, {3});
  b::ValueIndex product = b::AddActivation(m, {3});
  b::ValueIndex relu = b::AddActivation(m, {3});
  b::CallOut(m, ops::kMul, {x, y}, product);
  b::CallOut(m, ops::kRelu, {product}, relu);
  m.inputs = {x, y};
  m.outputs = {relu};
  SingleRun run(spec);
  EXPECT_EQ(run.Run({{1, -2, 3}, {4, 5, -6}}), (std::vector<float>{4, 0, 0}));
}

TEST(ReferenceExecutor, LinearSumsRowsAgainstWeightRows) {
  b::ProgramSpec spec;
  b::MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  b::ValueIndex x = b::AddActivation(m, {2, 3});
  // out[n, o] = sum_k x[n, k] * w[o, k]
  b::ValueIndex w = b::AddConstant(m, {2, 3}, Floats({1, 0, -1, 2, 2, 2}));
  b::ValueIndex y = b::AddActivation(m, {2, 2});
  b::CallOut(m, ops::kLinear, {x, w}, y);
  m.inputs = {x};
  m.outputs = {y};
  SingleRun run(spec);
  EXPECT_EQ(run.Run({{1, 2, 3, 4, 5, 6}}), (std::vector<float>{-2, 12, -2, 30}));
}

TEST(ReferenceExecutor, CatViewCopyAndEmbeddingMoveBytesInRowMajorOrder) {
  b::ProgramSpec spec;
  b::MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  b::ValueIndex a = b::AddActivation(m, {1, 2});
  b::ValueIndex c = b::AddActivation(m, {1, 2});
  b::ValueIndex list = m.Add(b::TensorList{{a, c}});
  b::ValueIndex cat = b::AddActivation(m, {1, 4});
  b::CallOut(m, ops::kCat, {list, b::AddInt(m, 1)}, cat);
  b::ValueIndex square = b::AddActivation(m, {2, 2});
  b::CallOut(m, ops::kViewCopy, {cat, b::AddIntList(m, {2, 2})}, square);
  b::ValueIndex table = b::AddConstant(m, {3, 2}, Floats({0, 1, 10, 11, 20, 21}));
  int64_t picks[2] = {2, 0};
  std::vector<uint8_t> pick_bytes(sizeof picks);
  std::memcpy(pick_bytes.data(), picks, sizeof picks);
  b::ValueIndex indices = m.Add(b::Tensor{.scalar_type = b::ScalarType::LONG,
                                          .sizes = {2},
                                          .constant_data = pick_bytes,
                                          .memory = b::NotPlanned{}});
  b::ValueIndex rows = b::AddActivation(m, {2, 2});
  b::CallEmbedding(m, table, indices, rows);
  b::ValueIndex sum = b::AddActivation(m, {2, 2});
  b::CallAdd(m, square, rows, sum);
  m.inputs = {a, c};
  m.outputs = {sum};
  SingleRun run(spec);
  EXPECT_EQ(run.Run({{1, 2}, {3, 4}}), (std::vector<float>{21, 23, 3, 5}));
}

/// forward(value [1, 1, 2]): cache[start] = value, in place; start = 1.
b::ProgramSpec CacheUpdateSpec(int64_t start) {
  b::ProgramSpec spec;
  b::MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  b::ValueIndex value = b::AddActivation(m, {1, 1, 2});
  b::Tensor cache;
  cache.sizes = {3, 1, 2};
  cache.fully_qualified_name = "cache";
  cache.initial_state = Floats({1, 1, 1, 1, 1, 1});
  b::ValueIndex state = m.Add(cache);
  b::ValueIndex updated = b::AddAlias(m, state, {3, 1, 2});
  b::ValueIndex pos = b::AddInt(m, start);
  m.Call(ops::kUpdateCache, {value, state, pos, updated, updated});
  m.inputs = {value};
  m.outputs = {updated};
  return spec;
}

TEST(ReferenceExecutor, UpdateCacheWritesOneRowOverTheInitialStateAndItPersists) {
  SingleRun run(CacheUpdateSpec(1));
  EXPECT_EQ(run.Run({{7, 8}}), (std::vector<float>{1, 1, 7, 8, 1, 1}));
  // The state survives the run: a second run writes the same row again.
  EXPECT_EQ(run.Run({{9, 9}}), (std::vector<float>{1, 1, 9, 9, 1, 1}));
}

TEST(ReferenceExecutor, UpdateCachePastTheEndIsAnError) {
  SingleRun run(CacheUpdateSpec(3));
  ASSERT_TRUE(run.method.has_value());
  ASSERT_TRUE(run.method->SetInput(0, Floats({1, 2})).ok());
  Status s = run.method->Execute();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("start_pos 3 + 1 > cache rows 3"), std::string::npos)
      << s.error().message;
}

TEST(ReferenceExecutor, LoopRunsUntilTheDelegateSetsItsFlag) {
  // acc = x; do { acc = acc + acc; delegate(counter++, done = counter >= 3) }
  // while (!done): three doublings.
  b::ProgramSpec spec;
  b::MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  b::ValueIndex x = b::AddActivation(m, {2});
  b::ValueIndex acc = b::AddActivation(m, {2});
  b::ValueIndex doubled = b::AddAlias(m, acc, {2});
  b::ValueIndex counter = b::AddInt(m, 0);
  b::ValueIndex done = b::AddBool(m, false);
  m.delegates.push_back(b::Delegate{"stand-in", {3}, {}});
  b::CallOut(m, ops::kRelu, {x}, acc);          // 0
  b::CallAdd(m, acc, acc, doubled);             // 1
  m.Emit(b::DelegateCall{0, {counter, done}});  // 2
  m.Emit(b::JumpFalseCall{done, 1});            // 3
  m.inputs = {x};
  m.outputs = {doubled};
  SingleRun run(spec);
  EXPECT_EQ(run.Run({{1, 5}}), (std::vector<float>{8, 40}));
}

TEST(ReferenceExecutor, MoveMakesTheDestinationReferToTheSourceMemory) {
  b::ProgramSpec spec;
  b::MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  b::ValueIndex x = b::AddActivation(m, {2});
  b::ValueIndex from = b::AddActivation(m, {2});
  b::ValueIndex to = b::AddAlias(m, from, {2});
  b::ValueIndex out = b::AddActivation(m, {2});
  b::CallOut(m, ops::kRelu, {x}, from);
  m.Emit(b::MoveCall{from, to});
  m.Emit(b::FreeCall{x});
  b::CallAdd(m, to, to, out);
  m.inputs = {x};
  m.outputs = {out, to};
  SingleRun run(spec);
  EXPECT_EQ(run.Run({{-1, 3}}), (std::vector<float>{0, 6}));
  EXPECT_EQ(run.Run({{-1, 3}}, 1), (std::vector<float>{0, 3}));
}

/// Two methods that both hold buffer "state" at offset 0 of arena 1: one
/// writes it, the other reads it.
b::ProgramSpec WriterAndReader() {
  b::ProgramSpec spec;
  for (const char* name : {"write", "read"}) {
    b::MethodSpec& m = spec.methods.emplace_back();
    m.name = name;
    b::Tensor buffer;
    buffer.sizes = {2};
    buffer.fully_qualified_name = "state";
    buffer.memory = b::FixedPlacement{1, 0};
    b::ValueIndex state = m.Add(buffer);
    b::ValueIndex x = m.Add(b::Tensor{.sizes = {2}, .memory = b::FixedPlacement{1, 16}});
    b::ValueIndex y = m.Add(b::Tensor{.sizes = {2}, .memory = b::FixedPlacement{1, 32}});
    if (std::string(name) == "write") {
      b::ValueIndex written = b::AddAlias(m, state, {2});
      b::CallOut(m, ops::kRelu, {x}, written);
      m.outputs = {written};
    } else {
      b::CallAdd(m, state, x, y);
      m.outputs = {y};
    }
    m.inputs = {x};
  }
  return spec;
}

TEST(ReferenceExecutor, MethodsBoundToOneArenaSetSeeEachOthersState) {
  auto program = Read(WriterAndReader());
  ASSERT_TRUE(program);
  ArenaSet shared(LargestArenaSizes({program->ArenaSizes("write"), program->ArenaSizes("read")}));
  Result<LoadedMethod> write = LoadedMethod::Load(program, "write", shared);
  Result<LoadedMethod> read = LoadedMethod::Load(program, "read", shared);
  ASSERT_TRUE(write.ok() && read.ok());
  ASSERT_TRUE(write->SetInput(0, Floats({5, -5})).ok());
  ASSERT_TRUE(write->Execute().ok());
  ASSERT_TRUE(read->SetInput(0, Floats({1, 1})).ok());
  ASSERT_TRUE(read->Execute().ok());
  EXPECT_EQ(AsFloats(*read->Output(0)), (std::vector<float>{6, 1}));
  EXPECT_EQ(write->TensorAddress(0), read->TensorAddress(0));
}

TEST(ReferenceExecutor, LoadingAMethodCopiesItsInitialStateOverSharedMemoryAgain) {
  b::ProgramSpec spec = WriterAndReader();
  std::get<b::Tensor>(spec.methods[1].values[0]).initial_state = Floats({100, 200});
  auto program = Read(spec);
  ASSERT_TRUE(program);
  ArenaSet shared(LargestArenaSizes({program->ArenaSizes("write"), program->ArenaSizes("read")}));
  Result<LoadedMethod> write = LoadedMethod::Load(program, "write", shared);
  ASSERT_TRUE(write.ok());
  ASSERT_TRUE(write->SetInput(0, Floats({5, 5})).ok());
  ASSERT_TRUE(write->Execute().ok());
  EXPECT_EQ(AsFloats(*write->TensorBytes(0)), (std::vector<float>{5, 5}));
  Result<LoadedMethod> read = LoadedMethod::Load(program, "read", shared);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->HasInitialState(0));
  EXPECT_EQ(AsFloats(*write->TensorBytes(0)), (std::vector<float>{100, 200}));
}

TEST(ReferenceExecutor, LoaderRefusesABoundArenaSmallerThanTheMethodNeeds) {
  auto program = Read(WriterAndReader());
  ASSERT_TRUE(program);
  ArenaSet small({16});
  Result<LoadedMethod> loaded = LoadedMethod::Load(program, "read", small);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("arena 1 needs 40 bytes, the bound buffer has 16"),
            std::string::npos)
      << loaded.error().message;
}

TEST(ReferenceExecutor, PlacementOverridesMoveATensorAndItsArena) {
  auto program = Read(WriterAndReader());
  ASSERT_TRUE(program);
  PlacementOverrides moved;
  moved.arena_sizes = {64};
  moved.placements[2] = Placement{1, 48, 8};  // y from 32 to 48
  ArenaSet arenas(program->ArenaSizes("read", &moved));
  Result<LoadedMethod> read = LoadedMethod::Load(program, "read", arenas, &moved);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->TensorAddress(2), arenas.arena(1).data() + 48);
  PlacementOverrides outside = moved;
  outside.placements[2] = Placement{1, 60, 8};
  EXPECT_FALSE(LoadedMethod::Load(program, "read", arenas, &outside).ok());
}

TEST(ReferenceExecutor, UnknownOperatorIsRefusedAtLoad) {
  b::ProgramSpec spec;
  b::MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  b::ValueIndex x = b::AddActivation(m, {2});
  b::CallOut(m, b::OperatorName{"aten::tanh", "out"}, {x}, x);
  auto program = Read(spec);
  ASSERT_TRUE(program);
  ArenaSet arenas(program->ArenaSizes("forward"));
  Result<LoadedMethod> loaded = LoadedMethod::Load(program, "forward", arenas);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("no kernel for aten::tanh.out"), std::string::npos);
}

}  // namespace
}  // namespace pteshare::reference
