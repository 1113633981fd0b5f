// ProgramView and the layout reader on builder programs damaged in the ways
// the loader refuses: each error names the method, value and numbers.
#include <gtest/gtest.h>

#include "rewriter/program/program_view.h"
#include "rewriter/program/pte_layout.h"
#include "tools/synth/fixed_layout.h"
#include "tools/synth/program_builder.h"
#include "wire.h"

namespace pteshare {
namespace {

using synth::FixedMethod;

std::vector<uint8_t> Build(const synth::ProgramSpec& spec) {
  Result<std::vector<uint8_t>> bytes = synth::BuildProgram(spec);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>{};
}

// The message of whichever reader step refuses `bytes`.
std::string ReadError(const std::vector<uint8_t>& bytes) {
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(bytes, &program);
  if (!layout.ok()) return layout.error().message;
  Result<ProgramView> view = ReadProgramView(*program, *layout);
  return view.ok() ? "read fine" : view.error().message;
}

synth::ProgramSpec OneTensor(synth::Tensor tensor) {
  synth::ProgramSpec spec = synth::FixedLayoutSpec({{"forward", {{64, 1, 0}}, {64}}});
  spec.methods[0].values[0] = std::move(tensor);
  return spec;
}

TEST(ProgramViewErrors, UnknownScalarType) {
  synth::Tensor t;
  t.scalar_type = static_cast<fb::ScalarType>(99);
  t.sizes = {4};
  t.memory = synth::FixedPlacement{1, 0};
  EXPECT_EQ(ReadError(Build(OneTensor(t))), "method forward, value 0: unknown scalar type 99");
}

TEST(ProgramViewErrors, NegativeSize) {
  synth::Tensor t;
  t.sizes = {4, -3};
  t.memory = synth::FixedPlacement{1, 0};
  EXPECT_EQ(ReadError(Build(OneTensor(t))), "method forward, value 0: negative size -3");
}

TEST(ProgramViewErrors, SizesWhoseProductOverflows) {
  synth::Tensor t;
  t.sizes = {2147483647, 2147483647, 2147483647};
  t.memory = synth::FixedPlacement{1, 0};
  EXPECT_EQ(ReadError(Build(OneTensor(t))),
            "method forward, value 0: the product of its sizes overflows 64 bits");
}

TEST(ProgramViewErrors, NegativeArenaSize) {
  synth::ProgramSpec spec = synth::FixedLayoutSpec({{"forward", {{64, 1, 0}}, {-5}}});
  EXPECT_EQ(ReadError(Build(spec)), "method forward: arena 1 has negative size -5");
}

TEST(ProgramViewErrors, DeviceEntryForAMissingArena) {
  synth::ProgramSpec spec =
      synth::FixedLayoutSpec({{"forward", {{64, 1, 0}}, {64}, {{3, fb::DeviceType::CUDA, 0}}}});
  EXPECT_EQ(ReadError(Build(spec)),
            "method forward: non_const_buffer_device names arena 3 but the method has 1 arenas");
}

TEST(ProgramViewErrors, SegmentPastTheEndOfTheFile) {
  // A program with initial state has segments; grow the last one's size
  // field in place so it runs past the file while the header still fits.
  std::vector<uint8_t> bytes =
      Build(synth::FixedLayoutSpec({{"forward", {{64, 1, 0, "state", true}}}}));
  const fb::Program* program = fb::GetProgram(bytes.data());
  ASSERT_NE(program->segments(), nullptr);
  const fb::DataSegment* last = program->segments()->Get(program->segments()->size() - 1);
  const uint8_t* size_field =
      reinterpret_cast<const flatbuffers::Table*>(last)->GetAddressOf(fb::DataSegment::VT_SIZE);
  ASSERT_NE(size_field, nullptr);
  const size_t at = static_cast<size_t>(size_field - bytes.data());
  wire::StoreU64(bytes.data() + at, 1u << 20);
  EXPECT_NE(ReadError(bytes).find("runs past the end of the file (" + std::to_string(bytes.size()) +
                                  " bytes)"),
            std::string::npos)
      << ReadError(bytes);
}

TEST(ProgramViewErrors, ReadsOffsetsAboveFourGibAsSixtyFourBits) {
  // memory_offset_high is never set by real exporters (docs/format.md); a
  // >4 GiB placement must still read as one 64-bit offset.
  const uint64_t offset = (uint64_t{5} << 32) + 4096;
  std::vector<uint8_t> bytes = Build(synth::FixedLayoutSpec(
      {{"forward", {{64, 1, offset}}, {static_cast<int64_t>(offset + 64)}}}));
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(bytes, &program);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  Result<ProgramView> view = ReadProgramView(*program, *layout);
  ASSERT_TRUE(view.ok()) << view.error().message;
  const TensorValue& t = view->methods[0].tensors[0];
  EXPECT_EQ(t.placement.offset, offset);
  EXPECT_TRUE(t.stored.offset_high);
  EXPECT_EQ(view->methods[0].arenas[0].size, offset + 64);
}

}  // namespace
}  // namespace pteshare
