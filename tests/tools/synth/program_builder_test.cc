// The program builder writes files that verify and read back field for
// field as the spec says, laid out the way ExecuTorch's exporter lays them
// out (header, segments, default omission).
#include "tools/synth/program_builder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <stdexcept>

#include "tests/test_support.h"
#include "tools/synth/operators.h"
#include "tools/synth/pte_reader.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare::synth {
namespace {

using Vt = fb::AllocationDetails;

std::vector<uint8_t> FloatBytes(std::initializer_list<float> values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

/// forward(x [4]) -> y: y = x + w (constant) with a named state buffer.
struct SmallProgram {
  ProgramSpec spec;
  ValueIndex x = 0, w = 0, state = 0, y = 0;

  SmallProgram() {
    MethodSpec& m = spec.methods.emplace_back();
    m.name = "forward";
    x = AddActivation(m, {4});
    w = AddConstant(m, {4}, FloatBytes({1, 2, 3, 4}));
    Tensor buffer;
    buffer.sizes = {2};
    buffer.fully_qualified_name = "state.counter";
    buffer.initial_state = FloatBytes({7, 8});
    state = m.Add(buffer);
    y = AddActivation(m, {4});
    CallOut(m, ops::kAdd, {x, w}, y);
    m.inputs = {x};
    m.outputs = {y};
  }
};

std::vector<uint8_t> MustBuild(const ProgramSpec& spec, const BuildOptions& options = {}) {
  Result<std::vector<uint8_t>> bytes = BuildProgram(spec, options);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().message);
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

/// The verified root table; a file that does not verify fails the test
/// (gtest reports the exception with its message).
const fb::Program& MustRead(const std::vector<uint8_t>& bytes) {
  Result<const fb::Program*> program = VerifiedProgram(bytes);
  if (!program.ok()) throw std::runtime_error(program.error().message);
  return **program;
}
/// The tables point into the bytes: keep them alive.
const fb::Program& MustRead(std::vector<uint8_t>&&) = delete;

const fb::Tensor& TensorAt(const fb::ExecutionPlan& plan, ValueIndex index) {
  return *plan.values()->Get(index)->val_as_Tensor();
}

TEST(ProgramBuilder, SmallProgramVerifiesAndReadsBackFieldForField) {
  SmallProgram small;
  std::vector<uint8_t> bytes = MustBuild(small.spec);
  const fb::Program& program = MustRead(bytes);
  ASSERT_EQ(program.execution_plan()->size(), 1u);
  const fb::ExecutionPlan& plan = *program.execution_plan()->Get(0);
  EXPECT_EQ(plan.name()->str(), "forward");
  EXPECT_EQ(plan.values()->size(), 4u);
  EXPECT_EQ(plan.inputs()->Get(0), small.x);
  EXPECT_EQ(plan.outputs()->Get(0), small.y);
  ASSERT_EQ(plan.operators()->size(), 1u);
  EXPECT_EQ(plan.operators()->Get(0)->name()->str(), "aten::add");
  EXPECT_EQ(plan.operators()->Get(0)->overload()->str(), "out");

  const fb::Chain& chain = *plan.chains()->Get(0);
  ASSERT_EQ(chain.instructions()->size(), 1u);
  const fb::KernelCall* call = chain.instructions()->Get(0)->instr_args_as_KernelCall();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(std::vector<int32_t>(call->args()->begin(), call->args()->end()),
            (std::vector<int32_t>{small.x, small.w, small.y, small.y}));

  const fb::Tensor& x = TensorAt(plan, small.x);
  EXPECT_EQ(x.scalar_type(), fb::ScalarType::FLOAT);
  EXPECT_EQ(x.sizes()->Get(0), 4);
  EXPECT_EQ(x.dim_order()->Get(0), 0);
  ASSERT_NE(x.allocation_info(), nullptr);
  EXPECT_EQ(x.allocation_info()->memory_id(), 1u);
  EXPECT_EQ(x.data_buffer_idx(), 0u);

  // The state buffer lives always, so x and y cannot share its slot; the
  // builder reports what it wrote and the file says the same.
  const MethodPlacements placements = BuildPte(small.spec)->layout.placements[0];
  for (ValueIndex v : {small.x, small.state, small.y}) {
    const fb::AllocationDetails* info = TensorAt(plan, v).allocation_info();
    ASSERT_NE(info, nullptr) << "value " << v;
    EXPECT_EQ(PlacementOffset(*info), placements.by_value[v]->offset) << "value " << v;
  }
  EXPECT_EQ(std::vector<int64_t>(plan.non_const_buffer_sizes()->begin(),
                                 plan.non_const_buffer_sizes()->end()),
            placements.non_const_buffer_sizes);
  EXPECT_EQ(TensorAt(plan, small.state).extra_tensor_info()->fully_qualified_name()->str(),
            "state.counter");
}

TEST(ProgramBuilder, ExtendedHeaderDescribesProgramAndAlignedSegments) {
  SmallProgram small;
  std::vector<uint8_t> bytes = MustBuild(small.spec);
  EXPECT_EQ(std::memcmp(bytes.data() + 4, "ET12", 4), 0);
  std::optional<HeaderFields> header = ReadExtendedHeader(bytes);
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(header->length, 32u);
  EXPECT_EQ(header->segment_base_offset % 128, 0u);
  EXPECT_GE(header->segment_base_offset, header->program_size);
  EXPECT_LT(header->segment_base_offset - header->program_size, 128u);
  EXPECT_EQ(header->segment_base_offset + header->segment_data_size, bytes.size());
  // The root offset skips the header: the root table starts after it.
  uint32_t root = bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24;
  EXPECT_GE(root, 8u + 32u);
  // The slack between the flatbuffer and the segments is zero bytes.
  for (uint64_t i = header->program_size; i < header->segment_base_offset; ++i) {
    ASSERT_EQ(bytes[i], 0) << "byte " << i;
  }

  const fb::Program& program = MustRead(bytes);
  ASSERT_EQ(program.segments()->size(), 2u);  // constants, then mutable data
  for (const fb::DataSegment* segment : *program.segments()) {
    EXPECT_EQ(segment->offset() % 128, 0u);
  }
}

TEST(ProgramBuilder, ConstantLivesInConstantSegmentBehindReservedEntry) {
  SmallProgram small;
  std::vector<uint8_t> bytes = MustBuild(small.spec);
  const fb::Program& program = MustRead(bytes);
  const fb::Tensor& w = TensorAt(*program.execution_plan()->Get(0), small.w);
  EXPECT_EQ(w.allocation_info(), nullptr);
  ASSERT_EQ(w.data_buffer_idx(), 1u);
  const fb::SubsegmentOffsets& constants = *program.constant_segment();
  ASSERT_EQ(constants.offsets()->size(), 2u);
  EXPECT_EQ(constants.offsets()->Get(0), 0u);
  const fb::DataSegment& segment = *program.segments()->Get(constants.segment_index());
  uint64_t at = ReadExtendedHeader(bytes)->segment_base_offset + segment.offset() +
                constants.offsets()->Get(w.data_buffer_idx());
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin() + at, bytes.begin() + at + 16),
            FloatBytes({1, 2, 3, 4}));
}

