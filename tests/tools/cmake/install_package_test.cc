// The installed package as another project sees it: `cmake --install
// --strip` of this build tree, staged with DESTDIR into a temporary folder
// (so that nothing, not even the Python module's absolute site-packages
// path, lands outside it), then tests/consumer configured against it with
// find_package(pteshare), built (its pteshare_rewrite() steps run the
// installed pteshare on a pte-synth program, once with each option) and run
// (its loader links pteshare::runtime_check, its exporter
// pteshare::rewriter). Skips when cmake is not on PATH. The checker-only
// build and its consumer are CI's own stage (.ci/checker-only), not built
// again here.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "tests/test_support.h"

namespace pteshare {
namespace {

namespace fs = std::filesystem;
using test_support::ReadFileBytes;
using test_support::TempDir;

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

// The parent build's compiler launcher (ccache), so the nested builds reuse
// its cache; empty when it has none.
std::string LauncherFlag() {
  const std::string launcher = PTESHARE_CXX_COMPILER_LAUNCHER;
  return launcher.empty() ? "" : " -DCMAKE_CXX_COMPILER_LAUNCHER=" + Quoted(launcher);
}

TEST(InstallPackage, ConsumerProjectBuildsRewritesAndChecks) {
  PTESHARE_SKIP_UNLESS_RUN_HERE(test_support::Cost::kSweep);
  if (!OnPath("cmake")) GTEST_SKIP() << "cmake is not on PATH: the install test needs it";
  const fs::path build_tree = PTESHARE_BINARY_DIR;
  const fs::path consumer_source = fs::path(PTESHARE_SOURCE_DIR) / "tests" / "consumer";
  TempDir dir;
  const fs::path stage = dir / "stage";
  const std::string prefix_text = "/opt/pteshare";
  const fs::path prefix = stage / "opt" / "pteshare";
  const fs::path consumer_build = dir / "consumer-build";
  const fs::path log = dir / "log.txt";

  ASSERT_EQ(Shell("DESTDIR=" + Quoted(stage) + " cmake --install " + Quoted(build_tree) +
                      " --strip --prefix " + prefix_text,
                  log),
            0)
      << ReadFileBytes(log);
  EXPECT_TRUE(fs::exists(prefix / "bin" / "pteshare"));
  // Stripped: no symbol table left in the programs.
  if (OnPath("readelf")) {
    for (const char* program : {"pteshare", "pte-synth", "pteshare-selfcheck"}) {
      ASSERT_EQ(Shell("readelf -S " + Quoted(prefix / "bin" / program), log), 0) << program;
      EXPECT_EQ(ReadFileBytes(log).find(".symtab"), std::string::npos) << program;
    }
  }
  // The rewriter's public headers, and only the public ones.
  EXPECT_TRUE(fs::exists(prefix / "include" / "pteshare" / "rewriter" / "rewrite.h"));
  EXPECT_FALSE(fs::exists(prefix / "include" / "pteshare" / "rewriter" / "writer_lock.h"));
  EXPECT_TRUE(fs::exists(prefix / "lib" / "libpteshare_rewriter.a"));
  EXPECT_TRUE(fs::exists(prefix / "include" / "pteshare" / "runtime_check" / "alias_check.h"));
  EXPECT_TRUE(fs::exists(prefix / "include" / "pteshare" / "runtime_check" / "check.h"));
  EXPECT_TRUE(fs::exists(prefix / "lib" / "libpteshare_runtime_check.a"));
  EXPECT_TRUE(fs::exists(prefix / "lib" / "libpteshare_runtime_check_report.a"));
  // Plain types only: no generated code, and no header of the stages'
  // insides (lifetimes, the replanner, the name copier).
  for (const fs::directory_entry& entry :
       fs::recursive_directory_iterator(prefix / "include" / "pteshare")) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(name.find("_generated"), std::string::npos) << entry.path();
    for (const char* internal : {"lifetimes.h", "replan.h", "name_patch.h", "program_records.h"}) {
      EXPECT_NE(name, internal) << entry.path();
    }
  }

