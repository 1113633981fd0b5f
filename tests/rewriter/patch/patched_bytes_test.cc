// ApplyPatchInto and ApplyPatchInMemory (patched_bytes.h): a PatchSet
// applied to bytes in memory, as the bundle writer does for the program
// inside a bundle and RewriteBytesInto into a caller's buffer. The rule it
// follows: the flatbuffer with the overwrites, the appended bytes at
// old_program_size, zeros up to the new segment base, the segment data
// there, every byte of the output written (none left as the caller's
// memory held it); and its refusals, which leave the output untouched.
// That the -o and in-place writers put the same bytes on disk is
// writer_test.cc's.
#include "rewriter/patch/patched_bytes.h"

#include <gtest/gtest.h>

#include <numeric>
#include <span>

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

// A real program whose patch moves its segments (4-byte segment alignment
// leaves no slack for the appended table), and that patch.
void MakeRealMovingPatch(std::vector<uint8_t>* input, PatchSet* patch) {
  b::BuildOptions options;
  options.segment_alignment = 4;
  *input = Build(SharedCacheSpec(), options);
  ReadProgram in = Read(*input);
  Result<PatchSet> made = MakePatchSet(*input, in.view, PlanSharing(in.view));
  ASSERT_TRUE(made.ok()) << made.error().message;
  ASSERT_TRUE(made->segments_move());
  *patch = std::move(made).value();
}

