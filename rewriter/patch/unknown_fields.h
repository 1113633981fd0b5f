// Fields a table stores that pteshare's schema does not know: a newer
// exporter may add fields to Tensor, ExtraTensorInfo or AllocationDetails.
// The patcher keeps such a table where it is: pointing a tensor at another
// table, or at a copy built from the known fields, would silently drop what
// the unknown fields say, so such a rewrite is refused (bad input, naming
// the table and the field) instead.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <optional>
#include <string>

namespace pteshare {

/// The lowest field id at or above `known_fields` that `table` stores
/// (its vtable gives it a nonzero offset), or nullopt. The vtable is read
/// within its own declared size, which the verifier checked.
std::optional<int> FirstUnknownField(const flatbuffers::Table& table, int known_fields);

/// "AllocationDetails table at offset 1234 stores field 3": how a refusal
/// names the table and the field.
std::string UnknownFieldText(const char* table_type, uint64_t table_at, int field);

}  // namespace pteshare