  const std::string generator = OnPath("ninja") ? " -G Ninja" : "";
  ASSERT_EQ(Shell("cmake -S " + Quoted(consumer_source) + " -B " + Quoted(consumer_build) +
                      generator + " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" +
                      Quoted(prefix) + LauncherFlag(),
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
  EXPECT_NE(ReadFileBytes(log).find(": ok: 4 shared buffers across 10 methods"), std::string::npos)
      << ReadFileBytes(log);
  EXPECT_EQ(Shell(Quoted(checker) + " " + Quoted(consumer_build / "llm.pte"), log), 1)
      << ReadFileBytes(log);

  // The exporter: RewriteBytes gives the bytes the build step's `pteshare
  // rewrite` wrote for the same options.
  const fs::path exported = consumer_build / "exported.pte";
  ASSERT_EQ(Shell(Quoted(consumer_build / "rewrite_model") + " " +
                      Quoted(consumer_build / "llm.pte") + " " + Quoted(exported),
                  log),
            0)
      << ReadFileBytes(log);
  EXPECT_EQ(ReadFileBytes(exported), ReadFileBytes(consumer_build / "llm-shared.pte"));
  // The other build steps wrote what the installed pteshare writes with the
  // flags their options stand for: none (replan only), and every other one.
  const std::string tool = Quoted(prefix / "bin" / "pteshare");
  const fs::path replanned = dir / "replanned.pte", named = dir / "named.pte";
  ASSERT_EQ(
      Shell(tool + " rewrite " + Quoted(consumer_build / "llm.pte") + " -o " + Quoted(replanned),
            log),
      0)
      << ReadFileBytes(log);
  EXPECT_NE(ReadFileBytes(log).find("nothing shared, arenas replanned"), std::string::npos)
      << ReadFileBytes(log);
  EXPECT_EQ(ReadFileBytes(consumer_build / "llm-replanned.pte"), ReadFileBytes(replanned));
  std::string naming;
  for (const char* method : {"prefill", "decode"}) {
    for (const char* pair : {"34=k0", "43=v0", "133=k1", "142=v1"}) {
      naming += std::string(" --name ") + method + ":" + pair;
    }
  }
  ASSERT_EQ(
      Shell(
          tool + " rewrite " + Quoted(consumer_build / "llm.pte") + " -o " + Quoted(named) +
              naming +
              " --share k0 v0 k1 v1 --strategy replan --layout arena --alignment 256 --arena-limit "
              "1=1073741824 --write-names",
          log),
      0)
      << ReadFileBytes(log);
  EXPECT_NE(ReadFileBytes(log).find("8 names written"), std::string::npos) << ReadFileBytes(log);
  EXPECT_EQ(ReadFileBytes(consumer_build / "named" / "llm-named.pte"), ReadFileBytes(named));
  EXPECT_EQ(Shell(Quoted(checker) + " " + Quoted(named), log), 0) << ReadFileBytes(log);
  // NAMES_FROM: the caches named in a file, as --names-from reads it.
  const fs::path names_file = dir / "names-file.pte";
  ASSERT_EQ(Shell(tool + " rewrite " + Quoted(consumer_build / "llm.pte") + " -o " +
                      Quoted(names_file) + " --share-auto --names-from " +
                      Quoted(consumer_source / "caches.names") + " --write-names",
                  log),
            0)
      << ReadFileBytes(log);
  EXPECT_EQ(ReadFileBytes(consumer_build / "named" / "llm-names-file.pte"),
            ReadFileBytes(names_file));
  ASSERT_EQ(Shell(Quoted(checker) + " " + Quoted(names_file), log), 0) << ReadFileBytes(log);
  EXPECT_NE(ReadFileBytes(log).find("layers.1.attention.kv_cache.v_cache"), std::string::npos)
      << ReadFileBytes(log);

#ifdef PTESHARE_PYTHON_INSTALL_DIR
  // The Python package, under the prefix (PREFIX/lib/pythonX.Y/site-packages:
  // where a virtual environment made at PREFIX looks), typed and whole.
  const fs::path site = prefix / PTESHARE_PYTHON_INSTALL_DIR;
  for (const char* file : {"__init__.py", "__main__.py", "_errors.py", "_native.pyi", "py.typed"}) {
    EXPECT_TRUE(fs::exists(site / "pteshare" / file)) << site << " " << file;
  }
#ifdef PTESHARE_PYTHON_EXECUTABLE
  ASSERT_EQ(Shell("PYTHONPATH=" + Quoted(site) + " " + PTESHARE_PYTHON_EXECUTABLE +
                      " -c 'import pteshare; print(pteshare.__file__)'",
                  log),
            0)
      << ReadFileBytes(log);
  EXPECT_EQ(ReadFileBytes(log).find(site.string()), 0u) << ReadFileBytes(log);
#endif
#endif

  // Nothing changed: the rewrite does not run again.
  ASSERT_EQ(Shell("cmake --build " + Quoted(consumer_build) + " -j 2", log), 0)
      << ReadFileBytes(log);
  EXPECT_EQ(ReadFileBytes(log).find("pteshare: rewriting"), std::string::npos)
      << ReadFileBytes(log);
  // A newer input: it does. "Newer" is a time ahead of the clock, so it is
  // newer than every output however long the builds before took.
  const fs::path input = consumer_build / "llm.pte";
  fs::last_write_time(input, fs::file_time_type::clock::now() + std::chrono::minutes(1));
  ASSERT_EQ(Shell("cmake --build " + Quoted(consumer_build) + " -j 2", log), 0)
      << ReadFileBytes(log);
  EXPECT_NE(ReadFileBytes(log).find("pteshare: rewriting"), std::string::npos)
      << ReadFileBytes(log);
  // A newer pteshare (an upgrade): it does too.
  const fs::path tool_file = prefix / "bin" / "pteshare";
  fs::last_write_time(tool_file, fs::file_time_type::clock::now() + std::chrono::minutes(2));
  ASSERT_EQ(Shell("cmake --build " + Quoted(consumer_build) + " -j 2", log), 0)
      << ReadFileBytes(log);
  EXPECT_NE(ReadFileBytes(log).find("pteshare: rewriting"), std::string::npos)
      << ReadFileBytes(log);
}

}  // namespace
}  // namespace pteshare
