// OpenProgram and its two siblings (open_program.h), the entry point every
// command reads through: a file and the same bytes in memory give the same
// view (every corpus file too); an interrupted rewrite is rolled back
// first, found beside the real file whatever link reached it, and said in
// the notice; OpenLockedProgram reads the locked real file and looks for
// nothing; what cannot be read is an error naming why.
#include "rewriter/open_program.h"

#include <gtest/gtest.h>

#include "rewriter/write/writer_lock.h"
#include "tests/rewrite_fixtures.h"

namespace pteshare {
namespace {

using namespace pteshare::test_support;
namespace fs = std::filesystem;

// Method names and every planned placement: what the commands read.
void ExpectSameView(const ProgramView& a, const ProgramView& b) {
  EXPECT_EQ(a.layout.program_size, b.layout.program_size);
  ASSERT_EQ(a.methods.size(), b.methods.size());
  for (size_t m = 0; m < a.methods.size(); ++m) {
    const MethodView &x = a.methods[m], &y = b.methods[m];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.instruction_count, y.instruction_count) << x.name;
    ASSERT_EQ(x.tensors.size(), y.tensors.size()) << x.name;
    for (size_t t = 0; t < x.tensors.size(); ++t) {
      EXPECT_EQ(x.tensors[t].placement, y.tensors[t].placement) << x.name << " tensor " << t;
    }
  }
}

// The view of `bytes`, which point into them (empty if they do not read).
ProgramView ViewOfBytes(const std::vector<uint8_t>& bytes) {
  Result<OpenedProgram> opened = OpenProgramBytes(bytes);
  EXPECT_TRUE(opened.ok()) << opened.error().message;
  if (!opened.ok()) return {};
  EXPECT_EQ(opened->notice, "");
  return std::move(opened->view);
}

TEST(OpenProgram, AFileGivesTheViewItsBytesGiveAndNoNotice) {
  TempDir dir;
  const std::vector<uint8_t> bytes = Build(SharedCacheSpec());
  WriteBytes(dir / "m.pte", bytes);
  Result<OpenedProgram> opened = OpenProgram(dir / "m.pte");
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(opened->notice, "");
  ASSERT_EQ(opened->view.methods.size(), 2u);
  EXPECT_EQ(opened->view.methods[0].name, "prefill");
  EXPECT_EQ(opened->view.methods[1].name, "decode");
  ExpectSameView(opened->view, ViewOfBytes(bytes));
  // The pair moves without the view losing the snapshot it points into.
  OpenedProgram moved = std::move(opened).value();
  EXPECT_EQ(moved.view.methods[0].tensors[0].name, kCacheName);
}

TEST(OpenProgram, AnInterruptedRewriteIsRolledBackThroughALinkAndSaidOnce) {
  TempDir dir;
  std::vector<uint8_t> input;
  const fs::path file = CrashedAfterJournal(dir, &input);
  fs::create_directory(dir / "links");
  fs::create_symlink(file, dir / "links" / "link.pte");
  Result<OpenedProgram> opened = OpenProgram(dir / "links" / "link.pte");
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(opened->notice, "rolled back an interrupted rewrite (journal " +
                                JournalPath(file).string() +
                                "); the file is as it was before that rewrite");
  EXPECT_FALSE(fs::exists(JournalPath(file)));
  EXPECT_EQ(ReadBytes(file), input);
  ExpectSameView(opened->view, ViewOfBytes(input));
  Result<OpenedProgram> again = OpenProgram(file);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->notice, "") << "nothing left to roll back";
}

// The writer took the lock and recovered first: OpenLockedProgram reads the
// real file the lock names and neither waits for the lock (it would wait
// for itself) nor looks for a journal.
TEST(OpenProgram, OpenLockedProgramReadsTheLockedFileAndLooksForNothing) {
  TempDir dir;
  std::vector<uint8_t> input;
  const fs::path file = CrashedAfterJournal(dir, &input);
  fs::create_symlink(file, dir / "link.pte");
  Result<WriterLock> lock = WriterLock::Acquire(dir / "link.pte");
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  EXPECT_EQ(lock->path(), fs::canonical(file));
  Result<OpenedProgram> opened = OpenLockedProgram(*lock);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(opened->notice, "");
  EXPECT_TRUE(fs::exists(JournalPath(file))) << "recovery is the writer's own step";
  ExpectSameView(opened->view, ViewOfBytes(input));
}

TEST(OpenProgram, WhatCannotBeReadIsAnErrorSayingWhy) {
  TempDir dir;
  Result<OpenedProgram> missing = OpenProgram(dir / "nowhere.pte");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no such file"), std::string::npos)
      << missing.error().message;
  Result<OpenedProgram> folder = OpenProgram(dir.path());
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.error().message.find("is a directory"), std::string::npos)
      << folder.error().message;
  const std::string text = "not a program, only some text long enough to have an identifier";
  WriteFileBytes(dir / "text.pte", text);
  Result<OpenedProgram> from_file = OpenProgram(dir / "text.pte");
  Result<OpenedProgram> from_bytes =
      OpenProgramBytes(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  ASSERT_FALSE(from_file.ok());
  ASSERT_FALSE(from_bytes.ok());
  EXPECT_NE(from_file.error().message.find("identifier"), std::string::npos)
      << from_file.error().message;
  EXPECT_EQ(from_file.error().message, from_bytes.error().message);
  EXPECT_FALSE(OpenProgramBytes({}).ok());
}

TEST(OpenProgram, EveryCorpusFileReadsTheSameFromItsPathAndFromItsBytes) {
  if (SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  const std::vector<ManifestRow> rows = CorpusManifest();
  ASSERT_FALSE(rows.empty()) << "MANIFEST.tsv has no rows";
  size_t read = 0;
  for (const ManifestRow& row : rows) {
    SCOPED_TRACE(row.file);
    const fs::path path = test_support::CorpusPath(row);
    const std::vector<uint8_t> bytes = ReadBytes(path);
    Result<OpenedProgram> by_path = OpenProgram(path);
    Result<OpenedProgram> by_bytes = OpenProgramBytes(bytes);
    ASSERT_EQ(by_path.ok(), by_bytes.ok())
        << (by_path.ok() ? by_bytes.error().message : by_path.error().message);
    const bool program = row.identifier == "ET12" || row.identifier == "BP08";
    EXPECT_EQ(by_path.ok(), program);
    if (!by_path.ok()) {
      EXPECT_EQ(by_path.error().message, by_bytes.error().message);
      continue;
    }
    ++read;
    EXPECT_EQ(by_path->notice, "");
    ExpectSameView(by_path->view, by_bytes->view);
  }
  const auto bundles = std::count_if(rows.begin(), rows.end(),
                                     [](const ManifestRow& r) { return r.identifier == "BP08"; });
  EXPECT_EQ(read, CorpusManifestTotals().programs + static_cast<size_t>(bundles));
}

}  // namespace
}  // namespace pteshare
