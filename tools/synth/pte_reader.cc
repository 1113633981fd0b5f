#include "tools/synth/pte_reader.h"

#include <cstring>
#include <string>

#include "tools/synth/extended_header.h"

namespace pteshare::synth {
namespace {

uint64_t ReadLittleEndian(const uint8_t* in, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = value << 8 | in[i];
  return value;
}

}  // namespace

std::optional<HeaderFields> ReadExtendedHeader(const std::vector<uint8_t>& file) {
  const uint8_t* header = file.data() + kExtendedHeaderOffset;
  if (file.size() < kExtendedHeaderOffset + 24 ||
      std::memcmp(header, kExtendedHeaderMagic, 4) != 0) {
    return std::nullopt;
  }
  HeaderFields fields;
  fields.length = static_cast<uint32_t>(ReadLittleEndian(header + 4, 4));
  fields.program_size = ReadLittleEndian(header + 8, 8);
  fields.segment_base_offset = ReadLittleEndian(header + 16, 8);
  if (fields.length >= 32 && file.size() >= kExtendedHeaderOffset + 32) {
    fields.segment_data_size = ReadLittleEndian(header + 24, 8);
  }
  return fields;
}

Result<const fb::Program*> VerifiedProgram(const std::vector<uint8_t>& file) {
  uint64_t size = file.size();
  if (auto header = ReadExtendedHeader(file)) size = header->program_size;
  if (size > file.size()) {
    return Error{"program_size " + std::to_string(size) + " > file size " +
                 std::to_string(file.size())};
  }
  flatbuffers::Verifier verifier(file.data(), size);
  if (!fb::VerifyProgramBuffer(verifier)) {
    return Error{"flatbuffer verifier rejects the first " + std::to_string(size) + " bytes"};
  }
  return fb::GetProgram(file.data());
}

uint64_t PlacementOffset(const fb::AllocationDetails& allocation) {
  return uint64_t{allocation.memory_offset_high()} << 32 | allocation.memory_offset_low();
}

}  // namespace pteshare::synth
