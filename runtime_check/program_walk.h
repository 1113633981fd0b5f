// WalkProgram: every field of every table reachable from a Program root,
// read once through the bounds-checked reader (flat_reader.h) and thrown
// away. The reader checks each access as the FlatBuffers verifier would
// (inside the buffer, aligned, offsets non-zero, strings NUL-terminated),
// so after the walk reader.ok() says what flatc's verifier of the program
// schema says: the self-check once called a file ok that verify refused as
// a corrupt flatbuffer (a bad string or table it had no need to read).
// Unions of an unknown type are skipped, as the generated verifier skips
// them. The reader's budget bounds the work.
#ifndef PTESHARE_RUNTIME_CHECK_PROGRAM_WALK_H_
#define PTESHARE_RUNTIME_CHECK_PROGRAM_WALK_H_

#include "flat_reader.h"

namespace pteshare::runtime_check::core::internal {

void WalkProgram(flat::Reader& reader, const flat::Table& program);

}  // namespace pteshare::runtime_check::core::internal

#endif  // PTESHARE_RUNTIME_CHECK_PROGRAM_WALK_H_
