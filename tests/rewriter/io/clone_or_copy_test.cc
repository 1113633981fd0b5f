// CloneOrCopyRange: on a file system with reflinks (a loop-mounted XFS) an
// unaligned range shares exactly its whole 4096-byte blocks with the source
// and copies its two ends, and the destination's bytes beside the range stay
// as they were; offsets that are not congruent mod 4096, and ext4, copy
// everything; a clone that fails is reported by name and errno, one the file
// system calls unsupported is copied instead, at the first chunk or later.
// The loop mounts need root (skipped visibly without).
#include "rewriter/io/clone_or_copy.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "tests/faulty_file_system.h"
#include "tests/filesystem_fixtures.h"
#include "tests/shared_extents.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

// Bytes that differ from block to block and from any shifted copy of
// themselves (a fixed linear congruential sequence).
std::vector<uint8_t> Pattern(size_t size) {
  std::vector<uint8_t> bytes(size);
  uint32_t state = 12345;
  for (uint8_t& b : bytes) {
    state = state * 1103515245u + 12345u;
    b = static_cast<uint8_t>(state >> 24);
  }
  return bytes;
}

// A source file, and a destination of `dest_size` that holds 0xEE
// everywhere but zeros over [to_offset, +length), where the range goes.
struct Files {
  std::vector<uint8_t> source;
  std::vector<uint8_t> destination;
  UniqueFd from, to;
};

Files MakeFiles(const fs::path& folder, size_t source_size, uint64_t to_offset, uint64_t length,
                uint64_t dest_size) {
  Files files;
  files.source = Pattern(source_size);
  files.destination.assign(dest_size, 0xEE);
  std::fill_n(files.destination.begin() + static_cast<ptrdiff_t>(to_offset), length, uint8_t{0});
  WriteBytes(folder / "from", files.source);
  WriteBytes(folder / "to", files.destination);
  files.from = OpenFd(folder / "from", O_RDONLY).value();
  files.to = OpenFd(folder / "to", O_RDWR).value();
  return files;
}

// What the destination must hold after the range was put there.
std::vector<uint8_t> Expected(const Files& files, uint64_t from_offset, uint64_t to_offset,
                              uint64_t length) {
  std::vector<uint8_t> expected = files.destination;
  std::copy_n(files.source.begin() + static_cast<ptrdiff_t>(from_offset), length,
              expected.begin() + static_cast<ptrdiff_t>(to_offset));
  return expected;
}

TEST(CloneOrCopy, OnXfsAnUnalignedRangeSharesItsWholeBlocksAndCopiesItsEnds) {
  LoopMount xfs(LoopFs::kXfs, kSmallestXfsBytes);
  if (!xfs.mounted()) GTEST_SKIP() << "no XFS to share blocks on (" << xfs.why_not() << ")";
  // Offsets 100 past a block boundary in both files (congruent mod 4096),
  // as the segments of an exporter's program are when -o moves them.
  const uint64_t from_offset = 3 * kCloneBlock + 100, to_offset = 5 * kCloneBlock + 100;
  const uint64_t length = (uint64_t{1} << 20) + 777;
  Files files = MakeFiles(xfs.path(), from_offset + length + 3000, to_offset, length,
                          to_offset + length + 5000);
  std::vector<uint64_t> progress;
  Result<RangeCopied> done =
      CloneOrCopyRange(RealFileSystem::Instance(), files.from.get(), from_offset, files.to.get(),
                       to_offset, length, [&](uint64_t n) { progress.push_back(n); });
  ASSERT_TRUE(done.ok()) << done.error().message;

  const uint64_t head = kCloneBlock - 100;
  const uint64_t middle = (length - head) / kCloneBlock * kCloneBlock;
  EXPECT_EQ(done->shared, middle);
  EXPECT_EQ(done->copied, length - middle);
  EXPECT_EQ(ReadBytes(xfs / "to"), Expected(files, from_offset, to_offset, length))
      << "the range, and the destination's bytes beside it as they were";
  EXPECT_EQ(SharedBytes(xfs / "to"), middle) << "exactly the whole blocks inside the range";
  EXPECT_EQ(SharedBytes(xfs / "from"), middle);
  ASSERT_FALSE(progress.empty());
  EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
  EXPECT_EQ(progress.back(), length);
}

TEST(CloneOrCopy, OffsetsNotCongruentModTheBlockAreCopied) {
  LoopMount xfs(LoopFs::kXfs, kSmallestXfsBytes);
  if (!xfs.mounted()) GTEST_SKIP() << "no XFS to share blocks on (" << xfs.why_not() << ")";
  const uint64_t from_offset = 0, to_offset = 128, length = 16 * kCloneBlock;
  Files files = MakeFiles(xfs.path(), length, to_offset, length, to_offset + length);
  Result<RangeCopied> done = CloneOrCopyRange(RealFileSystem::Instance(), files.from.get(),
                                              from_offset, files.to.get(), to_offset, length);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(done->shared, 0u);
  EXPECT_EQ(done->copied, length);
  EXPECT_EQ(ReadBytes(xfs / "to"), Expected(files, from_offset, to_offset, length));
  EXPECT_EQ(SharedBytes(xfs / "to"), 0u);
}