// The same rule on a real patch that moves the segments: every byte of the
// result is accounted for, and the result reads back with its segments.
TEST(PatchedBytes, ARealPatchThatMovesTheSegmentsGivesAFileThatReadsBack) {
  std::vector<uint8_t> input;
  PatchSet patch;
  ASSERT_NO_FATAL_FAILURE(MakeRealMovingPatch(&input, &patch));
  Result<std::vector<uint8_t>> out = ApplyPatchInMemory(input, patch);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->size(), patch.new_file_size);

  std::vector<uint8_t> expected(patch.new_file_size, 0);
  std::copy_n(input.begin(), patch.old_program_size, expected.begin());
  std::copy(input.begin() + static_cast<ptrdiff_t>(patch.old_segment_base_offset), input.end(),
            expected.begin() + static_cast<ptrdiff_t>(patch.new_segment_base_offset));
  for (const ByteOverwrite& w : patch.AllWrites()) {
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

// Memory as a caller may hand it out: not zeroed, here a byte no patch
// writes, so that a byte ApplyPatchInto skipped shows.
constexpr uint8_t kUnwritten = 0x5A;

// A patch that moves the segments (old slack, appended bytes, overwrites),
// on Counting(256) as in the test above.
PatchSet MovingPatch() {
  PatchSet patch;
  patch.old_file_size = 256;
  patch.old_program_size = 100;
  patch.new_program_size = 140;
  patch.overwrites = {{4, {0xA0, 0xA1, 0xA2}}, {90, {0xB0}}};
  patch.appended = std::vector<uint8_t>(40, 0xAA);
  patch.old_segment_base_offset = 128;
  patch.new_segment_base_offset = 128 + kSegmentShiftUnit;
  patch.new_file_size = 256 + kSegmentShiftUnit;
  return patch;
}

// A patch on Counting(256) without segments: the file grows.
PatchSet GrowingPatch() {
  PatchSet patch;
  patch.old_file_size = patch.old_program_size = 256;
  patch.new_file_size = patch.new_program_size = 264;
  patch.overwrites = {{10, {0xA0}}};
  patch.appended = std::vector<uint8_t>(8, 0xCC);
  return patch;
}

// Into memory that held other bytes: every byte is the patched file's, the
// zeros up to the new segment base too.
TEST(PatchedBytes, IntoCallerMemoryEveryByteIsThePatchedFile) {
  const std::vector<uint8_t> input = Counting(256);
  for (const PatchSet& patch : {MovingPatch(), GrowingPatch()}) {
    SCOPED_TRACE(patch.segments_move() ? "segments move" : "no segments");
    std::vector<uint8_t> expected(patch.new_file_size, 0);
    std::copy_n(input.begin(), patch.segments_move() ? patch.old_program_size : input.size(),
                expected.begin());
    if (patch.segments_move()) {
      std::copy(input.begin() + static_cast<ptrdiff_t>(patch.old_segment_base_offset), input.end(),
                expected.begin() + static_cast<ptrdiff_t>(patch.new_segment_base_offset));
    }
    for (const ByteOverwrite& w : patch.AllWrites()) {
      std::copy(w.bytes.begin(), w.bytes.end(),
                expected.begin() + static_cast<ptrdiff_t>(w.offset));
    }
    std::vector<uint8_t> out(patch.new_file_size, kUnwritten);
    Status applied = ApplyPatchInto(input, patch, out);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
    EXPECT_EQ(out, expected);
    Result<std::vector<uint8_t>> in_memory = ApplyPatchInMemory(input, patch);
    ASSERT_TRUE(in_memory.ok()) << in_memory.error().message;
    EXPECT_EQ(*in_memory, expected);
  }
}

// The real patch of MakeRealMovingPatch, into caller memory: the same bytes
// as ApplyPatchInMemory's.
TEST(PatchedBytes, IntoCallerMemoryARealPatchGivesTheBytesInMemory) {
  std::vector<uint8_t> input;
  PatchSet patch;
  ASSERT_NO_FATAL_FAILURE(MakeRealMovingPatch(&input, &patch));
  std::vector<uint8_t> out(patch.new_file_size, kUnwritten);
  Status applied = ApplyPatchInto(input, patch, out);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(out, ApplyPatch(input, patch));
}

// An output of any other size than the new file's is refused, naming both
// sizes, before a byte of it is written.
TEST(PatchedBytes, AnOutputTooSmallOrTooLargeIsRefusedAndLeftUntouched) {
  const std::vector<uint8_t> input = Counting(256);
  const PatchSet patch = MovingPatch();
  for (const uint64_t size : {patch.new_file_size - 1, patch.new_file_size + 1, uint64_t{0}}) {
    std::vector<uint8_t> out(size, kUnwritten);
    Status applied = ApplyPatchInto(input, patch, out);
    ASSERT_FALSE(applied.ok()) << size;
    EXPECT_EQ(applied.error().message, "the output holds " + std::to_string(size) +
                                           " bytes, the rewritten program has " +
                                           std::to_string(patch.new_file_size));
    EXPECT_EQ(out, std::vector<uint8_t>(size, kUnwritten));
  }
}

// A write past the new end, or segments that would not end where the new
// file does, is refused before anything is written.
TEST(PatchedBytes, AnInconsistentPatchLeavesTheOutputUntouched) {
  const std::vector<uint8_t> input = Counting(256);
  PatchSet past_end = MovingPatch();
  past_end.overwrites.push_back({past_end.new_file_size - 1, {1, 2}});
  PatchSet short_segments = MovingPatch();
  short_segments.new_segment_base_offset -= 1;
  for (const auto& [patch, message] :
       {std::pair{past_end, "a write of 2 bytes at offset " +
                                std::to_string(past_end.new_file_size - 1) + " runs past the new " +
                                std::to_string(past_end.new_file_size) + "-byte program"},
        std::pair{short_segments, "the patch moves the segments from 128 to " +
                                      std::to_string(short_segments.new_segment_base_offset) +
                                      ", which does not give its " +
                                      std::to_string(short_segments.new_file_size) +
                                      "-byte program"}}) {
    std::vector<uint8_t> out(patch.new_file_size, kUnwritten);
    Status applied = ApplyPatchInto(input, patch, out);
    ASSERT_FALSE(applied.ok());
    EXPECT_EQ(applied.error().message, message);
    EXPECT_EQ(out, std::vector<uint8_t>(patch.new_file_size, kUnwritten));
  }
}

}  // namespace
}  // namespace pteshare
