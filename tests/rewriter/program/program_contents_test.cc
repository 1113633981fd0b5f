// ReadProgramContents (program_contents.h): operators counted by full name,
// inline delegates and their calls, external tensors by key, what each
// segment holds, on programs pte-synth builds; what a table names but the
// program lacks, on a program built table by table; then every corpus
// program (counts that add up, backends named, the two readers agreeing)
// and the promise that no segment byte is read.
#include "rewriter/program/program_contents.h"

#include <gtest/gtest.h>

#include <numeric>

#include "rewriter/open_program.h"
#include "tests/bundle_fixtures.h"
#include "tests/program_fixture.h"
#include "tests/test_support.h"
#include "tools/synth/operators.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare {
namespace {

using synth::MethodSpec;
using synth::Tensor;
using synth::ValueIndex;
namespace ops = synth::ops;

/// Reads `bytes` (a whole program) and its contents.
struct Read {
  std::unique_ptr<test_support::LoadedProgram> program;
  ProgramContents contents;
};

Read ReadBytes(std::vector<uint8_t> bytes) {
  Read read{test_support::Load(std::move(bytes)), {}};
  if (!read.program) return read;
  const fb::Program* program = nullptr;
  EXPECT_TRUE(ReadPteLayout(read.program->bytes, &program).ok());
  read.contents = ReadProgramContents(*program, read.program->view);
  return read;
}

Read ReadSpec(const synth::ProgramSpec& spec, const synth::BuildOptions& options = {}) {
  Result<std::vector<uint8_t>> bytes = synth::BuildProgram(spec, options);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  if (!bytes.ok()) return {};
  return ReadBytes(std::move(bytes).value());
}

uint64_t CallsOf(const MethodContents& m) {
  return std::accumulate(m.operators.begin(), m.operators.end(), m.calls_without_operator,
                         [](uint64_t sum, const OperatorUse& op) { return sum + op.calls; });
}

std::vector<std::string> Names(const MethodContents& m) {
  std::vector<std::string> names;
  for (const OperatorUse& op : m.operators) names.push_back(op.FullName());
  return names;
}

TEST(ProgramContents, CountsOperatorsByFullNameMostCalledFirst) {
  synth::ProgramSpec spec;
  MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  ValueIndex a = synth::AddActivation(m, {4, 4}), b = synth::AddActivation(m, {4, 4});
  ValueIndex c = synth::AddActivation(m, {4, 4}), d = synth::AddActivation(m, {4, 4});
  synth::CallOut(m, ops::kMm, {a, b}, c);
  synth::CallOut(m, ops::kRelu, {c}, d);
  synth::CallOut(m, ops::kMm, {d, b}, c);
  synth::CallOut(m, ops::kLocalScalarDense, {c}, d);  // overload "": no dot
  synth::CallOut(m, ops::kAdd, {c, d}, a);
  m.inputs = {a, b};
  m.outputs = {a};
  Read read = ReadSpec(spec);
  ASSERT_TRUE(read.program);
  const MethodContents& contents = read.contents.methods.at(0);
  EXPECT_EQ(contents.kernel_calls, 5u);
  EXPECT_EQ(CallsOf(contents), contents.kernel_calls);
  EXPECT_EQ(contents.calls_without_operator, 0u);
  EXPECT_EQ(contents.delegate_calls, 0u);
  // Ties in name order.
  EXPECT_EQ(Names(contents), (std::vector<std::string>{"aten::mm.out", "aten::_local_scalar_dense",
                                                       "aten::add.out", "aten::relu.out"}));
  EXPECT_EQ(contents.operators[0].calls, 2u);
  EXPECT_EQ(contents.operators[1].name, "aten::_local_scalar_dense");
  EXPECT_EQ(contents.operators[1].overload, "");
}

TEST(ProgramContents, ReadsInlineDelegatesAndCountsTheirCalls) {
  synth::ProgramSpec spec;
  for (const char* name : {"prefill", "decode"}) {
    MethodSpec& m = spec.methods.emplace_back();
    m.name = name;
    ValueIndex in = synth::AddActivation(m, {8}), out = synth::AddActivation(m, {8});
    m.delegates.push_back(synth::Delegate{
        "XnnpackBackend", std::vector<uint8_t>(100, 7), {{"threads", {4}}, {"cache", {}}}});
    m.delegates.push_back(synth::Delegate{"QnnBackend", {1, 2, 3}, {}});
    m.Emit(synth::DelegateCall{0, {in, out}});
    m.Emit(synth::DelegateCall{0, {out, in}});
    m.inputs = {in};
    m.outputs = {in};
  }
  Read read = ReadSpec(spec);
  ASSERT_TRUE(read.program);
  for (size_t method = 0; method < 2; ++method) {
    SCOPED_TRACE(method);
    const MethodContents& contents = read.contents.methods.at(method);
    EXPECT_EQ(contents.delegate_calls, 2u);
    EXPECT_EQ(contents.kernel_calls, 0u);
    ASSERT_EQ(contents.delegates.size(), 2u);
    const DelegateInfo& xnnpack = contents.delegates[0];
    EXPECT_EQ(xnnpack.index, 0u);
    EXPECT_EQ(xnnpack.backend, "XnnpackBackend");
    EXPECT_EQ(xnnpack.location, BlobLocation::kInline);
    // backend_delegate_data is the program's: the second method's blobs
    // follow the first's.
    EXPECT_EQ(xnnpack.location_index, 2 * method);
    EXPECT_EQ(xnnpack.blob_size, std::optional<uint64_t>(100));
    EXPECT_EQ(xnnpack.compile_spec_keys, (std::vector<std::string>{"threads", "cache"}));
    EXPECT_EQ(xnnpack.calls, 2u);
    const DelegateInfo& qnn = contents.delegates[1];
    EXPECT_EQ(qnn.backend, "QnnBackend");
    EXPECT_EQ(qnn.location_index, 2 * method + 1);
    EXPECT_EQ(qnn.blob_size, std::optional<uint64_t>(3));
    EXPECT_TRUE(qnn.compile_spec_keys.empty());
    EXPECT_EQ(qnn.calls, 0u);
  }
  // Inline blobs live in the flatbuffer: no segment holds them.
  for (const auto& uses : read.contents.segment_uses) {
    for (const SegmentUse& use : uses) EXPECT_NE(use.role, SegmentRole::kDelegateBlob);
  }
}

TEST(ProgramContents, ExternalTensorsAreKeyedByTheirNames) {
  synth::ProgramSpec spec;
  auto external = [](std::vector<int32_t> sizes, std::string key, synth::TensorMemory memory) {
    return Tensor{.sizes = std::move(sizes),
                  .fully_qualified_name = std::move(key),
                  .external = true,
                  .memory = memory};
  };
  MethodSpec& forward = spec.methods.emplace_back();
  forward.name = "forward";
  ValueIndex weight = forward.Add(external({4, 4}, "linear.weight", synth::NotPlanned{}));
  ValueIndex bias = forward.Add(external({4}, "linear.bias", synth::NotPlanned{}));
  ValueIndex x = synth::AddActivation(forward, {1, 4}), y = synth::AddActivation(forward, {1, 4});
  synth::CallOut(forward, ops::kLinear, {x, weight, bias}, y);
  forward.inputs = {x};
  forward.outputs = {y};
  MethodSpec& train = spec.methods.emplace_back();
  train.name = "train";
  ValueIndex again = train.Add(external({4, 4}, "linear.weight", synth::NotPlanned{}));
  ValueIndex state = train.Add(external({2}, "optimizer.step", synth::PlanInArena{1}));
  ValueIndex z = synth::AddActivation(train, {4, 4});
  synth::CallOut(train, ops::kAdd, {again, state}, z);
  train.inputs = {z};
  train.outputs = {z};

  Read read = ReadSpec(spec);
  ASSERT_TRUE(read.program);
  const std::vector<ExternalTensor>& in_forward = read.contents.methods[0].external_tensors;
  ASSERT_EQ(in_forward.size(), 2u);
  EXPECT_EQ(in_forward[0].value_index, static_cast<uint32_t>(weight));
  EXPECT_EQ(in_forward[0].key, "linear.weight");
  EXPECT_EQ(in_forward[0].nbytes, 64u);
  EXPECT_FALSE(in_forward[0].planned);
  EXPECT_EQ(in_forward[1].key, "linear.bias");
  const std::vector<ExternalTensor>& in_train = read.contents.methods[1].external_tensors;
  ASSERT_EQ(in_train.size(), 2u);
  EXPECT_TRUE(in_train[1].planned);  // loaded into planned memory at load
  EXPECT_TRUE(read.program->view.methods[1].tensor(state)->is_mutable_buffer());

  const std::vector<ExternalKey>& keys = read.contents.external_keys;
  ASSERT_EQ(keys.size(), 3u);  // linear.weight once, for both methods
  EXPECT_EQ(keys[0].key, "linear.weight");
  EXPECT_EQ(keys[0].methods, (std::vector<std::string>{"forward", "train"}));
  EXPECT_FALSE(keys[0].planned);
  EXPECT_EQ(keys[1].key, "linear.bias");
  EXPECT_EQ(keys[2].key, "optimizer.step");
  EXPECT_EQ(keys[2].methods, (std::vector<std::string>{"train"}));
  EXPECT_TRUE(keys[2].planned);
  EXPECT_EQ(read.contents.external_bytes(), 64u + 16u + 8u);
}

TEST(ProgramContents, SaysWhatEachSegmentHolds) {
  synth::ProgramSpec spec;
  MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  ValueIndex w1 = synth::AddConstant(m, {2}, synth::RandomFloatBytes(1, 0, 2, 1));
  ValueIndex w2 = synth::AddConstant(m, {2}, synth::RandomFloatBytes(1, 1, 2, 1));
  ValueIndex cache = m.Add(Tensor{.sizes = {2}, .initial_state = std::vector<uint8_t>(8, 0)});
  ValueIndex out = synth::AddActivation(m, {2});
  synth::CallOut(m, ops::kAdd, {w1, w2}, out);
  synth::CallOut(m, ops::kAdd, {out, cache}, cache);
  m.outputs = {out};
  synth::BuildOptions options;
  options.trailing_segment_bytes = 64;  // listed, named by no table
  Read read = ReadSpec(spec, options);
  ASSERT_TRUE(read.program);
  const auto& uses = read.contents.segment_uses;
  ASSERT_EQ(uses.size(), 3u);
  ASSERT_EQ(uses[0].size(), 1u);
  EXPECT_EQ(uses[0][0].role, SegmentRole::kConstantData);
  EXPECT_EQ(uses[0][0].buffers(), 2u);  // entry 0 is the placeholder
  ASSERT_EQ(uses[1].size(), 1u);
  EXPECT_EQ(uses[1][0].role, SegmentRole::kMutableData);
  EXPECT_EQ(uses[1][0].index, 0u);
  EXPECT_EQ(uses[1][0].segment_index, 1u);
  EXPECT_EQ(uses[1][0].buffers(), 1u);
  EXPECT_TRUE(uses[2].empty());
  EXPECT_TRUE(read.contents.dangling_segment_uses.empty());
  EXPECT_TRUE(read.contents.named_data.empty());
  EXPECT_EQ(read.contents.inline_constant_bytes, 0u);
}

// A program no exporter writes, table by table: two table entries with one
// name, a KernelCall and a DelegateCall naming nothing, delegates whose
// blobs are missing, named data and initial state in segments it lacks.
std::vector<uint8_t> ProgramNamingWhatItLacks() {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Operator>> operators{
      fb::CreateOperatorDirect(fbb, "aten::mm", "out"),
      fb::CreateOperatorDirect(fbb, "aten::mm", "out")};
  std::vector<flatbuffers::Offset<fb::Instruction>> instructions;
  for (int32_t op : {0, 1, 7}) {
    instructions.push_back(fb::CreateInstruction(fbb, fb::InstructionArguments::KernelCall,
                                                 fb::CreateKernelCall(fbb, op).Union()));
  }
  instructions.push_back(fb::CreateInstruction(fbb, fb::InstructionArguments::DelegateCall,
                                               fb::CreateDelegateCall(fbb, 9).Union()));
  std::vector<flatbuffers::Offset<fb::Chain>> chains{
      fb::CreateChainDirect(fbb, nullptr, nullptr, &instructions)};
  std::vector<flatbuffers::Offset<fb::BackendDelegate>> delegates{
      fb::CreateBackendDelegateDirect(
          fbb, "XnnpackBackend",
          fb::CreateBackendDelegateDataReference(fbb, fb::DataLocation::SEGMENT, 5)),
      fb::CreateBackendDelegateDirect(
          fbb, "EthosUBackend",
          fb::CreateBackendDelegateDataReference(fbb, fb::DataLocation::INLINE, 3)),
      fb::CreateBackendDelegateDirect(fbb, nullptr)};
  std::vector<int64_t> arenas{0};
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans{fb::CreateExecutionPlanDirect(
      fbb, "forward", 0, nullptr, nullptr, nullptr, &chains, &operators, &delegates, &arenas)};
  std::vector<flatbuffers::Offset<fb::DataSegment>> segments{fb::CreateDataSegment(fbb, 0, 0)};
  std::vector<uint64_t> no_offsets, state_offsets{0, 16};
  std::vector<flatbuffers::Offset<fb::SubsegmentOffsets>> mutables{
      fb::CreateSubsegmentOffsetsDirect(fbb, 3, &state_offsets)};
  std::vector<flatbuffers::Offset<fb::NamedData>> named{fb::CreateNamedDataDirect(fbb, "w", 0),
                                                        fb::CreateNamedDataDirect(fbb, "gone", 4)};
  fb::FinishProgramBuffer(
      fbb, fb::CreateProgramDirect(fbb, 0, &plans, nullptr, nullptr, &segments,
                                   fb::CreateSubsegmentOffsetsDirect(fbb, 0, &no_offsets),
                                   &mutables, &named));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

TEST(ProgramContents, RecordsWhatTheTablesNameButTheProgramLacks) {
  Read read = ReadBytes(ProgramNamingWhatItLacks());
  ASSERT_TRUE(read.program);
  const MethodContents& m = read.contents.methods.at(0);
  EXPECT_EQ(m.kernel_calls, 3u);
  EXPECT_EQ(m.calls_without_operator, 1u);  // op_index 7
  ASSERT_EQ(m.operators.size(), 1u);        // both table entries: one kernel
  EXPECT_EQ(m.operators[0].calls, 2u);
  EXPECT_EQ(CallsOf(m), m.kernel_calls);
  EXPECT_EQ(m.delegate_calls, 1u);  // delegate_index 9: counted, no delegate called
  ASSERT_EQ(m.delegates.size(), 3u);
  for (const DelegateInfo& d : m.delegates) EXPECT_EQ(d.calls, 0u);
  EXPECT_EQ(m.delegates[0].location, BlobLocation::kSegment);
  EXPECT_EQ(m.delegates[0].location_index, 5u);
  EXPECT_EQ(m.delegates[0].blob_size, std::nullopt);
  EXPECT_EQ(m.delegates[1].location, BlobLocation::kInline);
  EXPECT_EQ(m.delegates[1].blob_size, std::nullopt);
  EXPECT_EQ(m.delegates[2].backend, "");
  EXPECT_EQ(m.delegates[2].location, BlobLocation::kUnknown);

  const ProgramContents& c = read.contents;
  ASSERT_EQ(c.segment_uses.size(), 1u);
  ASSERT_EQ(c.segment_uses[0].size(), 2u);
  EXPECT_EQ(c.segment_uses[0][0].role, SegmentRole::kConstantData);
  EXPECT_EQ(c.segment_uses[0][1].role, SegmentRole::kNamedData);
  EXPECT_EQ(c.segment_uses[0][1].label, "w");
  ASSERT_EQ(c.named_data.size(), 2u);
  EXPECT_EQ(c.named_data[0].size, std::optional<uint64_t>(0));
  EXPECT_EQ(c.named_data[1].size, std::nullopt);
  // In table order: initial state, the delegate's blob, the named data.
  ASSERT_EQ(c.dangling_segment_uses.size(), 3u);
  EXPECT_EQ(c.dangling_segment_uses[0].role, SegmentRole::kMutableData);
  EXPECT_EQ(c.dangling_segment_uses[0].segment_index, 3u);
  EXPECT_EQ(c.dangling_segment_uses[1].role, SegmentRole::kDelegateBlob);
  EXPECT_EQ(c.dangling_segment_uses[1].segment_index, 5u);
  EXPECT_EQ(c.dangling_segment_uses[1].method, "forward");
  EXPECT_EQ(c.dangling_segment_uses[2].label, "gone");
}

// The constant_segment the exporter writes into files without segments
// ({segment_index 0, offsets []}) names nothing the loader would read.
TEST(ProgramContents, AnEmptyConstantTableNamesNoSegment) {
  synth::ProgramSpec spec;
  MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  ValueIndex a = synth::AddActivation(m, {2}), b = synth::AddActivation(m, {2});
  synth::CallOut(m, ops::kRelu, {a}, b);
  synth::BuildOptions legacy;
  legacy.extended_header = false;
  Read read = ReadSpec(spec, legacy);
  ASSERT_TRUE(read.program);
  EXPECT_TRUE(read.contents.segment_uses.empty());
  EXPECT_TRUE(read.contents.dangling_segment_uses.empty());
}

TEST(ProgramContents, EveryCorpusProgramAddsUpAndNamesItsBackends) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  size_t programs = 0, with_delegates = 0, with_external = 0;
  for (const auto& path : test_support::CorpusFiles()) {
    Result<OpenedProgram> opened = OpenProgram(path);
    if (!opened.ok()) continue;  // refusals: program_view_test.cc
    SCOPED_TRACE(path.filename().string());
    ++programs;
    const ProgramView& view = opened->view;
    const ProgramContents contents = ReadProgramContents(*opened->file.program(), view);
    ASSERT_EQ(contents.methods.size(), view.methods.size());
    ASSERT_EQ(contents.segment_uses.size(), view.layout.segments.size());
    EXPECT_TRUE(contents.dangling_segment_uses.empty());
    bool delegated = false;
    for (size_t i = 0; i < view.methods.size(); ++i) {
      const MethodView& method = view.methods[i];
      const MethodContents& m = contents.methods[i];
      // The instruction walk (instruction_effects_reader.cc) counts the
      // same KernelCalls and DelegateCalls.
      uint64_t kernels = 0, delegate_calls = 0;
      for (const InstructionEffect& e : method.effects.instructions) {
        kernels += e.kind == InstructionKind::kKernel;
        delegate_calls += e.kind == InstructionKind::kDelegate;
      }
      EXPECT_EQ(m.kernel_calls, kernels) << method.name;
      EXPECT_EQ(CallsOf(m), m.kernel_calls) << method.name;
      EXPECT_EQ(m.calls_without_operator, 0u) << method.name;
      for (const OperatorUse& op : m.operators) EXPECT_FALSE(op.name.empty()) << method.name;
      EXPECT_EQ(m.delegate_calls, delegate_calls) << method.name;
      ASSERT_EQ(m.delegates.size(), method.delegate_ids.size()) << method.name;
      uint64_t calls_of_delegates = 0;
      for (const DelegateInfo& d : m.delegates) {
        delegated = true;
        ASSERT_TRUE(method.delegate_ids[d.index]) << method.name;
        EXPECT_EQ(d.backend, *method.delegate_ids[d.index]) << method.name;
        EXPECT_FALSE(d.backend.empty()) << method.name;
        EXPECT_NE(d.location, BlobLocation::kUnknown) << method.name;
        EXPECT_TRUE(d.blob_size.has_value()) << method.name;
        calls_of_delegates += d.calls;
        if (d.location != BlobLocation::kSegment) continue;
        // Its segment says whose blob it holds.
        const auto& uses = contents.segment_uses.at(d.location_index);
        EXPECT_TRUE(std::any_of(uses.begin(), uses.end(), [&](const SegmentUse& use) {
          return use.role == SegmentRole::kDelegateBlob && use.method == method.name &&
                 use.index == d.index;
        })) << method.name;
      }
      EXPECT_EQ(calls_of_delegates, m.delegate_calls) << method.name;
    }
    with_delegates += delegated;
    with_external += !contents.external_keys.empty();
  }
  EXPECT_EQ(programs,
            test_support::CorpusManifestTotals().programs + test_support::CorpusBundleCount());
  EXPECT_GT(with_delegates, 0u);
  EXPECT_GT(with_external, 0u);
}

// The example: linear.pte keeps its weights in a .ptd.
TEST(ProgramContents, LinearPteNamesTheKeysOfItsDataFile) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  Result<OpenedProgram> opened = OpenProgram(test_support::SharedDir() / "corpus" /
                                             "pytorch__executorch__extension_module_test_"
                                             "resources_linear.pte");
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  const ProgramContents contents = ReadProgramContents(*opened->file.program(), opened->view);
  ASSERT_EQ(contents.external_keys.size(), 2u);
  EXPECT_EQ(contents.external_keys[0].key, "linear.weight");
  EXPECT_EQ(contents.external_keys[1].key, "linear.bias");
  // Its sizes are the tensors' own: product(sizes) x element size.
  for (const ExternalTensor& t : contents.methods[0].external_tensors) {
    EXPECT_EQ(t.nbytes, opened->view.methods[0].tensor(t.value_index)->nbytes);
    EXPECT_FALSE(t.planned);
  }
}