// ext4 cannot share blocks: the clone is asked once, refused, and the range
// copied as before (the copy floor, no regression).
TEST(CloneOrCopy, OnExt4TheCloneIsRefusedAndTheRangeCopied) {
  LoopMount ext4(LoopFs::kExt4, uint64_t{16} << 20);
  if (!ext4.mounted()) GTEST_SKIP() << "no ext4 to mount (" << ext4.why_not() << ")";
  const uint64_t from_offset = 100, to_offset = kCloneBlock + 100, length = 64 * kCloneBlock;
  Files files =
      MakeFiles(ext4.path(), from_offset + length, to_offset, length, to_offset + length + 10);
  FaultyFileSystem counting;
  Result<RangeCopied> done =
      CloneOrCopyRange(counting, files.from.get(), from_offset, files.to.get(), to_offset, length);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(done->shared, 0u);
  EXPECT_EQ(done->copied, length);
  EXPECT_EQ(ReadBytes(ext4 / "to"), Expected(files, from_offset, to_offset, length));
  EXPECT_EQ(counting.calls(),
            (std::vector<FsCall>{FsCall::kCopyRange, FsCall::kCloneRange, FsCall::kCopyRange}))
      << "the head copied, the clone refused, the rest copied";
}

// Injected at the clone (any file system: the fault comes before the real
// call): an I/O error or a full disk is the result, named; a file system
// that says it cannot clone gets the range copied.
TEST(CloneOrCopy, AFailedCloneIsReportedAndAnUnsupportedOneIsCopied) {
  TempDir dir;
  const uint64_t length = 8 * kCloneBlock;
  for (int error : {EIO, ENOSPC, EOPNOTSUPP, EXDEV, EINVAL}) {
    SCOPED_TRACE(std::strerror(error));
    Files files = MakeFiles(dir.path(), length, 0, length, length);
    Fault fault;
    fault.nth = 1;
    fault.only = FsCall::kCloneRange;
    fault.error = error;
    FaultyFileSystem faulty(fault);
    Result<RangeCopied> done =
        CloneOrCopyRange(faulty, files.from.get(), 0, files.to.get(), 0, length);
    ASSERT_EQ(faulty.failures(), std::vector<FsCall>{FsCall::kCloneRange});
    if (error == EIO || error == ENOSPC) {
      ASSERT_FALSE(done.ok());
      EXPECT_EQ(done.error().message, "clone of " + std::to_string(length) +
                                          " bytes from offset 0 failed: " + std::strerror(error));
      continue;
    }
    ASSERT_TRUE(done.ok()) << done.error().message;
    EXPECT_EQ(done->shared, 0u);
    EXPECT_EQ(done->copied, length);
    EXPECT_EQ(ReadBytes(dir / "to"), files.source);
  }
}

// A range longer than one clone chunk whose second clone is refused: the
// first chunk stays shared, the rest is copied, and the bytes are the same.
// The source is sparse (a few data blocks), as a large zero segment is.
TEST(CloneOrCopy, OnXfsACloneRefusedAfterTheFirstChunkCopiesTheRest) {
  LoopMount xfs(LoopFs::kXfs, kSmallestXfsBytes);
  if (!xfs.mounted()) GTEST_SKIP() << "no XFS to share blocks on (" << xfs.why_not() << ")";
  const uint64_t length = kCloneChunk + 3 * kCloneBlock;
  const std::vector<uint8_t> data = Pattern(kCloneBlock);
  {
    UniqueFd from = OpenFd(xfs / "from", O_RDWR | O_CREAT, 0600).value();
    ASSERT_TRUE(Truncate(from.get(), length).ok());
    for (uint64_t at : {uint64_t{0}, kCloneChunk - kCloneBlock, kCloneChunk, length - kCloneBlock})
      ASSERT_TRUE(WriteAt(from.get(), at, data).ok());
    UniqueFd to = OpenFd(xfs / "to", O_RDWR | O_CREAT, 0600).value();
    ASSERT_TRUE(Truncate(to.get(), length).ok());
  }
  for (int error : {EOPNOTSUPP, EIO}) {
    SCOPED_TRACE(std::strerror(error));
    UniqueFd from = OpenFd(xfs / "from", O_RDONLY).value();
    UniqueFd to = OpenFd(xfs / "to", O_RDWR | O_TRUNC).value();
    ASSERT_TRUE(Truncate(to.get(), length).ok());
    Fault fault;
    fault.nth = 2;
    fault.only = FsCall::kCloneRange;
    fault.error = error;
    FaultyFileSystem faulty(fault);
    Result<RangeCopied> done = CloneOrCopyRange(faulty, from.get(), 0, to.get(), 0, length);
    if (error == EIO) {
      ASSERT_FALSE(done.ok());
      EXPECT_EQ(done.error().message, "clone of " + std::to_string(length - kCloneChunk) +
                                          " bytes from offset " + std::to_string(kCloneChunk) +
                                          " failed: " + std::strerror(error));
      continue;
    }
    ASSERT_TRUE(done.ok()) << done.error().message;
    EXPECT_EQ(done->shared, kCloneChunk);
    EXPECT_EQ(done->copied, length - kCloneChunk);
    EXPECT_EQ(ReadBytes(xfs / "to"), ReadBytes(xfs / "from"));
    // (The blocks copied may be shared all the same: copy_file_range of
    // aligned offsets on XFS remaps them itself.)
  }
}

}  // namespace
}  // namespace pteshare
