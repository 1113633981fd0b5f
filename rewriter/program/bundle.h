// Bundle: reading a bundled program (.bpte, BP08), the test wrapper that
// holds a whole .pte as a byte vector next to test cases. Every command
// works on the program inside; this says where it is, after the bundle's
// flatbuffer is verified (schema/bundle_bytes.h, shared with
// runtime_check/).
#pragma once

#include <cstdint>
#include <span>

#include "rewriter/base/result.h"

namespace pteshare {

/// Where the program lies in a verified bundle, and what else it holds.
struct BundleInfo {
  uint64_t file_size = 0;       // the whole bundle
  uint64_t program_offset = 0;  // first byte of the program, from the bundle's start
  uint64_t program_size = 0;    // bytes of the program (a whole .pte)
  uint32_t version = 0;         // the bundle schema's version field, as stored
  uint64_t test_suites = 0;
  uint64_t test_cases = 0;  // over all suites
};

/// Whether the first bytes say BP08 (nothing else is checked).
bool IsBundle(std::span<const uint8_t> first_bytes);

/// Verifies the bundle `bytes` and finds its program. Errors start with
/// "bundled program:" and name the numbers.
Result<BundleInfo> ReadBundle(std::span<const uint8_t> bytes);

/// The program's bytes inside `bundle` (whose ReadBundle gave `info`).
inline std::span<const uint8_t> ProgramInBundle(std::span<const uint8_t> bundle,
                                                const BundleInfo& info) {
  return bundle.subspan(info.program_offset, info.program_size);
}

}  // namespace pteshare
