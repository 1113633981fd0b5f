// Writing shared-buffer names into the program (--write-names): the names
// --name gave or the pairing of unnamed state made (shared_buffers.h) are
// stored in each shared buffer's extra_tensor_info.fully_qualified_name, so
// that pteshare verify, a loader's self-check, a later rewrite and the
// runtime's Method::get_attribute(name) all find the buffer by name.
//
// A name cannot be added to a Tensor table in place: the table (or its
// vtable, shared with other tables) has no room for a field it lacks. So
// for each tensor to name, a complete copy of its Tensor table (its sizes
// and dim_order vectors, a complete AllocationDetails table holding the
// plan's new placement, and an ExtraTensorInfo with the name and every
// field of the old one) is appended after the flatbuffer, and the EValue's
// `val` offset is repointed to it (FlatBuffers offsets point forward, so an
// earlier EValue may point there). The old table stays, unreferenced. This
// is the only case in which a rewrite changes more than allocation info
// (docs/design.md, I5); a second run finds the names and writes nothing.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/patch/byte_overwrite.h"
#include "rewriter/patch/tensor_name.h"
#include "rewriter/plan/plan.h"
#include "rewriter/program/program_view.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare {

/// Every shared buffer's tensor, in every method that has it, whose
/// fully_qualified_name is not the buffer's name (method, then value order).
std::vector<TensorName> NamesToWrite(const ProgramView& view, const SharedBufferSet& shared);

/// The appended Tensor copies for `names` (at file offset `start`, after
/// whatever else is appended) and the EValue overwrites that point to them.
struct NamedTensorCopies {
  std::vector<uint8_t> bytes;  // written at `start`, padding included
  std::vector<ByteOverwrite> overwrites;
};

Result<NamedTensorCopies> BuildNamedTensorCopies(std::span<const uint8_t> file,
                                                 const ProgramView& view, const Plan& plan,
                                                 const std::vector<TensorName>& names,
                                                 uint64_t start);

}  // namespace pteshare
