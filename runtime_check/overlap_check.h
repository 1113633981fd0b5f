// The rules on what else lies in a shared buffer's bytes:
//  - no tensor of any method overlaps a shared buffer's bytes unless it lies
//    entirely inside them and the program shows it to be an alias
//    (alias_evidence.h), including methods that do not have the buffer: its
//    slot stays reserved there too;
//  - state of one method that is no shared buffer is overlapped by no
//    tensor of another method (one set of arenas).
#ifndef PTESHARE_RUNTIME_CHECK_OVERLAP_CHECK_H_
#define PTESHARE_RUNTIME_CHECK_OVERLAP_CHECK_H_

#include "flat_reader.h"
#include "runtime_check/program_records.h"

namespace pteshare::runtime_check::core::internal {

/// Sorts each method's valid non-empty tensors by (arena, offset), so the
/// tensors that overlap a slot are found by a binary search, not by a pass
/// over every tensor per shared buffer (quadratic for a program with
/// thousands of caches).
void IndexByOffset(Program* program);

void CheckNoOverlap(flat::Reader& reader, Program* program, Findings& findings);

void CheckPrivateState(Program* program, Findings& findings);

}  // namespace pteshare::runtime_check::core::internal

#endif  // PTESHARE_RUNTIME_CHECK_OVERLAP_CHECK_H_
