// Finds the program inside the bytes of a .pte (or of a bundle .bpte that
// holds one) and verifies every table of it before anything trusts an
// offset, with the bounds-checked reader of schema/flat_reader.h (an
// application links this next to its own FlatBuffers, so it uses none).
// The layout is in docs/format.md:
//
//   [0, 4)    root table offset (uint32 LE)
//   [4, 8)    file identifier "ET12"
//   [8, ...)  optional extended header "eh00" giving program_size
//   [0, program_size)  the flatbuffer; the whole buffer without a header
//
// A bundle (identifier BP08): its root table is read, then the program its
// `program` vector holds is read as above.
#ifndef PTESHARE_RUNTIME_CHECK_LOCATE_PROGRAM_H_
#define PTESHARE_RUNTIME_CHECK_LOCATE_PROGRAM_H_

#include <stddef.h>
#include <stdint.h>

#include "runtime_check/check.h"

namespace pteshare::runtime_check::core::internal {

/// The buffer must be aligned this much, as ExecuTorch's loader wants it
/// (its own FlatBuffers reads 8-byte scalars in place); mmap and operator
/// new give more.
constexpr size_t kRequiredAlignment = 8;

/// The verified flatbuffer of the program.
struct LocatedProgram {
  const uint8_t* bytes = nullptr;
  size_t size = 0;
};

/// Finds and verifies the program in [data, data + size); false with
/// `*failure` (a kNotAProgram finding) when the bytes are not a program
/// the checker can read.
bool LocateProgram(const void* data, size_t size, LocatedProgram* out, Finding* failure);

/// A reader over a located, verified program, with a budget for the
/// rules' own reading (they read values and instructions again in place).
uint64_t RulesReadingBudget(size_t size);

}  // namespace pteshare::runtime_check::core::internal

#endif  // PTESHARE_RUNTIME_CHECK_LOCATE_PROGRAM_H_