TEST(ProgramBuilder, InitialStateLivesInMutableDataSegment) {
  SmallProgram small;
  std::vector<uint8_t> bytes = MustBuild(small.spec);
  const fb::Program& program = MustRead(bytes);
  const fb::Tensor& state = TensorAt(*program.execution_plan()->Get(0), small.state);
  ASSERT_NE(state.allocation_info(), nullptr);
  ASSERT_EQ(state.data_buffer_idx(), 1u);
  ASSERT_EQ(program.mutable_data_segments()->size(), 1u);
  const fb::SubsegmentOffsets& states = *program.mutable_data_segments()->Get(0);
  const fb::DataSegment& segment = *program.segments()->Get(states.segment_index());
  uint64_t at =
      ReadExtendedHeader(bytes)->segment_base_offset + segment.offset() + states.offsets()->Get(1);
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin() + at, bytes.begin() + at + 8), FloatBytes({7, 8}));
}

TEST(ProgramBuilder, IdenticalConstantsAreStoredOnce) {
  SmallProgram small;
  small.spec.methods.push_back(small.spec.methods[0]);
  small.spec.methods[1].name = "again";
  std::vector<uint8_t> bytes = MustBuild(small.spec);
  const fb::Program& program = MustRead(bytes);
  EXPECT_EQ(program.constant_segment()->offsets()->size(), 2u);
  EXPECT_EQ(program.mutable_data_segments()->Get(0)->offsets()->size(), 2u);
  EXPECT_EQ(TensorAt(*program.execution_plan()->Get(1), small.w).data_buffer_idx(), 1u);
}

/// A tensor planned at offset 0: the exporter leaves memory_offset_low and
/// memory_offset_high out of the buffer; force_defaults writes them.
TEST(ProgramBuilder, OffsetZeroFieldsAbsentUnlessForceDefaults) {
  SmallProgram small;
  const MethodPlacements placements = BuildPte(small.spec)->layout.placements[0];
  ValueIndex at_zero = -1;
  for (ValueIndex v : {small.x, small.state, small.y}) {
    if (placements.by_value[v]->offset == 0) at_zero = v;
  }
  ASSERT_GE(at_zero, 0);

  for (bool force : {false, true}) {
    BuildOptions options;
    options.force_defaults = force;
    std::vector<uint8_t> bytes = MustBuild(small.spec, options);
    const fb::Program& program = MustRead(bytes);
    const fb::AllocationDetails& info =
        *TensorAt(*program.execution_plan()->Get(0), at_zero).allocation_info();
    EXPECT_EQ(HasField(info, Vt::VT_MEMORY_OFFSET_LOW), force) << "force_defaults " << force;
    EXPECT_EQ(HasField(info, Vt::VT_MEMORY_OFFSET_HIGH), force) << "force_defaults " << force;
    EXPECT_TRUE(HasField(info, Vt::VT_MEMORY_ID));
    EXPECT_EQ(PlacementOffset(info), 0u);
  }
}

