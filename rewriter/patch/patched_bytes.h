// PatchedBytes: a PatchSet applied in memory, giving the bytes the writer
// would put on disk for the same input. Used where the program is not a
// file of its own (the program inside a bundle, bundle_writer.h; bytes in
// memory, rewrite.h's RewriteBytes), so every way of writing follows one
// PatchSet.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/patch/patcher.h"

namespace pteshare {

/// `input`: the whole program file (flatbuffer and segments) the patch was
/// made for. Writes the rewritten file into `out`: the flatbuffer with the
/// overwrites, the appended bytes at old_program_size, zeros up to the new
/// segment base and the segment data there. Every byte of `out` is
/// written, so it may be uninitialised memory (a buffer the caller hands
/// out, e.g. a Python bytes object being made): nothing is zero-filled
/// first. Errors, with `out` untouched: an input whose size is not the
/// patch's old_file_size, an `out` whose size is not its new_file_size, a
/// write past the new end, segments that do not land at the new end.
Status ApplyPatchInto(std::span<const uint8_t> input, const PatchSet& patch,
                      std::span<uint8_t> out);

/// ApplyPatchInto a new vector of patch.new_file_size bytes.
Result<std::vector<uint8_t>> ApplyPatchInMemory(std::span<const uint8_t> input,
                                                const PatchSet& patch);

}  // namespace pteshare
