// Gap writes: opening the gap (simulated in memory: zeros inserted at its
// offset) and applying WritesAroundGap gives exactly the bytes of the copy
// -o writes (flatbuffer, appended bytes, zeros, segments at the new base),
// wherever the old segment base lies against the 4096 boundaries: above
// one, below the first (gap at 0), on one with the program ending below it
// (the appended bytes straddle the gap), with no slack at all.
#include "rewriter/write/gap_writes.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include "rewriter/io/file_io.h"
#include "tests/rewrite_fixtures.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;

std::vector<uint8_t> Pattern(size_t n) {
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 131 + i / 4096 + 7);
  return bytes;
}

// A patch as the patcher makes one whose appended bytes outgrow the slack.
PatchSet MovingPatch(uint64_t program_size, uint64_t base, uint64_t file_size, size_t appended) {
  PatchSet patch;
  patch.old_file_size = file_size;
  patch.old_program_size = program_size;
  patch.new_program_size = program_size + appended;
  patch.old_segment_base_offset = base;
  const uint64_t need = patch.new_program_size - base;
  const uint64_t shift = (need + kSegmentShiftUnit - 1) / kSegmentShiftUnit * kSegmentShiftUnit;
  patch.new_segment_base_offset = base + shift;
  patch.new_file_size = file_size + shift;
  patch.appended.assign(appended, 0xAA);
  patch.overwrites = {{16, std::vector<uint8_t>(8, 0x11)},
                      {24, std::vector<uint8_t>(8, 0x22)},
                      {program_size - 8, std::vector<uint8_t>(4, 0x33)}};
  return patch;
}

std::vector<uint8_t> AsCopyWritesIt(const std::vector<uint8_t>& in, const PatchSet& patch) {
  std::vector<uint8_t> out(patch.new_file_size, 0);
  std::copy_n(in.begin(), patch.old_program_size, out.begin());
  std::copy(in.begin() + static_cast<ptrdiff_t>(patch.old_segment_base_offset), in.end(),
            out.begin() + static_cast<ptrdiff_t>(patch.new_segment_base_offset));
  for (const ByteOverwrite& w : patch.AllWrites()) {
    std::copy(w.bytes.begin(), w.bytes.end(), out.begin() + static_cast<ptrdiff_t>(w.offset));
  }
  return out;
}

TEST(GapWrites, OpeningTheGapAndWritingGivesTheCopysBytesWhereverTheBaseLies) {
  struct Case {
    uint64_t program_size, base;
  };
  for (const Case& c : {Case{10000, 10112}, Case{3000, 3072}, Case{4090, 4096}, Case{8192, 8192}}) {
    SCOPED_TRACE(c.base);
    const std::vector<uint8_t> in = Pattern(c.base + 20000);
    const PatchSet patch = MovingPatch(c.program_size, c.base, in.size(), 140);
    const FileGap gap = GapFor(patch);
    EXPECT_EQ(gap.offset % kGapUnit, 0u);
    EXPECT_LE(gap.offset, c.base);
    EXPECT_EQ(gap.length, patch.segment_shift());

    TempDir dir;
    WriteBytes(dir / "f", in);
    Result<UniqueFd> fd = OpenFd(dir / "f", O_RDONLY);
    ASSERT_TRUE(fd.ok());
    Result<std::vector<ByteOverwrite>> writes = WritesAroundGap(fd->get(), patch, gap);
    ASSERT_TRUE(writes.ok()) << writes.error().message;

    std::vector<uint8_t> opened(in.begin(), in.begin() + static_cast<ptrdiff_t>(gap.offset));
    opened.resize(gap.offset + gap.length, 0);
    opened.insert(opened.end(), in.begin() + static_cast<ptrdiff_t>(gap.offset), in.end());
    for (const ByteOverwrite& w : *writes) {
      ASSERT_LE(w.end(), patch.new_segment_base_offset) << "never a segment byte";
      std::copy(w.bytes.begin(), w.bytes.end(), opened.begin() + static_cast<ptrdiff_t>(w.offset));
    }
    EXPECT_EQ(opened, AsCopyWritesIt(in, patch));
  }
}

}  // namespace
}  // namespace pteshare
