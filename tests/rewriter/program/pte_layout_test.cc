// ReadPteLayout on real corpus bytes and on each kind of damage a file can
// carry: every case must give an error that says what is wrong, never a
// crash or a read outside the buffer.
#include "rewriter/program/pte_layout.h"

#include <gtest/gtest.h>

#include <cstring>

#include "tests/rewrite_fixtures.h"
#include "tests/test_support.h"
#include "wire.h"

namespace pteshare {
namespace {

using test_support::ReadFileBytes;
using test_support::SharedDir;

// A corpus program with an extended header and two segments.
constexpr const char* kWithHeader = "berndporr__dnf_executorch__dnf__v0c78226.pte";
// A corpus program without an extended header.
constexpr const char* kWithoutHeader = "pytorch__executorch__add.pte";

std::vector<uint8_t> CorpusBytes(const char* name) {
  std::string bytes = ReadFileBytes(SharedDir() / "corpus" / name);
  return {bytes.begin(), bytes.end()};
}

std::string LayoutError(const std::vector<uint8_t>& bytes) {
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(bytes, &program);
  EXPECT_FALSE(layout.ok());
  EXPECT_EQ(program, nullptr);
  return layout.ok() ? "" : layout.error().message;
}

#define REQUIRE_CORPUS() \
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped"

TEST(PteLayout, ReadsHeaderAndSegmentsOfACorpusFile) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> bytes = CorpusBytes(kWithHeader);
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(bytes, &program);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  ASSERT_NE(program, nullptr);
  // MANIFEST.tsv: len=32, program_size=5824, segment_base=5888, data=532.
  EXPECT_TRUE(layout->header.present);
  EXPECT_EQ(layout->header.length, 32u);
  EXPECT_EQ(layout->program_size, 5824u);
  EXPECT_EQ(layout->segment_base_offset, 5888u);
  EXPECT_EQ(layout->header.segment_data_size, 532u);
  EXPECT_EQ(layout->slack(), 64u);
  EXPECT_EQ(layout->file_size, bytes.size());
  ASSERT_EQ(layout->segments.size(), 2u);
  EXPECT_EQ(layout->segments[0].file_offset, 5888u);
  EXPECT_LE(layout->segments[1].file_offset + layout->segments[1].size, bytes.size());
}

TEST(PteLayout, FileWithoutExtendedHeaderIsAllFlatbuffer) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> bytes = CorpusBytes(kWithoutHeader);
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(bytes, &program);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  EXPECT_FALSE(layout->header.present);
  EXPECT_EQ(layout->program_size, bytes.size());
  EXPECT_EQ(layout->segment_base_offset, 0u);
  EXPECT_EQ(layout->slack(), 0u);
}

TEST(PteLayout, EmptyFile) { EXPECT_EQ(LayoutError({}), "file is empty"); }

TEST(PteLayout, AFewBytes) {
  EXPECT_EQ(LayoutError({0, 1, 2, 3, 4}),
            "file is 5 bytes, too small for a FlatBuffers root offset and identifier (8 bytes)");
}

TEST(PteLayout, WrongIdentifierIsNamed) {
  std::vector<uint8_t> bytes(64, 0);
  std::memcpy(bytes.data() + 4, "XY\x01Z", 4);
  EXPECT_EQ(LayoutError(bytes),
            "not a .pte program: identifier 'XY\\x01Z' at byte 4, expected 'ET12'");
}

TEST(PteLayout, BundledProgramIsRecognised) {
  std::vector<uint8_t> bytes(64, 0);
  std::memcpy(bytes.data() + 4, "BP08", 4);
  EXPECT_NE(LayoutError(bytes).find("bundled program"), std::string::npos);
}

TEST(PteLayout, OlderProgramVersionIsRecognised) {
  std::vector<uint8_t> bytes(64, 0);
  std::memcpy(bytes.data() + 4, "ET02", 4);
  EXPECT_EQ(LayoutError(bytes),
            "unsupported program version: identifier 'ET02', pteshare reads ET12 programs");
}

TEST(PteLayout, ZipArchiveIsRecognised) {
  std::vector<uint8_t> bytes(64, 0);
  std::memcpy(bytes.data(), "PK\x03\x04", 4);
  EXPECT_NE(LayoutError(bytes).find("ZIP archive"), std::string::npos);
}

TEST(PteLayout, HeaderLengthBelowMinimum) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> bytes = CorpusBytes(kWithHeader);
  wire::StoreU32(bytes.data() + 12, 8);
  EXPECT_EQ(LayoutError(bytes), "extended header length 8 is less than the minimum 24");
}

TEST(PteLayout, HeaderLengthPastTheFile) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> bytes = CorpusBytes(kWithHeader);
  wire::StoreU32(bytes.data() + 12, 0xFFFFFF00u);
  EXPECT_NE(LayoutError(bytes).find("runs past the end of the 6420-byte file"), std::string::npos);
}

