// rewrite_model IN OUT: what an exporter does with pteshare::rewriter: reads
// a program, makes its methods share their state with RewriteBytes (in
// memory, as `pteshare rewrite --share-auto --strategy relocate` would),
// and writes the result. Exit 0 done, 1 no valid plan, 2 bad input.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "rewriter/rewrite.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: rewrite_model IN OUT\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "rewrite_model: %s: cannot open\n", argv[1]);
    return 2;
  }
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  pteshare::ShareRequest share;
  share.share_auto = true;
  pteshare::PlanOptions options;
  options.strategy = pteshare::Strategy::kRelocate;
  const pteshare::Result<pteshare::RewriteOutcome> outcome =
      pteshare::RewriteBytes(bytes, share, options);
  if (!outcome.ok()) {
    std::fprintf(stderr, "rewrite_model: %s: %s\n", argv[1], outcome.error().message.c_str());
    return outcome.error().kind == pteshare::ErrorKind::kNoValidPlan ? 1 : 2;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out.write(reinterpret_cast<const char*>(outcome->bytes.data()),
            static_cast<std::streamsize>(outcome->bytes.size()));
  if (!out.flush()) {
    std::fprintf(stderr, "rewrite_model: %s: cannot write\n", argv[2]);
    return 2;
  }
  std::printf("%s: %zu shared buffers, %zu -> %zu bytes\n", argv[2],
              outcome->plan.planned.shared.buffers.size(), bytes.size(), outcome->bytes.size());
  return 0;
}
