// Finds the program inside the bytes of a .pte (or of a bundle .bpte that
// holds one) and copies what the checker looks at into ProgramTables, with
// its own bounds-checked reader (schema/flat_reader.h): an application
// links this next to its own FlatBuffers, so it uses none. The layout is in
// docs/format.md:
//
//   [0, 4)    root table offset (uint32 LE)
//   [4, 8)    file identifier "ET12"
//   [8, ...)  optional extended header "eh00" giving program_size
//   [0, program_size)  the flatbuffer; the whole buffer without a header
//
// A bundle (identifier BP08): its root table is read, then the program its
// `program` vector holds is read as above.
#ifndef PTESHARE_RUNTIME_CHECK_PROGRAM_READER_H_
#define PTESHARE_RUNTIME_CHECK_PROGRAM_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime_check/program_tables.h"

namespace pteshare::runtime_check::internal {

/// The buffer must be aligned this much, as ExecuTorch's loader wants it
/// (its own FlatBuffers reads 8-byte scalars in place); mmap and operator
/// new give more.
inline constexpr size_t kRequiredAlignment = 8;

/// Reads the program in [data, data + size) into `*out`; false with
/// `*problem` (one line, with the numbers) when the bytes are not a program
/// the checker can read.
bool ReadProgramTables(const void* data, size_t size, ProgramTables* out, std::string* problem);

}  // namespace pteshare::runtime_check::internal

#endif  // PTESHARE_RUNTIME_CHECK_PROGRAM_READER_H_
