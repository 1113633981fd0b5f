// PteLayout: where the parts of a .pte file are, read from raw bytes and
// checked against the file size before anything trusts an offset.
//
//   [0, 8)                      root offset (uint32 LE) + identifier "ET12"
//   [8, 8 + header_length)      optional extended header "eh00" (inside the
//                               flatbuffer: the root offset skips it)
//   [0, program_size)           the flatbuffer, verified with our schema
//   [program_size, segment_base_offset)   slack (zero padding)
//   [segment_base_offset, + segment_data_size)   data segments (weights, initial
//                               state); never read by pteshare, only moved
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "pte_header.h"
#include "rewriter/base/result.h"

namespace pteshare {

namespace fb {
// The verified root table, generated from schema/program.fbs. Only
// declared here: code that reads its fields includes "program_generated.h"
// itself (the reader and the patcher; program_tables.h).
struct Program;
}  // namespace fb

/// One entry of Program.segments, with its absolute place in the file.
struct SegmentExtent {
  uint64_t offset = 0;  // relative to segment_base_offset, as stored
  uint64_t size = 0;
  uint64_t file_offset = 0;  // segment_base_offset + offset
};

struct PteLayout {
  uint64_t file_size = 0;
  ExtendedHeader header;
  /// Bytes of the flatbuffer (header included): header.program_size, or the
  /// whole file when there is no extended header.
  uint64_t program_size = 0;
  /// File offset of the first segment; 0 when there is no extended header.
  uint64_t segment_base_offset = 0;
  std::vector<SegmentExtent> segments;

  /// Zero padding between the flatbuffer and the segments (0 without them).
  uint64_t slack() const {
    return segment_base_offset > program_size ? segment_base_offset - program_size : 0;
  }
  /// Bytes of segment data, from the header or else the segments' extent.
  uint64_t segment_bytes() const;
};

/// Checks the identifier, the extended header, the sizes against the file,
/// runs the FlatBuffers verifier over [0, program_size), then checks every
/// segment against the file: inside it, after the flatbuffer (a non-empty
/// segment needs segment_base_offset > 0), and no two non-empty segments
/// overlapping (a rewrite that moves them would otherwise corrupt one). On success `*program`
/// points into `bytes`.
Result<PteLayout> ReadPteLayout(std::span<const uint8_t> bytes, const fb::Program** program);

/// Whether bytes [4, 8) hold the ET12 identifier: the first thing checked,
/// so a reader can refuse a file before reading more than its first bytes.
bool HasProgramIdentifier(std::span<const uint8_t> first_bytes);

/// Reads the extended header alone (no verification). Used by the reader
/// above and by the patcher to rewrite sizes.
Result<ExtendedHeader> ReadExtendedHeader(std::span<const uint8_t> bytes);

}  // namespace pteshare
