#include "tools/synth/extended_header.h"

#include <cstring>

namespace pteshare::synth {
namespace {

void PutLittleEndian(uint8_t* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
}

uint32_t GetLittleEndian32(const uint8_t* in) {
  return in[0] | (in[1] << 8) | (in[2] << 16) | (static_cast<uint32_t>(in[3]) << 24);
}

}  // namespace

std::vector<uint8_t> InsertExtendedHeader(const std::vector<uint8_t>& flatbuffer,
                                          const ExtendedHeaderFields& fields) {
  std::vector<uint8_t> out;
  out.reserve(flatbuffer.size() + kExtendedHeaderLength);
  out.insert(out.end(), flatbuffer.begin(), flatbuffer.begin() + kExtendedHeaderOffset);
  PutLittleEndian(out.data(), GetLittleEndian32(flatbuffer.data()) + kExtendedHeaderLength, 4);

  uint8_t header[kExtendedHeaderLength] = {};
  std::memcpy(header, kExtendedHeaderMagic, 4);
  PutLittleEndian(header + 4, kExtendedHeaderLength, 4);
  PutLittleEndian(header + 8, fields.program_size, 8);
  PutLittleEndian(header + 16, fields.segment_base_offset, 8);
  PutLittleEndian(header + 24, fields.segment_data_size, 8);
  out.insert(out.end(), header, header + kExtendedHeaderLength);

  out.insert(out.end(), flatbuffer.begin() + kExtendedHeaderOffset, flatbuffer.end());
  return out;
}

}  // namespace pteshare::synth