/// Bytes of segments whose size `contents` reports: delegate blobs and
/// named data that live in segments.
uint64_t SegmentBytesReported(const ProgramContents& contents) {
  uint64_t bytes = 0;
  for (const MethodContents& m : contents.methods) {
    for (const DelegateInfo& d : m.delegates) {
      if (d.location == BlobLocation::kSegment) bytes += d.blob_size.value_or(0);
    }
  }
  for (const NamedDataEntry& entry : contents.named_data) bytes += entry.size.value_or(0);
  return bytes;
}

TEST(ProgramContents, ReadsNoSegmentByte) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  // The program whose contents report the most segment bytes, whatever the
  // corpus holds (a bundle is read whole on purpose: not that one).
  std::filesystem::path largest;
  uint64_t most = 0;
  for (const auto& path : test_support::CorpusFiles()) {
    Result<OpenedProgram> opened = OpenProgram(path);
    if (!opened.ok() || opened->file.bundle()) continue;
    const uint64_t reported =
        SegmentBytesReported(ReadProgramContents(*opened->file.program(), opened->view));
    if (reported > most) {
      most = reported;
      largest = path;
    }
  }
  ASSERT_GT(most, uint64_t{1} << 20) << "no corpus program with a MiB of blobs in segments";
  SCOPED_TRACE(largest.filename().string());
  const uint64_t before_open = test_support::BytesReadSoFar();
  Result<OpenedProgram> opened = OpenProgram(largest);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  const uint64_t before_contents = test_support::BytesReadSoFar();
  const ProgramContents contents = ReadProgramContents(*opened->file.program(), opened->view);
  const uint64_t after = test_support::BytesReadSoFar();
  // The contents come from memory (a read of /proc/self/io aside); the open
  // read the flatbuffer and at most a page past it: the sizes reported are
  // the segment table's, not bytes counted.
  EXPECT_LT(after - before_contents, 1024u);
  const uint64_t read = after - before_open;
  EXPECT_LT(read, opened->view.layout.program_size + 4096 + 2048);
  EXPECT_EQ(SegmentBytesReported(contents), most);
  EXPECT_GT(most, read);
}

}  // namespace
}  // namespace pteshare
