// The writer's test-only crash points (crash_points.h): a point named by
// PTESHARE_TEST_CRASH_AT ends the process there with status 99, and nothing
// else does. Each case runs in a child process (a gtest death test), which
// sets the variable for itself only, so this process never stops and its
// environment stays as it was. Where the writer reaches each point, and
// that every interrupted rewrite is recovered, is writer_test.cc's.
#include "rewriter/io/crash_points.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <string>

namespace pteshare {
namespace {

constexpr char kVariable[] = "PTESHARE_TEST_CRASH_AT";

// Every point the header lists (after-patch:K has its own function).
constexpr const char* kPoints[] = {
    "after-journal",       "after-mark",      "before-insert",         "after-insert",
    "after-header-update", "before-unmark",   "before-journal-delete", "during-segment-move",
    "before-publish",      "after-temp-link",
};

// In the child: the variable set to `value` (unset for nullptr).
void SetCrashVariable(const char* value) {
  if (value == nullptr) {
    ::unsetenv(kVariable);
  } else {
    ::setenv(kVariable, value, 1);
  }
}

TEST(CrashPoints, ThePointTheVariableNamesExitsWith99) {
  for (const char* point : kPoints) {
    SCOPED_TRACE(point);
    EXPECT_EXIT(
        {
          SetCrashVariable(point);
          MaybeCrashAt(point);
        },
        ::testing::ExitedWithCode(99), "");  // the status the header documents
  }
}

// The writer passes every point on its way; only the one named stops it,
// and only by its exact name.
TEST(CrashPoints, EveryOtherValueLetsTheWriterGoOn) {
  const char* const values[] = {nullptr,         "",           "after",        "after-journal ",
                                "AFTER-JOURNAL", "after-mark", "after-patch:1"};
  for (const char* value : values) {
    SCOPED_TRACE(value == nullptr ? "(unset)" : value);
    EXPECT_EXIT(
        {
          SetCrashVariable(value);
          MaybeCrashAt("after-journal");
          MaybeCrashAt("");  // an empty point is never a crash, even with the variable empty
          MaybeCrashAfterPatch(2);
          std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "");
  }
}

TEST(CrashPoints, AfterPatchStopsAtTheKthWriteRunOnly) {
  EXPECT_EXIT(
      {
        SetCrashVariable("after-patch:3");
        for (size_t written = 1; written <= 2; ++written) MaybeCrashAfterPatch(written);
        std::_Exit(7);  // reached: runs 1 and 2 go on
      },
      ::testing::ExitedWithCode(7), "");
  EXPECT_EXIT(
      {
        SetCrashVariable("after-patch:3");
        for (size_t written = 1; written <= 5; ++written) MaybeCrashAfterPatch(written);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(kTestCrashExitStatus), "");
  // K is matched as written: neither 03 nor 13 is run 3.
  for (const char* value : {"after-patch:03", "after-patch:13", "after-patch:"}) {
    SCOPED_TRACE(value);
    EXPECT_EXIT(
        {
          SetCrashVariable(value);
          for (size_t written = 0; written <= 5; ++written) MaybeCrashAfterPatch(written);
          std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "");
  }
}

}  // namespace
}  // namespace pteshare
