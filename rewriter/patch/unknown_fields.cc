#include "rewriter/patch/unknown_fields.h"

namespace pteshare {

std::optional<int> FirstUnknownField(const flatbuffers::Table& table, int known_fields) {
  const uint8_t* vtable = table.GetVTable();
  const auto vtable_size = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable);
  // Two voffsets (the vtable's and the table's sizes), then one per field.
  constexpr size_t kHeader = 2 * sizeof(flatbuffers::voffset_t);
  if (vtable_size < kHeader) return std::nullopt;
  const size_t fields = (vtable_size - kHeader) / sizeof(flatbuffers::voffset_t);
  for (size_t id = static_cast<size_t>(known_fields); id < fields; ++id) {
    const auto at = flatbuffers::ReadScalar<flatbuffers::voffset_t>(
        vtable + kHeader + id * sizeof(flatbuffers::voffset_t));
    if (at != 0) return static_cast<int>(id);
  }
  return std::nullopt;
}

std::string UnknownFieldText(const char* table_type, uint64_t table_at, int field) {
  return std::string(table_type) + " table at offset " + std::to_string(table_at) +
         " stores field " + std::to_string(field) +
         ", which pteshare's schema does not know (a newer exporter?)";
}

}  // namespace pteshare
