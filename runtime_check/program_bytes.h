// Finds the flatbuffer inside the bytes of a .pte and verifies it before
// anyone reads a field. The layout (pte-format.md):
//
//   [0, 4)    root table offset (uint32 LE)
//   [4, 8)    file identifier "ET12"
//   [8, ...)  optional extended header: "eh00", length (uint32 LE, from the
//             magic), program_size (uint64 LE), segment_base_offset, ...
//   [0, program_size)  the flatbuffer; the whole buffer when there is no
//             extended header
// A bundled program (identifier BP08, .bpte) is accepted too: its own
// flatbuffer is verified, then the program it holds is located and read as
// above (schema/bundle_bytes.h).
#ifndef PTESHARE_RUNTIME_CHECK_PROGRAM_BYTES_H_
#define PTESHARE_RUNTIME_CHECK_PROGRAM_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "program_generated.h"

namespace pteshare::runtime_check::internal {

/// The file layout constants, with their meaning, in one place.
struct PteConstants {
  static constexpr size_t kIdentifierOffset = 4;  // after the root offset
  static constexpr size_t kHeaderOffset = 8;      // extended header start
  // magic, length, program_size, segment_base_offset
  static constexpr uint32_t kMinimumHeaderLength = 24;
  static constexpr size_t kProgramSizeOffset = 8;  // inside the header
  // Our reads of 8-byte scalars (non_const_buffer_sizes) need the buffer
  // aligned at least this much; mmap and operator new give more.
  static constexpr size_t kRequiredAlignment = 8;
};

/// The verified root table (of the bundle's program, for a bundle), or
/// nullptr with `*problem` saying what is wrong and with which numbers.
const fb::Program* LocateProgram(const void* data, size_t size, std::string* problem);

}  // namespace pteshare::runtime_check::internal

#endif  // PTESHARE_RUNTIME_CHECK_PROGRAM_BYTES_H_
