// The ExecuTorch extended header (`eh00`) and where it goes. The exporter
// builds a plain flatbuffer, then inserts the header right after the file
// identifier (byte 8) and adds the header's length to the root offset
// (exir/_serialize/_program.py, _insert_flatbuffer_header). Because the
// header's length is a multiple of the schema's largest force_align (16),
// every table keeps its alignment, and since the root offset is the only
// offset that points across byte 8, fixing it keeps the buffer valid.
#pragma once

#include <cstdint>
#include <vector>

namespace pteshare::synth {

/// Layout constants of the header, as ExecuTorch's runtime reads them.
inline constexpr uint64_t kExtendedHeaderOffset = 8;  // after root offset + "ET12"
inline constexpr char kExtendedHeaderMagic[4] = {'e', 'h', '0', '0'};
/// magic (4) + length (4) + program_size (8) + segment_base_offset (8) +
/// segment_data_size (8): the current 32-byte header.
inline constexpr uint32_t kExtendedHeaderLength = 32;

struct ExtendedHeaderFields {
  uint64_t program_size = 0;         // flatbuffer bytes, header included
  uint64_t segment_base_offset = 0;  // file offset of the first segment
  uint64_t segment_data_size = 0;    // bytes from segment_base_offset to the end
};

/// Inserts a header at byte 8 of `flatbuffer` and fixes the root offset.
/// The fields are written as given; `flatbuffer` must be a finished buffer
/// (root offset + identifier) of at least 8 bytes.
std::vector<uint8_t> InsertExtendedHeader(const std::vector<uint8_t>& flatbuffer,
                                          const ExtendedHeaderFields& fields);

}  // namespace pteshare::synth
