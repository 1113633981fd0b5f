// PteFile: mapping real files, and refusing what cannot be mapped.
#include "rewriter/program/pte_file.h"

#include <gtest/gtest.h>

#include "tests/bundle_fixtures.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

using test_support::TempDir;

TEST(PteFile, MissingFile) {
  TempDir dir;
  Result<PteFile> file = PteFile::Open(dir / "absent.pte");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message, "cannot open: no such file");
}

TEST(PteFile, DirectoryIsRefused) {
  TempDir dir;
  Result<PteFile> file = PteFile::Open(dir.path());
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message, "is a directory, not a .pte file");
}

TEST(PteFile, EmptyFileIsRefusedWithoutMapping) {
  TempDir dir;
  test_support::WriteFileBytes(dir / "empty.pte", "");
  Result<PteFile> file = PteFile::Open(dir / "empty.pte");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message, "file is empty");
}

TEST(PteFile, MapsEveryCorpusProgramReadOnly) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  size_t opened = 0;
  for (const auto& path : test_support::CorpusFiles()) {
    Result<PteFile> file = PteFile::Open(path);
    if (!file.ok()) continue;
    ++opened;
    // A bundle's PteFile is the program inside it.
    const uint64_t expected =
        file->bundle() ? file->bundle()->program_size : std::filesystem::file_size(path);
    EXPECT_EQ(file->bytes().size(), expected);
    if (file->bundle()) {
      EXPECT_EQ(file->bundle_bytes().size(), std::filesystem::file_size(path));
    }
    EXPECT_EQ(file->program_bytes().size(), file->layout().program_size);
  }
  EXPECT_EQ(opened,
            test_support::CorpusManifestTotals().programs + test_support::CorpusBundleCount());
}

}  // namespace
}  // namespace pteshare

namespace pteshare {
namespace {

using test_support::BytesReadSoFar;

// F15: a 2 GiB file without an extended header was read whole (8-31 s)
// before its identifier was refused. Now the first 4 KiB decide.
TEST(PteFile, NothingPastTheFirstBytesIsReadBeforeTheIdentifierCheck) {
  TempDir dir;
  const auto big = dir / "big.bin";
  test_support::WriteFileBytes(big, std::string("\x10\x00\x00\x00NOPE", 8));
  std::filesystem::resize_file(big, uint64_t{2} << 30);  // sparse
  const uint64_t before = BytesReadSoFar();
  Result<PteFile> file = PteFile::Open(big);
  const uint64_t read = BytesReadSoFar() - before;
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message,
            "not a .pte program: identifier 'NOPE' at byte 4, expected 'ET12'");
  EXPECT_LT(read, uint64_t{1} << 20) << "read " << read << " bytes of a file it refuses";

  // ET12 without a header, past the FlatBuffers limit: refused unread too.
  test_support::WriteFileBytes(big, std::string("\x10\x00\x00\x00"
                                                "ET12",
                                                8));
  std::filesystem::resize_file(big, (uint64_t{2} << 30) + 4096);
  const uint64_t again = BytesReadSoFar();
  Result<PteFile> too_big = PteFile::Open(big);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.error().message.find("beyond the FlatBuffers limit"), std::string::npos)
      << too_big.error().message;
  EXPECT_LT(BytesReadSoFar() - again, uint64_t{1} << 20);
}

}  // namespace
}  // namespace pteshare
