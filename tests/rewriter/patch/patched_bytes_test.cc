// ApplyPatchInMemory (patched_bytes.h): a PatchSet applied to bytes in
// memory, as the bundle writer does for the program inside a bundle. The
// rule it follows: the flatbuffer with the overwrites, the appended bytes
// at old_program_size, zeros up to the new segment base, the segment data
// there; and its two refusals. That the -o and in-place writers put the
// same bytes on disk is writer_test.cc's.
#include "rewriter/patch/patched_bytes.h"

#include <gtest/gtest.h>

#include <numeric>

#include "tests/rewrite_fixtures.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;

std::vector<uint8_t> Counting(size_t n) {
  std::vector<uint8_t> bytes(n);
  std::iota(bytes.begin(), bytes.end(), uint8_t{1});
  return bytes;
}

std::vector<uint8_t> Slice(const std::vector<uint8_t>& bytes, uint64_t from, uint64_t to) {
  return {bytes.begin() + static_cast<ptrdiff_t>(from), bytes.begin() + static_cast<ptrdiff_t>(to)};
}

// Without segments the file is the flatbuffer and simply grows: the input,
// overwritten, then the appended bytes.
TEST(PatchedBytes, AFileWithoutSegmentsGetsItsOverwritesAndGrowsByTheAppendedBytes) {
  const std::vector<uint8_t> input = Counting(64);
  PatchSet patch;
  patch.old_file_size = patch.old_program_size = 64;
  patch.new_file_size = patch.new_program_size = 72;
  patch.overwrites = {{10, {0xA0, 0xA1}}, {40, {0xB0}}};
  patch.appended = std::vector<uint8_t>(8, 0xCC);
  Result<std::vector<uint8_t>> out = ApplyPatchInMemory(input, patch);
  ASSERT_TRUE(out.ok()) << out.error().message;
  std::vector<uint8_t> expected = input;
  expected[10] = 0xA0;
  expected[11] = 0xA1;
  expected[40] = 0xB0;
  expected.insert(expected.end(), 8, 0xCC);
  EXPECT_EQ(*out, expected);
}

// When the segments move, the old slack between the flatbuffer and the
// segments is not carried over: only zeros lie between the appended bytes
// and the segment data at its new base.
TEST(PatchedBytes, MovedSegmentsLandAtTheNewBaseAfterZerosAndTheOldSlackIsDropped) {
  std::vector<uint8_t> input = Counting(256);
  std::fill(input.begin() + 100, input.begin() + 128, 0xEE);  // slack
  PatchSet patch;
  patch.old_file_size = 256;
  patch.old_program_size = 100;
  patch.new_program_size = 140;
  patch.appended = std::vector<uint8_t>(40, 0xAA);
  patch.old_segment_base_offset = 128;
  patch.new_segment_base_offset = 128 + kSegmentShiftUnit;
  patch.new_file_size = 256 + kSegmentShiftUnit;
  Result<std::vector<uint8_t>> out = ApplyPatchInMemory(input, patch);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->size(), patch.new_file_size);
  EXPECT_EQ(Slice(*out, 0, 100), Slice(input, 0, 100));
  EXPECT_EQ(Slice(*out, 100, 140), patch.appended);
  EXPECT_EQ(Slice(*out, 140, patch.new_segment_base_offset),
            std::vector<uint8_t>(patch.new_segment_base_offset - 140, 0));
  EXPECT_EQ(Slice(*out, patch.new_segment_base_offset, out->size()), Slice(input, 128, 256));
}

// The same rule on a real patch that moves the segments (4-byte segment
// alignment leaves no slack for the appended table): every byte of the
// result is accounted for, and the result reads back with its segments.
TEST(PatchedBytes, ARealPatchThatMovesTheSegmentsGivesAFileThatReadsBack) {
  b::BuildOptions options;
  options.segment_alignment = 4;
  const std::vector<uint8_t> input = Build(SharedCacheSpec(), options);
  ReadProgram in = Read(input);
  Result<PatchSet> patch = MakePatchSet(input, in.view, PlanSharing(in.view));
  ASSERT_TRUE(patch.ok()) << patch.error().message;
  ASSERT_TRUE(patch->segments_move());
  Result<std::vector<uint8_t>> out = ApplyPatchInMemory(input, *patch);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->size(), patch->new_file_size);

  std::vector<uint8_t> expected(patch->new_file_size, 0);
  std::copy_n(input.begin(), patch->old_program_size, expected.begin());
  std::copy(input.begin() + static_cast<ptrdiff_t>(patch->old_segment_base_offset), input.end(),
            expected.begin() + static_cast<ptrdiff_t>(patch->new_segment_base_offset));
  for (const ByteOverwrite& w : patch->AllWrites()) {
    std::copy(w.bytes.begin(), w.bytes.end(), expected.begin() + static_cast<ptrdiff_t>(w.offset));
  }
  EXPECT_EQ(*out, expected);
  EXPECT_EQ(Read(*out).view.methods.size(), 2u);
  ExpectSegmentsKept(input, *out);
}

TEST(PatchedBytes, AnInputOfAnotherSizeIsRefusedWithBothSizes) {
  const std::vector<uint8_t> input = Counting(63);
  PatchSet patch;
  patch.old_file_size = patch.new_file_size = 64;
  patch.old_program_size = patch.new_program_size = 64;
  Result<std::vector<uint8_t>> out = ApplyPatchInMemory(input, patch);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message, "the patch was made for a 64-byte program, this one has 63");
}

// A PatchSet whose writes run past the file it says it makes is refused,
// not written out of bounds.
TEST(PatchedBytes, AWritePastTheNewEndIsRefusedWithItsOffsetAndSize) {
  const std::vector<uint8_t> input = Counting(64);
  PatchSet patch;
  patch.old_file_size = patch.old_program_size = 64;
  patch.new_file_size = patch.new_program_size = 72;
  patch.overwrites = {{70, {1, 2, 3, 4}}};
  Result<std::vector<uint8_t>> out = ApplyPatchInMemory(input, patch);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message,
            "a write of 4 bytes at offset 70 runs past the new 72-byte program");
}

}  // namespace
}  // namespace pteshare
