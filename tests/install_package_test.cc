// The installed package as another project sees it: `cmake --install` of
// this build tree into a temporary prefix, then tests/consumer configured
// against it with find_package(pteshare), built (its pteshare_rewrite()
// step runs the installed pteshare on a pte-synth program) and run (its
// loader links pteshare::runtime_check). Skips when cmake is not on PATH.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "tests/test_support.h"

namespace pteshare {
namespace {

namespace fs = std::filesystem;
using testing::ReadFileBytes;
using testing::TempDir;

/// Runs `command` in /bin/sh with stdout and stderr into `log`; returns the
/// exit status (-1 if it did not exit normally).
int Shell(const std::string& command, const fs::path& log) {
  const int status = std::system((command + " > '" + log.string() + "' 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool OnPath(const std::string& program) {
  return std::system(("command -v " + program + " > /dev/null 2>&1").c_str()) == 0;
}

std::string Quoted(const fs::path& path) { return "'" + path.string() + "'"; }

TEST(InstallPackage, ConsumerProjectBuildsRewritesAndChecks) {
  if (!OnPath("cmake")) GTEST_SKIP() << "cmake is not on PATH: the install test needs it";
  const fs::path build_tree = PTESHARE_BINARY_DIR;
  const fs::path consumer_source = fs::path(PTESHARE_SOURCE_DIR) / "tests" / "consumer";
  TempDir dir;
  const fs::path prefix = dir / "prefix";
  const fs::path consumer_build = dir / "consumer-build";
  const fs::path log = dir / "log.txt";

  ASSERT_EQ(Shell("cmake --install " + Quoted(build_tree) + " --prefix " + Quoted(prefix), log), 0)
      << ReadFileBytes(log);
  EXPECT_TRUE(fs::exists(prefix / "bin" / "pteshare"));
  EXPECT_TRUE(fs::exists(prefix / "include" / "pteshare" / "runtime_check" / "alias_check.h"));
  EXPECT_TRUE(fs::exists(prefix / "include" / "pteshare" / "program_generated.h"));
  EXPECT_TRUE(fs::exists(prefix / "include" / "pteshare" / "tensor_nbytes.h"));

  const std::string generator = OnPath("ninja") ? " -G Ninja" : "";
  ASSERT_EQ(
      Shell("cmake -S " + Quoted(consumer_source) + " -B " + Quoted(consumer_build) + generator +
                " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" + Quoted(prefix),
            log),
      0)
      << ReadFileBytes(log);
  ASSERT_EQ(Shell("cmake --build " + Quoted(consumer_build) + " -j 2", log), 0)
      << ReadFileBytes(log);
  EXPECT_NE(ReadFileBytes(log).find("pteshare: rewriting"), std::string::npos)
      << ReadFileBytes(log);

  // The loader's check: the rewritten model shares its caches, the input
  // (each method planned on its own) does not.
  const fs::path checker = consumer_build / "check_model";
  EXPECT_EQ(Shell(Quoted(checker) + " " + Quoted(consumer_build / "llm-shared.pte"), log), 0)
      << ReadFileBytes(log);
  EXPECT_NE(ReadFileBytes(log).find(": ok: 4 shared buffers across 2 methods"), std::string::npos)
      << ReadFileBytes(log);
  EXPECT_EQ(Shell(Quoted(checker) + " " + Quoted(consumer_build / "llm.pte"), log), 1)
      << ReadFileBytes(log);

  // Nothing changed: the rewrite does not run again.
  ASSERT_EQ(Shell("cmake --build " + Quoted(consumer_build) + " -j 2", log), 0)
      << ReadFileBytes(log);
  EXPECT_EQ(ReadFileBytes(log).find("pteshare: rewriting"), std::string::npos)
      << ReadFileBytes(log);
  // A newer input: it does.
  const fs::path input = consumer_build / "llm.pte";
  fs::last_write_time(input, fs::last_write_time(input) + std::chrono::seconds(5));
  ASSERT_EQ(Shell("cmake --build " + Quoted(consumer_build) + " -j 2", log), 0)
      << ReadFileBytes(log);
  EXPECT_NE(ReadFileBytes(log).find("pteshare: rewriting"), std::string::npos)
      << ReadFileBytes(log);
}

}  // namespace
}  // namespace pteshare
