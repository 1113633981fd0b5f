// write_runs.h: writes lying close together become one read and one write,
// and the bytes a run writes are the file's own with the writes applied.
#include "rewriter/write/write_runs.h"

#include <gtest/gtest.h>

#include <numeric>

namespace pteshare {
namespace {

// A "file" of `size` bytes 0, 1, 2, ... (mod 256), read through ReadFileBytes,
// counting the reads.
struct CountingFile {
  std::vector<uint8_t> bytes;
  int reads = 0;

  explicit CountingFile(size_t size) : bytes(size) {
    std::iota(bytes.begin(), bytes.end(), uint8_t{0});
  }
  ReadFileBytes Reader() {
    return [this](uint64_t offset, std::span<uint8_t> into) {
      ++reads;
      if (offset + into.size() > bytes.size()) return Status(Error{"read past the end"});
      std::copy_n(bytes.begin() + static_cast<ptrdiff_t>(offset), into.size(), into.begin());
      return Status::Ok();
    };
  }
  // The file after writing `writes` one by one.
  std::vector<uint8_t> After(const std::vector<ByteOverwrite>& writes) const {
    std::vector<uint8_t> out = bytes;
    for (const ByteOverwrite& w : writes) {
      std::copy(w.bytes.begin(), w.bytes.end(), out.begin() + static_cast<ptrdiff_t>(w.offset));
    }
    return out;
  }
};

ByteOverwrite Write(uint64_t offset, std::vector<uint8_t> bytes) { return {offset, bytes}; }

std::vector<uint8_t> Apply(std::vector<uint8_t> file, const std::vector<WriteRun>& runs) {
  for (const WriteRun& r : runs) {
    std::copy(r.after.begin(), r.after.end(), file.begin() + static_cast<ptrdiff_t>(r.offset));
  }
  return file;
}

TEST(WriteRuns, WritesWithinTheGapAreOneReadAndOneWrite) {
  CountingFile file(1 << 20);
  const std::vector<ByteOverwrite> writes = {Write(16, {1, 2, 3, 4}), Write(100, {9}),
                                             Write(100 + kJoinedWriteGap, {7, 7})};
  Result<std::vector<WriteRun>> runs = JoinIntoRuns(writes, file.Reader());
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(file.reads, 1);
  const WriteRun& run = runs->front();
  EXPECT_EQ(run.offset, 16u);
  EXPECT_EQ(run.after.size(), 100 + kJoinedWriteGap + 2 - 16);
  EXPECT_EQ(run.first_write, 0u);
  EXPECT_EQ(run.end_write, 3u);
  // The bytes between the writes are the file's own, before and after.
  EXPECT_EQ(run.before[50], file.bytes[66]);
  EXPECT_EQ(run.after[50], file.bytes[66]);
  EXPECT_EQ(Apply(file.bytes, *runs), file.After(writes));
  // The old bytes of each write, for the journal.
  std::span<const uint8_t> before = BytesBefore(run, writes[1]);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0], file.bytes[100]);
}

TEST(WriteRuns, AGapWiderThanTheLimitOrALongRunStartsANewRun) {
  CountingFile file(12 << 20);
  const uint64_t far = 200 + kJoinedWriteGap + 1;  // one byte past the joined gap
  std::vector<ByteOverwrite> writes = {Write(100, {1, 2, 3, 4}), Write(far, {5})};
  // Writes 4 KiB apart up to past the longest run.
  for (uint64_t at = 2 << 20; at < (2 << 20) + kLongestWriteRun + 8192; at += 4096) {
    writes.push_back(Write(at, {6, 6}));
  }
  Result<std::vector<WriteRun>> runs = JoinIntoRuns(writes, file.Reader());
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 4u);
  EXPECT_EQ((*runs)[0].end_write, 1u);
  EXPECT_EQ((*runs)[1].offset, far);
  for (const WriteRun& r : *runs) EXPECT_LE(r.after.size(), kLongestWriteRun);
  EXPECT_EQ(runs->back().end_write, writes.size());
  EXPECT_EQ(file.reads, 4);
  EXPECT_EQ(Apply(file.bytes, *runs), file.After(writes));
}

TEST(WriteRuns, OverlappingOrUnsortedWritesAreRefused) {
  CountingFile file(4096);
  const std::vector<ByteOverwrite> overlapping = {Write(10, {1, 2}), Write(11, {3})};
  const std::vector<ByteOverwrite> unsorted = {Write(20, {1}), Write(10, {3})};
  EXPECT_FALSE(JoinIntoRuns(overlapping, file.Reader()).ok());
  EXPECT_FALSE(JoinIntoRuns(unsorted, file.Reader()).ok());
  EXPECT_TRUE(JoinIntoRuns({}, file.Reader())->empty());
}

TEST(WriteRuns, AFailedReadIsReturned) {
  CountingFile file(64);
  const std::vector<ByteOverwrite> past_the_end = {Write(60, {1, 2, 3, 4, 5})};
  Result<std::vector<WriteRun>> runs = JoinIntoRuns(past_the_end, file.Reader());
  ASSERT_FALSE(runs.ok());
  EXPECT_EQ(runs.error().message, "read past the end");
}

}  // namespace
}  // namespace pteshare
