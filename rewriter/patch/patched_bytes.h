// PatchedBytes: a PatchSet applied in memory, giving the bytes the writer
// would put on disk for the same input. Used where the program is not a
// file of its own (the program inside a bundle, bundle_writer.h), so both
// ways of writing follow one PatchSet.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/patch/patcher.h"

namespace pteshare {

/// `input`: the whole program file (flatbuffer and segments) the patch was
/// made for. Returns the rewritten file: the flatbuffer with the
/// overwrites, the appended bytes at old_program_size, zeros up to the new
/// segment base and the segment data there. An input whose size is not the
/// patch's old_file_size is an error.
Result<std::vector<uint8_t>> ApplyPatchInMemory(std::span<const uint8_t> input,
                                                const PatchSet& patch);

}  // namespace pteshare
