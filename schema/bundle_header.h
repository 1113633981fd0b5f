// The first bytes of a bundled program (.bpte, identifier BP08) and the
// layout rules of the program it holds (docs/format.md, "Bundled
// programs"). C++17, header-only, no dependency: rewriter/ (through
// bundle_bytes.h) and runtime_check/ use it.
//
//   [0, 4)   root table offset (uint32 LE)
//   [4, 8)   identifier "BP08"
//   the root BundledProgram: version, method_test_suites, program, where
//   program is a [ubyte] vector holding a whole .pte (flatbuffer and
//   segments), aligned to 32 by the schema.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace pteshare::bundle {

/// The bundle's layout constants, with their meaning, in one place.
struct BundleConstants {
  static constexpr size_t kIdentifierOffset = 4;  // after the root offset
  static constexpr size_t kMinimumSize = 8;       // root offset + identifier
  static constexpr char kIdentifier[5] = "BP08";
  /// The schema's force_align of `program`: the program's own aligned data
  /// (constant buffers, 16) stays aligned only if its start is.
  static constexpr size_t kProgramAlignment = 32;
};

/// Whether bytes [4, 8) say BP08: the first thing checked, so a reader can
/// tell a bundle from its first bytes.
inline bool HasBundleIdentifier(const uint8_t* bytes, size_t size) {
  return size >= BundleConstants::kMinimumSize &&
         __builtin_memcmp(bytes + BundleConstants::kIdentifierOffset, BundleConstants::kIdentifier,
                          4) == 0;
}

}  // namespace pteshare::bundle