TEST(ProgramBuilder, FixedPlacementAbove4GiBSplitsIntoHighAndLowWords) {
  ProgramSpec spec;
  MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  Tensor far;
  far.sizes = {8};
  far.memory = FixedPlacement{1, (uint64_t{5} << 32) + 64};
  ValueIndex v = m.Add(far);
  ValueIndex view = m.Add(Tensor{.sizes = {4}, .memory = AliasOf{v, 16}});
  m.inputs = {v};
  m.outputs = {view};

  std::vector<uint8_t> bytes = MustBuild(spec);
  const fb::ExecutionPlan& plan = *MustRead(bytes).execution_plan()->Get(0);
  const fb::AllocationDetails& info = *TensorAt(plan, v).allocation_info();
  EXPECT_EQ(info.memory_offset_high(), 5u);
  EXPECT_EQ(info.memory_offset_low(), 64u);
  EXPECT_EQ(PlacementOffset(*TensorAt(plan, view).allocation_info()), (uint64_t{5} << 32) + 80);
  // The arena covers the hand-placed tensor.
  EXPECT_EQ(plan.non_const_buffer_sizes()->Get(1), static_cast<int64_t>((uint64_t{5} << 32) + 96));
}

/// MoveCall, a backward JumpFalseCall loop, a DelegateCall, a TensorList
/// and zero-byte tensors all survive the trip through the file.
TEST(ProgramBuilder, ControlFlowDelegatesListsAndZeroByteTensorsReadBack) {
  ProgramSpec spec;
  MethodSpec& m = spec.methods.emplace_back();
  m.name = "loop";
  ValueIndex x = AddActivation(m, {4});
  ValueIndex empty = AddActivation(m, {0, 4});
  ValueIndex acc = AddActivation(m, {4});
  ValueIndex moved = m.Add(Tensor{.sizes = {4}, .memory = AliasOf{acc, 0}});
  ValueIndex list = m.Add(TensorList{{x, empty}});
  ValueIndex cat = AddActivation(m, {4});
  ValueIndex done = AddBool(m, false);
  m.delegates.push_back(Delegate{"XnnpackBackend", {1, 2, 3}, {{"threads", {4}}}});
  CallOut(m, ops::kCat, {list, AddInt(m, 0)}, cat);  // 0
  CallOut(m, ops::kAdd, {cat, x}, acc);              // 1
  m.Emit(MoveCall{acc, moved});                      // 2
  m.Emit(DelegateCall{0, {moved, done}});            // 3
  m.Emit(JumpFalseCall{done, 1});                    // 4: loop back to 1
  m.Emit(FreeCall{empty});                           // 5
  m.inputs = {x};
  m.outputs = {moved};

  std::vector<uint8_t> bytes = MustBuild(spec);
  const fb::Program& program = MustRead(bytes);
  const fb::ExecutionPlan& plan = *program.execution_plan()->Get(0);
  const auto& instructions = *plan.chains()->Get(0)->instructions();
  ASSERT_EQ(instructions.size(), 6u);
  EXPECT_EQ(instructions.Get(2)->instr_args_as_MoveCall()->move_to(), moved);
  EXPECT_EQ(instructions.Get(3)->instr_args_as_DelegateCall()->delegate_index(), 0);
  EXPECT_EQ(instructions.Get(4)->instr_args_as_JumpFalseCall()->destination_instruction(), 1);
  EXPECT_EQ(instructions.Get(5)->instr_args_as_FreeCall()->value_index(), empty);
  EXPECT_EQ(plan.values()->Get(list)->val_as_TensorList()->items()->size(), 2u);
  ASSERT_EQ(plan.delegates()->size(), 1u);
  EXPECT_EQ(plan.delegates()->Get(0)->id()->str(), "XnnpackBackend");
  EXPECT_EQ(plan.delegates()->Get(0)->processed()->location(), fb::DataLocation::INLINE);
  EXPECT_EQ(program.backend_delegate_data()->Get(0)->data()->size(), 3u);
  // The zero-byte tensor is still planned (the exporter gives it an offset).
  EXPECT_NE(TensorAt(plan, empty).allocation_info(), nullptr);
  EXPECT_EQ(PlacementOffset(*TensorAt(plan, moved).allocation_info()),
            PlacementOffset(*TensorAt(plan, acc).allocation_info()));
}

