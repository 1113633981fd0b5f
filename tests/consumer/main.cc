// check_model FILE: what a loader does with pteshare::runtime_check before
// handing a program its arenas. Prints the report's summary and each
// finding; exit 0 when the shared buffers alias, 1 when not, 2 when the
// file cannot be read.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "runtime_check/alias_check.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: check_model FILE\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "check_model: %s: cannot open\n", argv[1]);
    return 2;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  using namespace pteshare::runtime_check;
  Report report = CheckProgram(bytes.data(), bytes.size(), CheckOptions{});
  std::printf("%s: %s\n", argv[1], report.Summary().c_str());
  for (const Finding& f : report.findings) std::printf("  %s\n", f.message.c_str());
  return report.ok() ? 0 : 1;
}
