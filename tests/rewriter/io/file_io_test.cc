// file_io: reading a sparse file costs the bytes it stores. A file that
// claims gigabytes but stores a few KiB (a hostile header, or a copy made
// with holes) once took 17-44 s and 2.1 GB of memory to refuse; its holes
// are now skipped, and the memory under them is never touched.
#include "rewriter/io/file_io.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "tests/test_support.h"

namespace pteshare {
namespace {

constexpr uint64_t kPage = 4096;

// Pages of [address, address + length) that are resident (mincore).
size_t ResidentPages(void* address, size_t length) {
  std::vector<unsigned char> resident((length + kPage - 1) / kPage);
  if (::mincore(address, length, resident.data()) != 0) return SIZE_MAX;
  size_t count = 0;
  for (unsigned char r : resident) count += r & 1;
  return count;
}

TEST(FileIo, ReadingASparseFileReadsItsDataAndLeavesItsHolesUntouched) {
  test_support::TempDir dir;
  const std::filesystem::path path = dir / "sparse";
  constexpr uint64_t kSize = uint64_t{1} << 30;  // 1 GiB, two pages of it stored
  UniqueFd fd = OpenFd(path, O_RDWR | O_CREAT, 0600).value();
  ASSERT_TRUE(Truncate(fd.get(), kSize).ok());
  const std::vector<uint8_t> start(kPage, 0xA1), middle(kPage, 0xB2);
  ASSERT_TRUE(WriteAt(fd.get(), 0, start).ok());
  ASSERT_TRUE(WriteAt(fd.get(), kSize / 2, middle).ok());
  ASSERT_TRUE(SyncFile(fd.get()).ok());

  void* memory = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  auto* bytes = static_cast<uint8_t*>(memory);
  Status read = ReadAtSkippingHoles(fd.get(), 0, {bytes, kSize});
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(bytes[0], 0xA1);
  EXPECT_EQ(bytes[kPage - 1], 0xA1);
  EXPECT_EQ(bytes[kSize / 2], 0xB2);
  EXPECT_EQ(bytes[kSize / 2 + kPage - 1], 0xB2);
  // Only the stored pages were written into (ext4, XFS, tmpfs report their
  // holes; a filesystem that cannot falls back to reading everything).
  const size_t resident = ResidentPages(memory, kSize);
  if (::lseek(fd.get(), 0, SEEK_HOLE) == static_cast<off_t>(kSize)) {
    GTEST_SKIP() << "this filesystem reports no holes: the fallback read everything";
  }
  EXPECT_LE(resident, 16u) << "the holes must not be read into memory";
  EXPECT_EQ(bytes[kPage], 0);
  EXPECT_EQ(bytes[kSize - 1], 0);
  ::munmap(memory, kSize);

  // A read past the end is an error, as ReadAt's.
  std::vector<uint8_t> small(16);
  EXPECT_FALSE(ReadAtSkippingHoles(fd.get(), kSize - 8, small).ok());
}

}  // namespace
}  // namespace pteshare
