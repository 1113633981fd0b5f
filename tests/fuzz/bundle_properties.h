// Fuzz properties: bundled programs (.bpte). ReadBundle (the bundle's
// verifier, then where the program lies), the program read as a .pte, and
// RebuildBundle around it. Properties: no crash or sanitizer report on any
// bytes; an accepted bundle's program lies inside the bytes; a rebuilt
// bundle reads back with the same program bytes and keeps every test case;
// rebuilding is deterministic.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rewriter/bundle/bundle_builder.h"
#include "rewriter/program/bundle.h"
#include "tests/fuzz/fuzz_support.h"

namespace pteshare::fuzz {

/// The properties above on `bytes` (fuzz_read_bundle.cc, bundle_test.cc).
inline void CheckReadBundle(std::span<const uint8_t> bytes) {
  Result<BundleInfo> info = ReadBundle(bytes);
  if (!info.ok()) {
    if (info.error().message.empty()) Fail("a bundle refused without a message");
    return;
  }
  if (info->program_offset > bytes.size() ||
      info->program_size > bytes.size() - info->program_offset) {
    Fail("accepted program [" + std::to_string(info->program_offset) + ", +" +
         std::to_string(info->program_size) + ") past the end of the bundle");
  }
  const std::span<const uint8_t> program = ProgramInBundle(bytes, *info);
  (void)ReadView(program);  // the program is read as any .pte
  Result<std::vector<uint8_t>> rebuilt = RebuildBundle(bytes, program);
  if (!rebuilt.ok()) {
    if (rebuilt.error().message.empty()) Fail("a rebuild refused without a message");
    return;
  }
  Result<BundleInfo> again = ReadBundle(*rebuilt);
  if (!again.ok()) Fail("a rebuilt bundle does not read back: " + again.error().message);
  const std::span<const uint8_t> inner = ProgramInBundle(*rebuilt, *again);
  if (!std::equal(inner.begin(), inner.end(), program.begin(), program.end())) {
    Fail("a rebuilt bundle holds other program bytes");
  }
  Status kept = CheckTestCasesKept(bytes, *rebuilt);
  if (!kept.ok()) Fail(kept.error().message);
  Result<std::vector<uint8_t>> twice = RebuildBundle(*rebuilt, inner);
  if (!twice.ok() || *twice != *rebuilt) Fail("rebuilding a rebuilt bundle changes it");
}

}  // namespace pteshare::fuzz
