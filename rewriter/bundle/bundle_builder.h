// BundleBuilder: a new bundle around a rewritten program, with the input
// bundle's version and test cases kept byte for byte.
//
// The bundle is one flatbuffer, so a program that grows cannot be patched
// into it: the whole bundle is serialised again with FlatBufferBuilder.
// The test suites are copied value by value (names, tensors' element type,
// sizes, data and dim order, scalars), in the input's order, before the
// program, so the result is laid out as the exporter lays it out (root,
// program, then the suites). A table holding a field our schema does not
// know (a newer bundle format) is refused rather than silently dropped.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rewriter/base/result.h"

namespace pteshare {

/// `old_bundle` with its program replaced by `program` (a whole .pte).
/// Deterministic: the same inputs give the same bytes.
Result<std::vector<uint8_t>> RebuildBundle(std::span<const uint8_t> old_bundle,
                                           std::span<const uint8_t> program);

/// Confirms that `new_bundle` holds `old_bundle`'s version and every test
/// suite, case and value with the same bytes; the first difference is the
/// error. Both are verified first.
Status CheckTestCasesKept(std::span<const uint8_t> old_bundle, std::span<const uint8_t> new_bundle);

}  // namespace pteshare
