// PteFile: mapping real files, and refusing what cannot be mapped.
#include "rewriter/pte_file.h"

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace pteshare {
namespace {

using testing::TempDir;

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
  testing::WriteFileBytes(dir / "empty.pte", "");
  Result<PteFile> file = PteFile::Open(dir / "empty.pte");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message, "file is empty");
}

TEST(PteFile, MapsEveryCorpusProgramReadOnly) {
  if (testing::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  size_t opened = 0;
  for (const auto& path : testing::CorpusFiles()) {
    Result<PteFile> file = PteFile::Open(path);
    if (!file.ok()) continue;
    ++opened;
    EXPECT_EQ(file->bytes().size(), std::filesystem::file_size(path));
    EXPECT_EQ(file->program_bytes().size(), file->layout().program_size);
    EXPECT_TRUE(file->mutable_bytes().empty()) << "read-only mapping must not be writable";
  }
  EXPECT_EQ(opened, testing::CorpusManifestTotals().programs);
}

}  // namespace
}  // namespace pteshare