TEST(ProgramBuilder, DeviceArenaIsListedInNonConstBufferDevice) {
  ProgramSpec spec;
  MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  ValueIndex a = AddActivation(m, {4}, 2);
  m.inputs = m.outputs = {a};
  m.arena_devices.push_back(ArenaDevice{2, DeviceType::CUDA, 0});
  std::vector<uint8_t> bytes = MustBuild(spec);
  const fb::ExecutionPlan& plan = *MustRead(bytes).execution_plan()->Get(0);
  ASSERT_EQ(plan.non_const_buffer_sizes()->size(), 3u);
  EXPECT_EQ(plan.non_const_buffer_sizes()->Get(1), 0);
  EXPECT_EQ(plan.non_const_buffer_sizes()->Get(2), 16);
  ASSERT_EQ(plan.non_const_buffer_device()->size(), 1u);
  EXPECT_EQ(plan.non_const_buffer_device()->Get(0)->buffer_idx(), 2);
  EXPECT_EQ(plan.non_const_buffer_device()->Get(0)->device_type(), fb::DeviceType::CUDA);
}

TEST(ProgramBuilder, WithoutExtendedHeaderConstantsAreInline) {
  ProgramSpec spec;
  MethodSpec& m = spec.methods.emplace_back();
  m.name = "forward";
  ValueIndex w = AddConstant(m, {2}, FloatBytes({5, 6}));
  m.outputs = {w};
  BuildOptions options;
  options.extended_header = false;
  std::vector<uint8_t> bytes = MustBuild(spec, options);
  EXPECT_FALSE(ReadExtendedHeader(bytes).has_value());
  const fb::Program& program = MustRead(bytes);
  EXPECT_EQ(program.segments()->size(), 0u);
  ASSERT_EQ(program.constant_buffer()->size(), 2u);
  EXPECT_EQ(program.constant_buffer()->Get(1)->storage()->size(), 8u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(program.constant_buffer()->Get(1)->storage()->data()) % 16,
            reinterpret_cast<uintptr_t>(bytes.data()) % 16);

  SmallProgram with_state;
  Result<std::vector<uint8_t>> refused = BuildProgram(with_state.spec, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("1 initial states"), std::string::npos)
      << refused.error().message;
}

TEST(ProgramBuilder, WritePteFileAppendsSparseGigabyteSegment) {
  test_support::TempDir dir;
  SmallProgram small;
  BuildOptions options;
  options.trailing_segment_bytes = uint64_t{1} << 30;
  Result<PteLayout> layout = WritePteFile(small.spec, options, dir / "big.pte");
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  struct stat st {};
  ASSERT_EQ(stat((dir / "big.pte").c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), layout->file_size);
  EXPECT_EQ(layout->file_size, layout->segment_base_offset + layout->segment_data_size);
  EXPECT_LT(static_cast<uint64_t>(st.st_blocks) * 512, uint64_t{1} << 20);  // a hole

  std::vector<uint8_t> prefix(layout->segment_base_offset);
  std::ifstream in(dir / "big.pte", std::ios::binary);
  in.read(reinterpret_cast<char*>(prefix.data()), static_cast<std::streamsize>(prefix.size()));
  const fb::Program& program = MustRead(prefix);
  ASSERT_EQ(program.segments()->size(), 3u);
  const fb::DataSegment& last = *program.segments()->Get(2);
  EXPECT_EQ(last.size(), uint64_t{1} << 30);
  EXPECT_EQ(last.offset() % 128, 0u);
  EXPECT_EQ(last.offset() + last.size(), layout->segment_data_size);
}

TEST(ProgramBuilder, AliasOfNonTensorIsRefusedWithTheIndices) {
  ProgramSpec spec;
  MethodSpec& m = spec.methods.emplace_back();
  m.name = "bad";
  ValueIndex number = AddInt(m, 3);
  m.Add(Tensor{.sizes = {4}, .memory = AliasOf{number, 0}});
  Result<std::vector<uint8_t>> bytes = BuildProgram(spec);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().message,
            "method bad, value 1: alias base 0 is not a tensor value (method has 2 values)");
}

TEST(ProgramBuilder, InitialStateOfWrongSizeIsRefused) {
  ProgramSpec spec;
  MethodSpec& m = spec.methods.emplace_back();
  m.name = "bad";
  m.Add(Tensor{.sizes = {4}, .initial_state = std::vector<uint8_t>(3)});
  Result<std::vector<uint8_t>> bytes = BuildProgram(spec);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().message, "method bad, value 0: data has 3 bytes, tensor has 16");
}

}  // namespace
}  // namespace pteshare::synth
