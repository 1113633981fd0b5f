// The first bytes of a .pte, read by everyone who reads one (docs/format.md,
// "The file"):
//
//   [0, 4)    root table offset (uint32 LE)
//   [4, 8)    file identifier "ET12"
//   [8, 8 + length)  optional extended header "eh00": magic, length (uint32,
//             counted from the magic), program_size, segment_base_offset
//             and, when length >= 32, segment_data_size (uint64 each)
//   [0, program_size)  the flatbuffer (the whole file without the header)
//
// The layout and its parsing are extended_header.h's (no allocation); here
// are the messages. Errors come back as one line in `*problem` (no file
// name; the caller adds it). `container` names what the bytes are ("file",
// "buffer") in messages. C++17, header-only, no dependency: rewriter/ and
// runtime_check's host report use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "extended_header.h"

namespace pteshare {

namespace pte_header {

inline std::string Printable(const uint8_t* four) {
  std::string text;
  for (int i = 0; i < 4; ++i) {
    const uint8_t c = four[i];
    if (c >= 0x20 && c < 0x7f) {
      text += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      text += "\\x";
      text += kHex[c >> 4];
      text += kHex[c & 15];
    }
  }
  return text;
}

/// What bytes (at least 8) that are not ET12 most likely are, so the user
/// learns more than "bad identifier".
inline std::string WrongIdentifier(const uint8_t* bytes) {
  if (std::memcmp(bytes, "PK\x03\x04", 4) == 0) {
    return "not a .pte program: this is a ZIP archive (a PyTorch .pt/.pth file?)";
  }
  const std::string id = Printable(bytes + PteConstants::kIdentifierOffset);
  if (id == PteConstants::kRewritingIdentifier) {
    return "a pteshare rewrite in place of this file is running or did not finish (identifier '" +
           id +
           "'): it is neither the input nor the result until rolled back; any pteshare command "
           "run through the name it was rewritten by (where its FILE.pteshare-journal lies) "
           "rolls it back";
  }
  if (id.compare(0, 2, "BP") == 0) {
    return "not a .pte program: identifier '" + id +
           "' is a bundled program (a test wrapper around a program); pteshare reads ET12 "
           "programs";
  }
  if (id.compare(0, 2, "ET") == 0) {
    return "unsupported program version: identifier '" + id + "', pteshare reads ET12 programs";
  }
  return "not a .pte program: identifier '" + id + "' at byte 4, expected 'ET12'";
}

/// The message for a header problem ParseHeader found.
inline std::string HeaderProblemText(HeaderProblem problem, const ExtendedHeader& header,
                                     uint64_t size, const char* container) {
  switch (problem) {
    case HeaderProblem::kOk:
      return "";
    case HeaderProblem::kLengthTooSmall:
      return "extended header length " + std::to_string(header.length) +
             " is less than the minimum " + std::to_string(PteConstants::kMinimumHeaderLength);
    case HeaderProblem::kLengthPastEnd:
      return "extended header length " + std::to_string(header.length) +
             " at byte 8 runs past the end of the " + std::to_string(size) + "-byte " + container;
    case HeaderProblem::kProgramSizeTooSmall:
      return "extended header program_size " + std::to_string(header.program_size) +
             " is smaller than the header itself (ends at " +
             std::to_string(PteConstants::kHeaderOffset + header.length) + ")";
    case HeaderProblem::kProgramSizeTooLarge:
      return "extended header program_size " + std::to_string(header.program_size) +
             " is larger than the " + container + " (" + std::to_string(size) + " bytes)";
  }
  return "";
}

/// Reads the extended header of [bytes, bytes + size) (no header: `present`
/// false, true returned). False for a header whose length is too small or
/// runs past the end; ProgramSize judges its program_size.
inline bool Read(const uint8_t* bytes, size_t size, const char* container, ExtendedHeader* out,
                 std::string* problem) {
  uint64_t program_size = 0;
  const HeaderProblem found = ParseHeader(bytes, size, out, &program_size);
  if (found == HeaderProblem::kLengthTooSmall || found == HeaderProblem::kLengthPastEnd) {
    *problem = HeaderProblemText(found, *out, size, container);
    return false;
  }
  return true;
}

/// The flatbuffer's size: program_size of a present header, checked to
/// cover the header and to fit in `size` bytes; the whole `size` without
/// a header.
inline bool ProgramSize(const ExtendedHeader& header, uint64_t size, const char* container,
                        uint64_t* program_size, std::string* problem) {
  if (!header.present) {
    *program_size = size;
    return true;
  }
  const HeaderProblem found = ProgramSizeProblem(header, size);
  if (found != HeaderProblem::kOk) {
    *problem = HeaderProblemText(found, header, size, container);
    return false;
  }
  *program_size = header.program_size;
  return true;
}

/// Whether the segments a present header declares lie after the program
/// and inside a `file_size`-byte file (the whole file, not the flatbuffer
/// alone: a loader handed only the program cannot judge this).
inline bool SegmentsFit(const ExtendedHeader& h, uint64_t file_size, std::string* problem) {
  if (!h.present || h.segment_base_offset == 0) return true;
  if (h.segment_base_offset < h.program_size) {
    *problem = "extended header segment_base_offset " + std::to_string(h.segment_base_offset) +
               " lies inside the program (" + std::to_string(h.program_size) + " bytes)";
    return false;
  }
  if (h.segment_data_size > UINT64_MAX - h.segment_base_offset) {
    *problem = "segment_base_offset " + std::to_string(h.segment_base_offset) +
               " + segment_data_size " + std::to_string(h.segment_data_size) + " overflows";
    return false;
  }
  const uint64_t segments_end = h.segment_base_offset + h.segment_data_size;
  if (segments_end > file_size) {
    *problem = "file is too small: segment_base_offset " + std::to_string(h.segment_base_offset) +
               " + segment_data_size " + std::to_string(h.segment_data_size) + " = " +
               std::to_string(segments_end) + " bytes expected, file has " +
               std::to_string(file_size);
    return false;
  }
  return true;
}

}  // namespace pte_header
}  // namespace pteshare
