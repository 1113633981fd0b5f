// ScratchDir: the one folder a benchmark writes its input and output files
// to. It is made on first use and removed by the benchmark's main, so the
// gigabyte-sized inputs of a run never outlive it. $PTESHARE_BENCH_DIR picks
// where it goes (the -o path costs differ between filesystems with and
// without reflinks); the default is the system temp folder.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace pteshare::bench {

class ScratchDir {
 public:
  /// The folder, created on the first call.
  static const std::filesystem::path& Path() {
    static const std::filesystem::path path = [] {
      const char* base = std::getenv("PTESHARE_BENCH_DIR");
      std::filesystem::path dir = base != nullptr && *base != '\0'
                                      ? std::filesystem::path(base)
                                      : std::filesystem::temp_directory_path();
      // The process id keeps two runs on one machine apart.
      dir /= "pteshare-bench-" + std::to_string(::getpid());
      std::filesystem::create_directories(dir);
      Created() = true;
      return dir;
    }();
    return path;
  }

  /// Removes the folder and everything in it, if it was ever made.
  static void Remove() {
    if (!Created()) return;
    std::error_code ec;
    std::filesystem::remove_all(Path(), ec);
  }

 private:
  static bool& Created() {
    static bool created = false;
    return created;
  }
};

}  // namespace pteshare::bench
