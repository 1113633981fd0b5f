// The installed package as another project sees it: `cmake --install` of
// this build tree into a temporary prefix, then tests/consumer configured
// against it with find_package(pteshare), built (its pteshare_rewrite()
// step runs the installed pteshare on a pte-synth program) and run (its
// loader links pteshare::runtime_check). Then the checker-only build
// (-DPTESHARE_RUNTIME_CHECK_ONLY=ON) of the same sources with FlatBuffers,
// CLI11, Boost and GoogleTest made unfindable, installed, and the consumer's
// loader alone built against it. Skips when cmake is not on PATH.
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

// The parent build's compiler launcher (ccache), so the nested builds reuse
// its cache; empty when it has none.
std::string LauncherFlag() {
  const std::string launcher = PTESHARE_CXX_COMPILER_LAUNCHER;
  return launcher.empty() ? "" : " -DCMAKE_CXX_COMPILER_LAUNCHER=" + Quoted(launcher);
}

// What a project with only a C++ compiler does: builds the checker from the
// sources, installs it, and links its loader against it.
TEST(InstallPackage, CheckerOnlyBuildNeedsNothingButACompiler) {
  if (!OnPath("cmake")) GTEST_SKIP() << "cmake is not on PATH: the install test needs it";
  TempDir dir;
  const fs::path build = dir / "checker-build";
  const fs::path prefix = dir / "prefix";
  const fs::path consumer_build = dir / "consumer-build";
  const fs::path log = dir / "log.txt";
  const std::string generator = OnPath("ninja") ? " -G Ninja" : "";
  // find_package() of a disabled package fails the configure if called
  // with REQUIRED, and finds nothing otherwise.
  const std::string no_dependencies =
      " -DCMAKE_DISABLE_FIND_PACKAGE_FlatBuffers=ON -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON"
      " -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON";

  ASSERT_EQ(Shell("cmake -S " + Quoted(PTESHARE_SOURCE_DIR) + " -B " + Quoted(build) + generator +
                      " -DCMAKE_BUILD_TYPE=Release -DPTESHARE_RUNTIME_CHECK_ONLY=ON" +
                      no_dependencies + LauncherFlag(),
                  log),
            0)
      << ReadFileBytes(log);
  const std::string cache = ReadFileBytes(build / "CMakeCache.txt");
  for (const char* absent :
       {"FlatBuffers_DIR", "CLI11_DIR", "Boost_INCLUDE_DIR", "GTest_DIR", "FLATC_EXECUTABLE"}) {
    EXPECT_EQ(cache.find(absent), std::string::npos) << absent << " was looked for";
  }
  ASSERT_EQ(Shell("cmake --build " + Quoted(build) + " -j 2", log), 0) << ReadFileBytes(log);
  ASSERT_EQ(Shell("cmake --install " + Quoted(build) + " --prefix " + Quoted(prefix), log), 0)
      << ReadFileBytes(log);
  EXPECT_TRUE(fs::exists(prefix / "bin" / "pteshare-selfcheck"));
  EXPECT_FALSE(fs::exists(prefix / "bin" / "pteshare"));
  EXPECT_TRUE(fs::exists(prefix / "include" / "pteshare" / "runtime_check" / "alias_check.h"));
  EXPECT_FALSE(fs::exists(prefix / "include" / "pteshare" / "program_generated.h"));

  ASSERT_EQ(Shell("cmake -S " + Quoted(fs::path(PTESHARE_SOURCE_DIR) / "tests" / "consumer") +
                      " -B " + Quoted(consumer_build) + generator +
                      " -DCMAKE_BUILD_TYPE=Release -DCHECKER_ONLY=ON" + no_dependencies +
                      " -DCMAKE_PREFIX_PATH=" + Quoted(prefix) + LauncherFlag(),
                  log),
            0)
      << ReadFileBytes(log);
  ASSERT_EQ(Shell("cmake --build " + Quoted(consumer_build) + " -j 2", log), 0)
      << ReadFileBytes(log);

  // The loader built on the checker alone checks a rewritten program.
  const std::string input = testing::SynthLlm(dir.path(), "llm.pte");
  const fs::path shared = dir / "llm-shared.pte";
  ASSERT_EQ(testing::RunTool("pteshare", {"rewrite", input, "-o", shared.string(), "--share-auto"})
                .exit_status,
            0);
  EXPECT_EQ(Shell(Quoted(consumer_build / "check_model") + " " + Quoted(shared), log), 0)
      << ReadFileBytes(log);
  EXPECT_NE(ReadFileBytes(log).find(": ok: "), std::string::npos) << ReadFileBytes(log);
  EXPECT_EQ(Shell(Quoted(consumer_build / "check_model") + " " + Quoted(input), log), 1)
      << ReadFileBytes(log);
}

}  // namespace
}  // namespace pteshare
