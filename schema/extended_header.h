// The first bytes of a .pte (docs/format.md, "The file"), read without
// allocating: the constants, the optional extended header and the size of
// the flatbuffer, with what was wrong as a code and numbers. pte_header.h
// makes the codes messages for hosts.
//
//   [0, 4)    root table offset (uint32 LE)
//   [4, 8)    file identifier "ET12"
//   [8, 8 + length)  optional extended header "eh00": magic, length (uint32,
//             counted from the magic), program_size, segment_base_offset
//             and, when length >= 32, segment_data_size (uint64 each)
//   [0, program_size)  the flatbuffer (the whole file without the header)
//
// C++17, header-only, no allocation, no header of the C++ standard library:
// runtime_check reads it on microcontrollers too.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

namespace pteshare {

/// Constants of the file layout, in one place with their meaning.
struct PteConstants {
  static constexpr size_t kIdentifierOffset = 4;      // after the root offset
  static constexpr size_t kHeaderOffset = 8;          // extended header start
  static constexpr size_t kMinimumHeaderLength = 24;  // magic..segment_base_offset
  static constexpr size_t kHeaderLengthWithDataSize = 32;
  // Inside the header (from its magic).
  static constexpr size_t kHeaderLengthAt = 4;
  static constexpr size_t kProgramSizeAt = 8;
  static constexpr size_t kSegmentBaseOffsetAt = 16;
  static constexpr size_t kSegmentDataSizeAt = 24;
  static constexpr char kIdentifier[5] = "ET12";
  static constexpr char kHeaderMagic[5] = "eh00";
  // What an in-place pteshare rewrite puts in the identifier's place while
  // the file is neither the input nor the result (rewriter/write/journal.h), so
  // the file's own bytes say so through whatever name it is reached, and an
  // ExecuTorch loader refuses it as no program.
  static constexpr char kRewritingIdentifier[5] = "PTRW";
};

/// The optional extended header, as stored.
struct ExtendedHeader {
  bool present = false;
  uint32_t length = 0;  // counted from the magic
  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  bool has_segment_data_size = false;  // length >= 32
  uint64_t segment_data_size = 0;
};

namespace pte_header {

/// Whether bytes [4, 8) hold the ET12 identifier: the first thing checked,
/// so a reader can refuse a file before reading more than its first bytes.
inline bool HasProgramIdentifier(const uint8_t* bytes, size_t size) {
  return size >= PteConstants::kHeaderOffset &&
         __builtin_memcmp(bytes + PteConstants::kIdentifierOffset, PteConstants::kIdentifier, 4) ==
             0;
}

/// What is wrong with an extended header; kOk also when there is none.
enum class HeaderProblem : uint8_t {
  kOk,
  kLengthTooSmall,       // length < kMinimumHeaderLength
  kLengthPastEnd,        // length runs past the buffer
  kProgramSizeTooSmall,  // program_size < the header's end
  kProgramSizeTooLarge,  // program_size > the buffer
};

/// Whether a present header's program_size covers the header and fits in
/// `size` bytes.
inline HeaderProblem ProgramSizeProblem(const ExtendedHeader& header, uint64_t size) {
  if (header.program_size < PteConstants::kHeaderOffset + header.length) {
    return HeaderProblem::kProgramSizeTooSmall;
  }
  if (header.program_size > size) return HeaderProblem::kProgramSizeTooLarge;
  return HeaderProblem::kOk;
}

/// Reads the extended header of [bytes, bytes + size) (no header: `present`
/// false) and the flatbuffer's size: program_size of a present header,
/// checked to cover the header and to fit in `size` bytes; the whole
/// `size` without a header.
inline HeaderProblem ParseHeader(const uint8_t* bytes, uint64_t size, ExtendedHeader* out,
                                 uint64_t* program_size) {
  using C = PteConstants;
  *out = ExtendedHeader{};
  *program_size = size;
  if (size < C::kHeaderOffset + 8 ||
      __builtin_memcmp(bytes + C::kHeaderOffset, C::kHeaderMagic, 4) != 0) {
    return HeaderProblem::kOk;  // no extended header: the whole buffer is the flatbuffer
  }
  const uint8_t* h = bytes + C::kHeaderOffset;
  out->present = true;
  out->length = wire::LoadU32(h + C::kHeaderLengthAt);
  if (out->length < C::kMinimumHeaderLength) return HeaderProblem::kLengthTooSmall;
  if (out->length > size - C::kHeaderOffset) return HeaderProblem::kLengthPastEnd;
  out->program_size = wire::LoadU64(h + C::kProgramSizeAt);
  out->segment_base_offset = wire::LoadU64(h + C::kSegmentBaseOffsetAt);
  if (out->length >= C::kHeaderLengthWithDataSize) {
    out->has_segment_data_size = true;
    out->segment_data_size = wire::LoadU64(h + C::kSegmentDataSizeAt);
  }
  const HeaderProblem problem = ProgramSizeProblem(*out, size);
  if (problem != HeaderProblem::kOk) return problem;
  *program_size = out->program_size;
  return HeaderProblem::kOk;
}

}  // namespace pte_header
}  // namespace pteshare
