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
// Errors come back as one line in `*problem` (no file name; the caller adds
// it). `container` names what the bytes are ("file", "buffer") in messages.
// C++17, header-only, no dependency: rewriter/ and runtime_check/ use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

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
         std::memcmp(bytes + PteConstants::kIdentifierOffset, PteConstants::kIdentifier, 4) == 0;
}

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

/// Reads the extended header of [bytes, bytes + size) (no header: `present`
/// false, true returned). False for a header whose length is too small or
/// runs past the end.
inline bool Read(const uint8_t* bytes, size_t size, const char* container, ExtendedHeader* out,
                 std::string* problem) {
  using C = PteConstants;
  *out = ExtendedHeader{};
  if (size < C::kHeaderOffset + 8 ||
      std::memcmp(bytes + C::kHeaderOffset, C::kHeaderMagic, 4) != 0) {
    return true;  // no extended header: the whole buffer is the flatbuffer
  }
  const uint8_t* h = bytes + C::kHeaderOffset;
  out->present = true;
  out->length = wire::LoadU32(h + C::kHeaderLengthAt);
  if (out->length < C::kMinimumHeaderLength) {
    *problem = "extended header length " + std::to_string(out->length) +
               " is less than the minimum " + std::to_string(C::kMinimumHeaderLength);
    return false;
  }
  if (out->length > size - C::kHeaderOffset) {
    *problem = "extended header length " + std::to_string(out->length) +
               " at byte 8 runs past the end of the " + std::to_string(size) + "-byte " + container;
    return false;
  }
  out->program_size = wire::LoadU64(h + C::kProgramSizeAt);
  out->segment_base_offset = wire::LoadU64(h + C::kSegmentBaseOffsetAt);
  if (out->length >= C::kHeaderLengthWithDataSize) {
    out->has_segment_data_size = true;
    out->segment_data_size = wire::LoadU64(h + C::kSegmentDataSizeAt);
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
  const uint64_t header_end = PteConstants::kHeaderOffset + header.length;
  if (header.program_size < header_end) {
    *problem = "extended header program_size " + std::to_string(header.program_size) +
               " is smaller than the header itself (ends at " + std::to_string(header_end) + ")";
    return false;
  }
  if (header.program_size > size) {
    *problem = "extended header program_size " + std::to_string(header.program_size) +
               " is larger than the " + container + " (" + std::to_string(size) + " bytes)";
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