TEST(PteLayout, ProgramSizeBeyondTheFile) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> bytes = CorpusBytes(kWithHeader);
  wire::StoreU64(bytes.data() + 16, 1u << 20);
  EXPECT_EQ(LayoutError(bytes),
            "extended header program_size 1048576 is larger than the file (6420 bytes)");
}

TEST(PteLayout, ProgramSizeSmallerThanTheHeader) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> bytes = CorpusBytes(kWithHeader);
  wire::StoreU64(bytes.data() + 16, 12);
  EXPECT_EQ(LayoutError(bytes),
            "extended header program_size 12 is smaller than the header itself (ends at 40)");
}

TEST(PteLayout, SegmentsCutOffByTruncation) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> bytes = CorpusBytes(kWithHeader);
  bytes.resize(6000);
  EXPECT_EQ(LayoutError(bytes),
            "file is too small: segment_base_offset 5888 + segment_data_size 532 = 6420 bytes "
            "expected, file has 6000");
}

TEST(PteLayout, SegmentBaseInsideTheProgram) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> bytes = CorpusBytes(kWithHeader);
  wire::StoreU64(bytes.data() + 24, 128);
  EXPECT_EQ(LayoutError(bytes),
            "extended header segment_base_offset 128 lies inside the program (5824 bytes)");
}

TEST(PteLayout, SegmentBasePlusDataSizeOverflows) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> bytes = CorpusBytes(kWithHeader);
  wire::StoreU64(bytes.data() + 32, ~uint64_t{0});
  EXPECT_NE(LayoutError(bytes).find("overflows"), std::string::npos);
}

TEST(PteLayout, CorruptRootOffsetFailsVerification) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> bytes = CorpusBytes(kWithHeader);
  wire::StoreU32(bytes.data(), 0x7FFFFFF0u);
  EXPECT_EQ(LayoutError(bytes),
            "the flatbuffer [0, 5824) fails FlatBuffers verification (corrupt offsets or "
            "truncated tables)");
}

TEST(PteLayout, TruncatingAFileWithoutHeaderAnywhereNeverCrashes) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> bytes = CorpusBytes(kWithoutHeader);
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(size));
    const fb::Program* program = nullptr;
    EXPECT_FALSE(ReadPteLayout(cut, &program).ok()) << "truncated at " << size;
  }
}

TEST(PteLayout, FlippingAnyByteNeverCrashes) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> original = CorpusBytes(kWithHeader);
  // Only the flatbuffer and header matter; segment bytes are never read.
  for (size_t i = 0; i < 5824; ++i) {
    std::vector<uint8_t> bytes = original;
    bytes[i] ^= 0xFF;
    const fb::Program* program = nullptr;
    Result<PteLayout> layout = ReadPteLayout(bytes, &program);
    if (layout.ok()) {
      EXPECT_NE(program, nullptr);
    }
  }
}

}  // namespace
}  // namespace pteshare

namespace pteshare {
namespace {

std::vector<uint8_t> TwoSegmentProgram() {
  test_support::b::BuildOptions options;
  options.segment_alignment = 4096;
  return test_support::Build(test_support::SharedCacheSpec(), options);
}

// F7: segment_base_offset 0 with non-empty segments put them over the
// flatbuffer; a rewrite's appended tables overwrote the first segment.
TEST(PteLayout, SegmentBaseZeroWithNonEmptySegmentsIsRefused) {
  std::vector<uint8_t> bytes = TwoSegmentProgram();
  const fb::Program* program = nullptr;
  ASSERT_TRUE(ReadPteLayout(bytes, &program).ok());
  ASSERT_GE(program->segments()->size(), 1u);
  wire::StoreU64(bytes.data() + PteConstants::kHeaderOffset + 16, 0);
  EXPECT_EQ(LayoutError(bytes).find("segment 0 holds "), 0u) << LayoutError(bytes);
  EXPECT_NE(
      LayoutError(bytes).find("segment_base_offset is 0, which places it over the flatbuffer"),
      std::string::npos);
}

TEST(PteLayout, OverlappingSegmentsAreRefused) {
  std::vector<uint8_t> bytes = TwoSegmentProgram();
  const fb::Program* program = nullptr;
  ASSERT_TRUE(ReadPteLayout(bytes, &program).ok());
  ASSERT_EQ(program->segments()->size(), 2u);
  const fb::DataSegment* second = program->segments()->Get(1);
  const uint8_t* offset_field =
      reinterpret_cast<const flatbuffers::Table*>(second)->GetAddressOf(fb::DataSegment::VT_OFFSET);
  ASSERT_NE(offset_field, nullptr);
  ASSERT_GT(program->segments()->Get(0)->size(), 1u);
  // Segment 1 now starts one byte into segment 0 (and still ends in the file).
  const uint64_t first = program->segments()->Get(0)->offset();
  wire::StoreU64(bytes.data() + (offset_field - bytes.data()), first + 1);
  EXPECT_EQ(LayoutError(bytes).find("segments 0 ["), 0u) << LayoutError(bytes);
  EXPECT_NE(LayoutError(bytes).find(") overlap"), std::string::npos) << LayoutError(bytes);
}

}  // namespace
}  // namespace pteshare
