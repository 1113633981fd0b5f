// Reading a built .pte back for tests: the extended header fields and the
// verified root table. Deliberately independent of rewriter/ (tests of the
// builder must not trust the code the builder's fixtures are meant to test).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "program_generated.h"
#include "rewriter/base/result.h"

namespace pteshare::synth {

struct HeaderFields {
  uint32_t length = 0;
  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
};

/// The `eh00` header at byte 8, or nullopt when the file has none.
std::optional<HeaderFields> ReadExtendedHeader(const std::vector<uint8_t>& file);

/// Runs the generated verifier over the flatbuffer part (program_size
/// bytes, or the whole file without header) and returns the root table.
Result<const fb::Program*> VerifiedProgram(const std::vector<uint8_t>& file);

/// Whether a scalar field is present in the buffer (writers omit fields
/// equal to their default). Generated tables inherit flatbuffers::Table
/// privately, hence the cast.
template <typename GeneratedTable>
bool HasField(const GeneratedTable& table, flatbuffers::voffset_t field) {
  return reinterpret_cast<const flatbuffers::Table&>(table).CheckField(field);
}

/// Offset of a tensor's placement, memory_offset_high << 32 | low.
uint64_t PlacementOffset(const fb::AllocationDetails& allocation);

}  // namespace pteshare::synth
