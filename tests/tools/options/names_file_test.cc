// A names file (tools/options/names_file.h): --name's namings a line each,
// with comments and blank lines; every error names the file and the line
// and quotes it.
#include "tools/options/names_file.h"

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace pteshare::options {
namespace {

using test_support::TempDir;

std::string ErrorOf(std::string_view text) {
  Result<std::vector<ValueNaming>> read = ReadNamesText(text, "names.txt");
  EXPECT_FALSE(read.ok());
  return read.ok() ? "(read)" : read.error().message;
}

// 64 caches shared by any number of methods: one line each.
TEST(NamesFile, APairLineNamesOneBufferWhateverTheMethods) {
  std::string text = "# llm.pte, as `pteshare plan --share-auto` pairs it\n";
  for (int layer = 0; layer < 32; ++layer) {
    for (const char* cache : {"k", "v"}) {
      const int k = 2 * layer + (cache[0] == 'v' ? 1 : 0);
      text += PairedStateName(static_cast<size_t>(k), 64) + "=layers." + std::to_string(layer) +
              ".attention.kv_cache." + cache + "_cache\n";
    }
  }
  Result<std::vector<ValueNaming>> read = ReadNamesText(text, "names.txt");
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->size(), 64u);
  EXPECT_EQ((*read)[63].pair, 63u);
  EXPECT_EQ((*read)[63].name, "layers.31.attention.kv_cache.v_cache");
  EXPECT_EQ((*read)[63].origin, "names.txt:65");
}

TEST(NamesFile, CommentsBlankLinesSpacesAndCarriageReturnsAreSkipped) {
  Result<std::vector<ValueNaming>> read = ReadNamesText(
      "\n# a comment\n  prefill:34=k0   # prefill's\r\n\t\ndecode:34=k0#not-a-comment\n",
      "names.txt");
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].method, "prefill");
  EXPECT_EQ((*read)[0].name, "k0");
  EXPECT_EQ((*read)[0].origin, "names.txt:3");
  // '#' inside a word is part of the name.
  EXPECT_EQ((*read)[1].name, "k0#not-a-comment");
}

TEST(NamesFile, EachBadLineIsAnErrorNamingTheFileAndLine) {
  EXPECT_EQ(ErrorOf("prefill:34=k\nfoo\n"),
            "names.txt:2: expected METHOD:VALUE_INDEX=NAME or paired_state.K=NAME, got 'foo'");
  EXPECT_EQ(ErrorOf("prefill:x=k\n"),
            "names.txt:1: VALUE_INDEX 'x' is not a non-negative integer, got 'prefill:x=k'");
  EXPECT_EQ(ErrorOf("paired_state.1x=k\n"),
            "names.txt:1: K '1x' of paired_state.K is not a non-negative integer, got "
            "'paired_state.1x=k'");
  EXPECT_EQ(ErrorOf("paired_state.000 = k\n"),
            "names.txt:1: expected METHOD:VALUE_INDEX=NAME or paired_state.K=NAME (no spaces), got "
            "'paired_state.000 = k'");
  EXPECT_EQ(ErrorOf("# nothing yet\n\n"),
            "names.txt: no names in it: expected lines of METHOD:VALUE_INDEX=NAME or "
            "paired_state.K=NAME");
}

TEST(NamesFile, AFileThatCannotBeReadIsAnIoErrorNamingIt) {
  TempDir dir;
  const std::string missing = (dir / "none.txt").string();
  Result<std::vector<ValueNaming>> read = ReadNamesFile(missing);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kIo);
  EXPECT_EQ(read.error().message, missing + ": cannot read: No such file or directory");
  // A folder (or a FIFO, a device) is never read.
  read = ReadNamesFile(dir.path().string());
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message, dir.path().string() + ": cannot read: not a regular file");
  const std::string file = (dir / "names.txt").string();
  test_support::WriteFileBytes(file, "paired_state.3=v\n");
  read = ReadNamesFile(file);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ((*read)[0].origin, file + ":1");
}

}  // namespace
}  // namespace pteshare::options
